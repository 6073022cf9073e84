package ghsource

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/retry"
)

// A read either answers, finds its evidence absent (404, 410: a row may say
// so), is refused for good (a missing permission, a malformed or oversized
// answer: a row may say so too), or fails for now: a server error, a
// timeout, a broken connection, a rate limit, a cancelled verification.
// The last kind must never become a row, because repeating the read could
// change the verdict. Such errors are marked retry.ErrTransient and the
// Source remembers the first one, so the verification can be abandoned and
// retried whatever a check made of the error it was handed.

// transient returns err marked as transient when it is. resp is the answer
// (nil when none arrived); its headers matter for answers go-github did not
// decode, such as the archive redirect and the storage download.
func transient(resp *http.Response, err error) error {
	if err == nil || retry.IsTransient(err) {
		return err
	}
	if c := ghclient.Classify(err); retry.IsTransient(c) {
		return c
	}
	status := 0
	limited := false
	if resp != nil {
		status = resp.StatusCode
		limited = (status == http.StatusForbidden || status == http.StatusTooManyRequests) &&
			(resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0")
	}
	var ne net.Error
	switch {
	case status >= 500, status == http.StatusTooManyRequests, limited,
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &ne):
		return retry.Transient(err)
	}
	return err
}

// noteTransient remembers the first transient failure a read met.
func (s *Source) noteTransient(err error) {
	if !retry.IsTransient(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil {
		s.failed = err
	}
}

// Transient returns the first transient failure of any read made through
// this Source (nil if none). A verification that sees one must not publish
// what its checks made of it: the job is retried instead.
func (s *Source) Transient() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
