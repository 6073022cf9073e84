package githubtest

import (
	"encoding/binary"
	"hash/fnv"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Faults: how the fake fails like GitHub (and the proxies in front of it)
// when a test asks it to: explicit faults, a seeded mix, latency.

// Fault makes matching requests fail.
type Fault struct {
	// Method matches the HTTP method; "" matches any.
	Method string
	// Path is a regular expression searched in the request path (without
	// the /api/v3 prefix), e.g. `/pulls/1/files$`. "" matches any.
	Path string
	// Auth filters by the Authorization header: "" any, "none" only
	// requests without one, otherwise a substring it must contain.
	Auth string
	// Status is the response status; Header and Body are sent with it.
	// The body defaults to a GitHub-style {"message": ...}.
	Status int
	Header map[string]string
	Body   string
	// Times is how many matching requests fail; 0 means every one.
	Times int
	// Delay stalls the matching request before answering (for timeouts).
	// With Status 0 the request is then answered normally: a slow GitHub.
	Delay time.Duration
	// StallBody sends the real answer's status, headers and first half of
	// its body, then stalls this long before the rest: a connection that
	// stops moving mid-response.
	StallBody time.Duration

	re   *regexp.Regexp
	used int
}

// SetLatency delays every later request by d (honouring cancellation).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// AddFault installs a fault; the first matching fault with uses left wins.
func (s *Server) AddFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ff := f
	if ff.Path != "" {
		ff.re = regexp.MustCompile(ff.Path)
	}
	s.faults = append(s.faults, &ff)
}

// ClearFaults removes all faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// RateLimitFault returns a fault that answers like GitHub's primary rate
// limit (403, X-RateLimit-Remaining: 0, reset after resetIn by the wall
// clock) for times requests. GitHub may answer a primary limit with 429
// too: set Status.
func RateLimitFault(path string, times int, resetIn time.Duration) Fault {
	return Fault{Path: path, Times: times, Status: http.StatusForbidden,
		Header: map[string]string{
			"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
			"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(resetIn).Unix(), 10), "X-RateLimit-Resource": "core",
		},
		Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`}
}

// SecondaryLimitFault returns a fault that answers like GitHub's secondary
// rate limit (status 403 or 429, with Retry-After seconds, or without the
// header when retryAfterSeconds is negative) for times requests.
func SecondaryLimitFault(path string, times, status int, retryAfterSeconds int) Fault {
	f := Fault{Path: path, Times: times, Status: status, Header: map[string]string{},
		Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
	if retryAfterSeconds >= 0 {
		f.Header["Retry-After"] = strconv.Itoa(retryAfterSeconds)
	}
	return f
}

func (s *Server) matchFault(r *http.Request, p string) *Fault {
	auth := r.Header.Get("Authorization")
	for _, f := range s.faults {
		if f.Times > 0 && f.used >= f.Times {
			continue
		}
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if f.re != nil && !f.re.MatchString(p) {
			continue
		}
		switch {
		case f.Auth == "":
		case f.Auth == "none":
			if auth != "" {
				continue
			}
		case !strings.Contains(auth, f.Auth):
			continue
		}
		f.used++
		return f
	}
	return nil
}

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
