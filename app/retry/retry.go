// Package retry marks why a unit of work failed, so that whoever runs it
// (the job queue, verdict check) knows what to do next: a transient failure
// (a GitHub 5xx, a timeout, a database hiccup) is tried again after a
// backoff, a rate limit waits as long as it says, and anything unmarked is
// final. Producers of errors (the GitHub client, the evidence source) mark
// them; consumers only ask.
package retry

import (
	"errors"
	"fmt"
	"time"
)

// ErrTransient marks a failure worth retrying later. Wrap it
// (fmt.Errorf("...: %w", ...) or Transient) and the queue retries with
// backoff; any other error is final.
var ErrTransient = errors.New("transient")

// Transient wraps err so that errors.Is(result, ErrTransient) holds. It
// returns nil for a nil err.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &transientError{err: err}
}

type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() []error {
	return []error{e.err, ErrTransient}
}

// RateLimitError is a transient failure that knows when to try again (from
// Retry-After or X-RateLimit-Reset). The queue waits that long instead of its
// usual backoff.
type RateLimitError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limited, retry after %s: %v", e.RetryAfter, e.Err)
}

// Unwrap makes a RateLimitError both ErrTransient and its cause.
func (e *RateLimitError) Unwrap() []error { return []error{e.Err, ErrTransient} }

// IsTransient reports whether err should be retried.
func IsTransient(err error) bool { return errors.Is(err, ErrTransient) }

// After returns the wait a rate-limited error asks for, if any.
func After(err error) (time.Duration, bool) {
	var rl *RateLimitError
	if errors.As(err, &rl) && rl.RetryAfter > 0 {
		return rl.RetryAfter, true
	}
	return 0, false
}
