package reuse

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/jobs"
)

// apiError wraps a GitHub API failure with what was being done and marks it
// for the queue: rate limits wait as long as GitHub asks, server errors and
// network failures are retried, anything else (a 403 for a missing
// permission, a 422) is final.
func apiError(what string, err error) error {
	err = fmt.Errorf("%s: %w", what, err)
	var rle *github.RateLimitError
	if errors.As(err, &rle) {
		return &jobs.RateLimitError{RetryAfter: time.Until(rle.Rate.Reset.Time), Err: err}
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		return &jobs.RateLimitError{RetryAfter: abuse.GetRetryAfter(), Err: err}
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		if er.Response != nil && (er.Response.StatusCode >= 500 || er.Response.StatusCode == http.StatusTooManyRequests) {
			return jobs.Transient(err)
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return jobs.Transient(err)
	}
	return err
}

// notFound reports whether a GitHub call answered 404 (a deleted comment,
// for example).
func notFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// retryable marks an evidence error from the Source for retry: after a rate
// limit's reset when GitHub named one, else with the queue's backoff.
func retryable(err error) error {
	if jobs.IsTransient(err) {
		return err
	}
	var rle *github.RateLimitError
	if errors.As(err, &rle) {
		return &jobs.RateLimitError{RetryAfter: time.Until(rle.Rate.Reset.Time), Err: err}
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		return &jobs.RateLimitError{RetryAfter: abuse.GetRetryAfter(), Err: err}
	}
	return jobs.Transient(err)
}
