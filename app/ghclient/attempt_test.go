package ghclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/retry"
)

// TestStalledAttemptsRetried: a response whose headers do not come, or whose
// body stops moving, is abandoned after the attempt's timeout and retried;
// the caller sees the answer of the retry, not the stall.
func TestStalledAttemptsRetried(t *testing.T) {
	tests := []struct {
		name  string
		fault githubtest.Fault
	}{
		{"no headers", githubtest.Fault{Path: `/pulls/5$`, Delay: 5 * time.Second, Times: 1}},
		{"body stalls", githubtest.Fault{Path: `/pulls/5$`, StallBody: 5 * time.Second, Times: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New(t, benchFixture())
			c := tokenClient(t, srv, srv.URL, &sleeps{}, func(o *RetryOptions) { o.AttemptTimeout = 300 * time.Millisecond })
			srv.AddFault(tc.fault)
			start := time.Now()
			pr, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5)
			if err != nil || pr.GetNumber() != 5 {
				t.Fatalf("got %v, %v; want the PR from the retry", pr, err)
			}
			if n := srv.PathCalls("GET", "/repos/acme/bench/pulls/5"); n != 2 {
				t.Errorf("attempts = %d, want 2", n)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("took %v: the stall was waited out", d)
			}
		})
	}
}

// TestStallThatOutlastsRetriesIsATimeout: once retries are spent the error
// says what stalled and every classifier sees a transient timeout.
func TestStallThatOutlastsRetriesIsATimeout(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	c := tokenClient(t, srv, srv.URL, &sleeps{}, func(o *RetryOptions) {
		o.AttemptTimeout, o.MaxRetries = 50*time.Millisecond, 1
	})
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, Delay: 5 * time.Second})
	_, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5)
	var te *TimeoutError
	var ne net.Error
	if !errors.As(err, &te) || !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (%T); want a TimeoutError", err, err)
	}
	if !retry.IsTransient(Classify(err)) {
		t.Errorf("Classify(%v) is not transient", err)
	}
}

// TestLargeBodiesStream: a body over BufferLimit is handed on as it arrives
// (artifact archives), and the idle timeout still guards it.
func TestLargeBodiesStream(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	c := tokenClient(t, srv, srv.URL, &sleeps{}, func(o *RetryOptions) {
		o.AttemptTimeout, o.BufferLimit, o.MaxRetries = 100*time.Millisecond, 16, -1
	})
	if _, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5); err != nil {
		t.Fatalf("streamed body: %v", err)
	}
	// A fresh client, so the read is not conditional: a 304 has no body
	// to stall in.
	c = tokenClient(t, srv, srv.URL, &sleeps{}, func(o *RetryOptions) {
		o.AttemptTimeout, o.BufferLimit, o.MaxRetries = 100*time.Millisecond, 16, -1
	})
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, StallBody: 5 * time.Second, Times: 1})
	_, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != "response body" {
		t.Fatalf("err = %v; want a body TimeoutError", err)
	}
}

// TestRepeatableWritesRetried: a write marked Repeatable is retried on a
// server error; an unmarked create is not (GitHub may have done it).
func TestRepeatableWritesRetried(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	c := tokenClient(t, srv, srv.URL, &sleeps{}, nil)
	sha := srv.Fixture().SHA("acme/bench", "head")
	status := &github.RepoStatus{State: github.String("success"), Context: github.String("ctx")}
	srv.AddFault(githubtest.Fault{Method: "POST", Path: `/statuses/`, Status: http.StatusBadGateway, Times: 1})
	if _, _, err := c.Repositories.CreateStatus(context.Background(), "acme", "bench", sha, status); err == nil {
		t.Fatal("unmarked POST was retried")
	}
	srv.AddFault(githubtest.Fault{Method: "POST", Path: `/statuses/`, Status: http.StatusBadGateway, Times: 1})
	if _, _, err := c.Repositories.CreateStatus(Repeatable(context.Background()), "acme", "bench", sha, status); err != nil {
		t.Fatalf("repeatable POST: %v", err)
	}
	if n := len(srv.Statuses("acme/bench", sha)); n != 1 {
		t.Errorf("statuses = %d, want 1", n)
	}
}
