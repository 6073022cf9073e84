package ghclient

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecondaryLimitWait is what GitHub asks for after a secondary rate limit
// that carries no Retry-After: "wait at least one minute".
const SecondaryLimitWait = time.Minute

// rateLimit says whether a 403 or 429 answer is one of GitHub's rate limits
// and how long to wait before the next request. The rules are GitHub's:
//   - Retry-After (seconds) is honoured first, whatever the status;
//   - X-RateLimit-Remaining: 0 is the primary limit, lifted at
//     X-RateLimit-Reset (epoch seconds);
//   - any other 429, and a 403 whose message names the secondary limit, is
//     a secondary limit: wait at least a minute.
//
// secondaryMessage reports whether the body's message names the secondary
// limit; it is only consulted for a 403 with neither header, so callers can
// avoid reading the body otherwise. kind is "primary" or "secondary".
func rateLimit(status int, h http.Header, now time.Time, secondaryMessage func() bool) (wait time.Duration, kind string, ok bool) {
	if status != http.StatusForbidden && status != http.StatusTooManyRequests {
		return 0, "", false
	}
	if ra := strings.TrimSpace(h.Get("Retry-After")); ra != "" {
		if secs, err := strconv.Atoi(ra); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, "secondary", true
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			// One second of slack: the reset is a whole second and clocks drift.
			return max(time.Unix(reset, 0).Sub(now)+time.Second, time.Second), "primary", true
		}
		return SecondaryLimitWait, "primary", true
	}
	if status == http.StatusTooManyRequests || secondaryMessage() {
		return SecondaryLimitWait, "secondary", true
	}
	return 0, "", false
}

func mentionsSecondaryLimit(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "secondary rate limit")
}
