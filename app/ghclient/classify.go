package ghclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/retry"
)

// Classify marks a GitHub API failure for the job queue: rate limits wait as
// long as GitHub asks, server errors and network failures are retried with
// backoff, anything else (a 403 for a missing permission, a 422) is final.
// It returns err itself, wrapped, so errors.Is/As still see the cause.
func Classify(err error) error { return classify(err, time.Now()) }

func classify(err error, now time.Time) error {
	if err == nil || retry.IsTransient(err) {
		return err
	}
	var rle *github.RateLimitError
	if errors.As(err, &rle) {
		return &retry.RateLimitError{RetryAfter: max(rle.Rate.Reset.Time.Sub(now)+time.Second, time.Second), Err: err}
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		wait := SecondaryLimitWait
		if abuse.RetryAfter != nil && abuse.Response != nil && abuse.Response.Header.Get("Retry-After") != "" {
			wait = *abuse.RetryAfter
		}
		return &retry.RateLimitError{RetryAfter: max(wait, time.Second), Err: err}
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		// go-github only recognises 403 rate limits; GitHub also answers 429
		// for both kinds, and a 403 secondary limit may lack the
		// documentation URL go-github looks for.
		status := er.Response.StatusCode
		if wait, _, ok := rateLimit(status, er.Response.Header, now, func() bool { return mentionsSecondaryLimit(er.Message) }); ok {
			return &retry.RateLimitError{RetryAfter: max(wait, time.Second), Err: err}
		}
		if status >= 500 {
			return retry.Transient(err)
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return retry.Transient(err)
	}
	return err
}

// IsNotFound reports whether a GitHub call answered 404.
func IsNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}
