package reuse

import (
	"fmt"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/retry"
)

// apiError wraps a GitHub API failure with what was being done and marks it
// for the queue: rate limits wait as long as GitHub asks, server errors and
// network failures are retried, anything else (a 403 for a missing
// permission, a 422) is final.
func apiError(what string, err error) error {
	return ghclient.Classify(fmt.Errorf("%s: %w", what, err))
}

// notFound reports whether a GitHub call answered 404 (a deleted comment,
// for example).
func notFound(err error) bool { return ghclient.IsNotFound(err) }

// retryable marks an evidence error from the Source for retry: after a rate
// limit's reset when GitHub named one, else with the queue's backoff.
func retryable(err error) error {
	if c := ghclient.Classify(err); retry.IsTransient(c) {
		return c
	}
	return retry.Transient(err)
}
