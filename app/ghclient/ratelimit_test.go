package ghclient

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/retry"
)

// fakeNow is the injected clock of these tests: waits are computed from it
// and taken by sleeps, so no test sleeps for real.
var fakeNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func clockClient(t *testing.T, srv *githubtest.Server, sl *sleeps, maxWait time.Duration) *github.Client {
	t.Helper()
	return tokenClient(t, srv, srv.URL, sl, func(o *RetryOptions) {
		o.Now = func() time.Time { return fakeNow }
		o.MaxWait = maxWait
	})
}

func TestPrimaryLimitAs429WaitsForReset(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := clockClient(t, srv, sl, 0)
	f := githubtest.RateLimitFault(`/pulls/5$`, 1, 0)
	f.Status = http.StatusTooManyRequests
	f.Header["X-RateLimit-Reset"] = strconv.FormatInt(fakeNow.Add(40*time.Second).Unix(), 10)
	srv.AddFault(f)
	if _, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5); err != nil {
		t.Fatal(err)
	}
	if len(sl.d) != 1 || sl.d[0] != 41*time.Second {
		t.Errorf("waits = %v, want one of 41s (reset + 1s slack)", sl.d)
	}
	if n := srv.PathCalls("GET", "/repos/acme/bench/pulls/5"); n != 2 {
		t.Errorf("attempts = %d, want 2", n)
	}
}

func TestSecondaryLimitWithoutRetryAfterWaitsAMinute(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusForbidden} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := githubtest.New(t, benchFixture())
			sl := &sleeps{}
			c := clockClient(t, srv, sl, 0)
			srv.AddFault(githubtest.SecondaryLimitFault(`/pulls/5$`, 2, status, -1))
			if _, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5); err != nil {
				t.Fatal(err)
			}
			if len(sl.d) != 2 {
				t.Fatalf("waits = %v, want 2", sl.d)
			}
			for _, d := range sl.d {
				if d < time.Minute {
					t.Errorf("waited %v after a secondary limit without Retry-After, want >= 1m", d)
				}
			}
		})
	}
}

func TestSecondaryLimitHonoursRetryAfter(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := clockClient(t, srv, sl, 0)
	srv.AddFault(githubtest.SecondaryLimitFault(`/pulls/5$`, 1, http.StatusTooManyRequests, 7))
	if _, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5); err != nil {
		t.Fatal(err)
	}
	if len(sl.d) != 1 || sl.d[0] != 7*time.Second {
		t.Errorf("waits = %v, want [7s]", sl.d)
	}
}

// Past the transport's wait budget the job queue waits instead: Classify
// must hand it the same wait GitHub asked for.
func TestClassifyRateLimits(t *testing.T) {
	reset := fakeNow.Add(10 * time.Minute)
	primary := func(status int) githubtest.Fault {
		f := githubtest.RateLimitFault(`/pulls/5$`, 0, 0)
		f.Status = status
		f.Header["X-RateLimit-Reset"] = strconv.FormatInt(reset.Unix(), 10)
		return f
	}
	tests := []struct {
		name  string
		fault githubtest.Fault
		want  time.Duration
	}{
		{"primary 403", primary(http.StatusForbidden), 10*time.Minute + time.Second},
		{"primary 429", primary(http.StatusTooManyRequests), 10*time.Minute + time.Second},
		{"secondary 429 without Retry-After", githubtest.SecondaryLimitFault(`/pulls/5$`, 0, http.StatusTooManyRequests, -1), time.Minute},
		{"secondary 403 with Retry-After", githubtest.SecondaryLimitFault(`/pulls/5$`, 0, http.StatusForbidden, 90), 90 * time.Second},
		{"secondary 403 named only in the message", githubtest.Fault{Path: `/pulls/5$`, Status: http.StatusForbidden,
			Body: `{"message":"You have exceeded a secondary rate limit and have been temporarily blocked."}`}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubtest.New(t, benchFixture())
			sl := &sleeps{}
			// A budget too small for any of these waits: the error comes back.
			c := clockClient(t, srv, sl, time.Second)
			srv.AddFault(tt.fault)
			_, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5)
			if err == nil {
				t.Fatal("want the rate-limit error once the wait budget is exceeded")
			}
			got := classify(err, fakeNow)
			var rl *retry.RateLimitError
			if !errors.As(got, &rl) || !retry.IsTransient(got) {
				t.Fatalf("classify = %v, want a RateLimitError", got)
			}
			if rl.RetryAfter != tt.want {
				t.Errorf("RetryAfter = %v, want %v", rl.RetryAfter, tt.want)
			}
		})
	}
}

func TestClassifyOrdinaryFailures(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	c := clockClient(t, srv, &sleeps{}, time.Second)
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, Status: http.StatusForbidden, Times: 1,
		Body: `{"message":"Resource not accessible by integration"}`})
	_, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5)
	if err == nil || retry.IsTransient(classify(err, fakeNow)) {
		t.Errorf("a permission 403 must be final: %v", err)
	}
}
