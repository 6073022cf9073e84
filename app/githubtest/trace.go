package githubtest

import (
	"net/http"
	"sort"
	"time"
)

// Traced is one request of a trace: when it reached the fake and when its
// answer was complete, with what was asked and answered, so a benchmark can
// tell which requests waited for which (see SetTracing).
type Traced struct {
	Exchange
	Start, End time.Time
}

// SetTracing starts (true) or stops recording every request this fake
// answers, with its timing and response body; starting clears the trace.
func (s *Server) SetTracing(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracing, s.trace = on, nil
}

// Trace returns the requests recorded since SetTracing(true), by start time.
func (s *Server) Trace() []Traced {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Traced(nil), s.trace...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

func (s *Server) tracingOn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tracing
}

// traced wraps w so that the exchange is recorded when done is called.
func (s *Server) traced(w http.ResponseWriter, r *http.Request, rt *route, ps params, p string) (http.ResponseWriter, func()) {
	start := time.Now()
	tee := &teeWriter{ResponseWriter: w}
	ex := Exchange{Params: ps, Method: r.Method, Path: p, Query: r.URL.RawQuery}
	if rt != nil {
		ex.Route = rt.name
	}
	return tee, func() {
		ex.Status, ex.Header, ex.Body, ex.BodyTruncated, ex.Fault = tee.status, tee.Header().Clone(), tee.body.Bytes(), tee.truncated, tee.fault
		s.mu.Lock()
		s.trace = append(s.trace, Traced{Exchange: ex, Start: start, End: time.Now()})
		s.mu.Unlock()
	}
}
