package githubtest

import "time"

// What the fake recorded: writes, calls per endpoint, path and request,
// tokens minted, and the hook that sees each request as it is answered.

// Write is one recorded mutation request.
type Write struct {
	Method string
	// Path is the request path without the GHES /api/v3 prefix or query.
	Path   string
	Query  string
	Body   []byte
	Status int
	// At is when it was answered (the wall clock).
	At time.Time
}

// SpendRate counts n calls against the rate limit, as other clients of
// the installation would: the rate-limit headers report them, the call
// counts do not.
func (s *Server) SpendRate(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spent += n
}

// PeakInFlight is the most API requests (artifact storage aside) the
// server was answering at once.
func (s *Server) PeakInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peakInFlight
}

// Writes returns the recorded mutation requests in arrival order.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// Calls returns how many requests reached an endpoint, named by its
// template, e.g. "GET /repos/{owner}/{repo}/pulls/{number}/files".
// Faulted requests count.
func (s *Server) Calls(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[endpoint]
}

// PathCalls returns how many requests had this method and exact path
// (e.g. "GET", "/repos/o/r/pulls/1/files").
func (s *Server) PathCalls(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pathCalls[method+" "+path]
}

// CallCounts returns a copy of all per-endpoint counts.
func (s *Server) CallCounts() map[string]int { return s.copyCounts(s.calls) }

// URICallCounts returns a copy of the per-request counts, keyed
// "METHOD /exact/path?query": what a test reads to prove nothing is
// fetched twice.
func (s *Server) URICallCounts() map[string]int { return s.copyCounts(s.uriCalls) }

func (s *Server) copyCounts(m map[string]int) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TotalCalls is the number of requests served (pages excluded).
func (s *Server) TotalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// NotModifiedCalls is the number of conditional requests answered 304
// (included in TotalCalls; GitHub does not count them against the rate
// limit).
func (s *Server) NotModifiedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notModified
}

// ResetCounts zeroes call counts and forgets recorded writes.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.pathCalls, s.uriCalls, s.pages, s.total, s.notModified, s.writes = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, 0, 0, nil
}

// TokensIssued counts installation tokens minted.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens
}

// Served is one request the fake answered, as a hook sees it.
type Served struct {
	Method string
	// Path is without the GHES /api/v3 prefix or query.
	Path   string
	Query  string
	Status int
	// Body is the request body of a write.
	Body []byte
}

// SetHook installs f (nil removes it). It is called for every request a
// route answered, after its effect was applied and before the response is
// sent on, so a test can stop a client between the two.
func (s *Server) SetHook(f func(Served)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = f
}
