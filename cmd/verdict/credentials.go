package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
)

// credentialsEvery is how often /readyz's view of the App's credentials
// is refreshed: a key revoked or rotated on GitHub shows within it.
const credentialsEvery = 10 * time.Minute

// credentials proves the App's credentials with GET /app (the JWT alone):
// at start and every credentialsEvery. A refusal (401, 403, 404: a wrong
// App ID or key, a revoked key, a deleted App) makes /readyz fail, so a
// deployment with wrong credentials never becomes ready; GitHub being
// unreachable does not, because serve stores deliveries while it waits.
type credentials struct {
	app   *github.Client
	every time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	refused error // nil: accepted, or not yet known
	checked bool
}

// Ready is nil unless GitHub refused the App's credentials at the last
// answer it gave.
func (c *credentials) Ready() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// run checks now and then every c.every until ctx ends.
func (c *credentials) run(ctx context.Context) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		c.check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (c *credentials) check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, resp, err := c.app.Apps.Get(ctx, "")
	var refused error
	switch {
	case err == nil:
	case resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden ||
		resp.StatusCode == http.StatusNotFound):
		refused = fmt.Errorf("GitHub refused the App's credentials (GET /app: %s): check VERDICT_APP_ID and the private key", resp.Status)
	default:
		if !errors.Is(err, context.Canceled) {
			c.log.Warn("could not check the App's credentials; readiness keeps the last answer", "err", err)
		}
		return
	}
	c.mu.Lock()
	was, first := c.refused, !c.checked
	c.refused, c.checked = refused, true
	c.mu.Unlock()
	switch {
	case refused != nil && (first || was == nil):
		c.log.Error("not ready", "err", refused)
	case refused == nil && (first || was != nil):
		c.log.Info("App credentials accepted")
	}
}
