package githubtest

import (
	"encoding/binary"
	"hash/fnv"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// FaultMix fails a share of requests the way a struggling GitHub (or a
// proxy in front of it) does: 502, 503, a hang, a 403 secondary rate limit
// and a 429, each with Retry-After. Whether the n-th request with a given
// method, path and query fails, and how, depends only on Seed and n, so a
// run with concurrent callers sees the same faults in any order.
type FaultMix struct {
	// Rate is the share of requests that fail, between 0 and 1.
	Rate float64
	Seed uint64
	// Hang is how long a hanging request stalls before it is answered
	// normally (default 10s); clients are expected to give up sooner.
	Hang time.Duration
	// RetryAfter is the Retry-After of the rate-limit faults, in seconds.
	RetryAfter int
	// Skip, a regular expression searched in the path, exempts requests.
	Skip string

	skip *regexp.Regexp
}

// Fault kinds a FaultMix injects, as FaultsInjected counts them.
const (
	FaultBadGateway     = "502"
	FaultUnavailable    = "503"
	FaultHang           = "hang"
	FaultSecondaryLimit = "403-secondary"
	FaultTooMany        = "429"
)

var mixKinds = []string{FaultBadGateway, FaultUnavailable, FaultHang, FaultSecondaryLimit, FaultTooMany}

// SetFaultMix installs m (a zero Rate removes it) and resets the count of
// injected faults. Explicit faults (AddFault) take precedence.
func (s *Server) SetFaultMix(m FaultMix) {
	if m.Hang <= 0 {
		m.Hang = 10 * time.Second
	}
	if m.Skip != "" {
		m.skip = regexp.MustCompile(m.Skip)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mix = nil
	if m.Rate > 0 {
		s.mix = &m
	}
	s.injected = map[string]int{}
}

// FaultsInjected counts the faults the mix injected, by kind.
func (s *Server) FaultsInjected() map[string]int {
	return s.copyCounts(s.injected)
}

// mixFault decides the fate of the n-th request for uri. Call with s.mu held.
func (s *Server) mixFault(uri, path string, n int) *Fault {
	m := s.mix
	if m == nil || (m.skip != nil && m.skip.MatchString(path)) {
		return nil
	}
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], m.Seed)
	h.Write(b[:])
	h.Write([]byte(uri))
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
	v := h.Sum64()
	if float64(v>>11)/float64(1<<53) >= m.Rate {
		return nil
	}
	kind := mixKinds[(v&0x7ff)%uint64(len(mixKinds))]
	s.injected[kind]++
	retryAfter := map[string]string{"Retry-After": strconv.Itoa(m.RetryAfter)}
	switch kind {
	case FaultBadGateway:
		return &Fault{Status: http.StatusBadGateway}
	case FaultUnavailable:
		return &Fault{Status: http.StatusServiceUnavailable}
	case FaultHang:
		return &Fault{Delay: m.Hang}
	case FaultSecondaryLimit:
		f := SecondaryLimitFault("", 1, http.StatusForbidden, m.RetryAfter)
		return &f
	default:
		return &Fault{Status: http.StatusTooManyRequests, Header: retryAfter,
			Body: `{"message":"Too many requests","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`}
	}
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
