package ghclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/jobs"
)

// Classify marks a GitHub API failure for the job queue: rate limits wait as
// long as GitHub asks, server errors and network failures are retried with
// backoff, anything else (a 403 for a missing permission, a 422) is final.
// It returns err itself, wrapped, so errors.Is/As still see the cause.
func Classify(err error) error {
	if err == nil || jobs.IsTransient(err) {
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

// IsNotFound reports whether a GitHub call answered 404.
func IsNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}
