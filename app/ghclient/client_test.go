package ghclient

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/metrics"
)

func benchFixture() *fixture.Fixture {
	fx := fixture.New("verdict")
	fx.App.InstallationID = 77
	fx.Tree("t").Put("a.txt", "a\n")
	fx.Tree("h").From("t").Put("a.txt", "b\n")
	r := fx.Repo("acme/bench")
	r.Commit("base", "t")
	r.Commit("head", "h")
	r.Branch("main", "base")
	r.Pull(&fixture.Pull{Number: 5, Head: fixture.Ref{Commit: "head"}})
	return fx
}

// sleeps records requested waits and returns at once, so tests take no time.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) total() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Duration
	for _, d := range s.d {
		t += d
	}
	return t
}

func tokenClient(t *testing.T, srv *githubtest.Server, base string, sl *sleeps, mod func(*RetryOptions)) *github.Client {
	t.Helper()
	ro := RetryOptions{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, Sleep: sl.sleep}
	if mod != nil {
		mod(&ro)
	}
	c, err := NewToken(base, "ghs_tok-123", Options{Retry: ro})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRetryIdempotentOn5xx(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := tokenClient(t, srv, srv.URL, sl, nil)
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, Status: 502, Times: 2})
	before := metrics.APICallCount("GET", "/repos/:owner/:repo/pulls/:n", "502")
	pr, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5)
	if err != nil || pr.GetNumber() != 5 {
		t.Fatalf("get: %v", err)
	}
	if n := srv.PathCalls("GET", "/repos/acme/bench/pulls/5"); n != 3 {
		t.Errorf("attempts = %d, want 3", n)
	}
	if len(sl.d) != 2 {
		t.Errorf("sleeps = %v", sl.d)
	}
	if got := metrics.APICallCount("GET", "/repos/:owner/:repo/pulls/:n", "502") - before; got != 2 {
		t.Errorf("502 metric delta = %v", got)
	}
	if metrics.RateLimitRemainingValue("core") <= 0 {
		t.Errorf("rate-limit gauge not set")
	}
}

func TestPostNotRetriedOn5xxButOnRateLimits(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := tokenClient(t, srv, srv.URL, sl, nil)
	ctx := context.Background()
	srv.AddFault(githubtest.Fault{Method: "POST", Path: `/comments$`, Status: 502, Times: 1})
	_, resp, err := c.Issues.CreateComment(ctx, "acme", "bench", 5, &github.IssueComment{Body: github.String("x")})
	if err == nil || resp.StatusCode != 502 || srv.Calls("POST /repos/{owner}/{repo}/issues/{number}/comments") != 1 {
		t.Fatalf("POST on 502 must not be retried: %v", err)
	}
	srv.AddFault(githubtest.SecondaryLimitFault(`/comments$`, 1, 429, 2))
	if _, _, err := c.Issues.CreateComment(ctx, "acme", "bench", 5, &github.IssueComment{Body: github.String("hello")}); err != nil {
		t.Fatalf("POST after secondary limit: %v", err)
	}
	if got := srv.Comments("acme/bench", 5); len(got) != 1 || got[0].Body != "hello" {
		t.Errorf("comments = %+v", got)
	}
	if sl.d[len(sl.d)-1] != 2*time.Second {
		t.Errorf("Retry-After wait = %v, want 2s", sl.d[len(sl.d)-1])
	}
	srv.AddFault(githubtest.Fault{Method: "POST", Path: `/comments$`, Status: 403, Times: 1,
		Body: `{"message":"You have exceeded a secondary rate limit and have been temporarily blocked."}`})
	if _, _, err := c.Issues.CreateComment(ctx, "acme", "bench", 5, &github.IssueComment{Body: github.String("again")}); err != nil {
		t.Fatalf("POST after 403 secondary limit: %v", err)
	}
	if sl.d[len(sl.d)-1] < time.Minute {
		t.Errorf("secondary limit without Retry-After waited %v, want >= 1m", sl.d[len(sl.d)-1])
	}
}

func TestPrimaryRateLimitWaitsUntilReset(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := tokenClient(t, srv, srv.URL, sl, nil)
	srv.AddFault(githubtest.RateLimitFault(`/pulls/5/files`, 1, 10*time.Second))
	if _, _, err := c.PullRequests.ListFiles(context.Background(), "acme", "bench", 5, nil); err != nil {
		t.Fatal(err)
	}
	if w := sl.total(); w < 9*time.Second || w > 12*time.Second {
		t.Errorf("waited %v, want about 10s until reset", w)
	}
}

func TestTotalWaitIsBounded(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := tokenClient(t, srv, srv.URL, sl, func(o *RetryOptions) { o.MaxWait = 30 * time.Second })
	srv.AddFault(githubtest.RateLimitFault(`/pulls/5/files`, 0, time.Hour))
	_, _, err := c.PullRequests.ListFiles(context.Background(), "acme", "bench", 5, nil)
	var rle *github.RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("want RateLimitError once the wait budget is exceeded, got %v", err)
	}
	if len(sl.d) != 0 || srv.PathCalls("GET", "/repos/acme/bench/pulls/5/files") != 1 {
		t.Errorf("should give up without waiting: sleeps=%v", sl.d)
	}
	// Backoff retries stop at MaxRetries.
	srv.ClearFaults()
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, Status: 503})
	c2 := tokenClient(t, srv, srv.URL, sl, func(o *RetryOptions) { o.MaxRetries = 3 })
	if _, _, err := c2.PullRequests.Get(context.Background(), "acme", "bench", 5); err == nil {
		t.Fatal("want an error after retries")
	}
	if n := srv.PathCalls("GET", "/repos/acme/bench/pulls/5"); n != 4 {
		t.Errorf("attempts = %d, want 1 + 3 retries", n)
	}
}

func TestTimeoutAndConnectionErrorsRetried(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := tokenClient(t, srv, srv.URL, sl, func(o *RetryOptions) { o.AttemptTimeout = 50 * time.Millisecond })
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, Status: 200, Delay: time.Second, Times: 1})
	if _, _, err := c.PullRequests.Get(context.Background(), "acme", "bench", 5); err != nil {
		t.Fatalf("after timeout: %v", err)
	}
	fails := 2
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if fails > 0 {
			fails--
			return nil, errors.New("connection reset by peer")
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	c2, _ := NewToken(srv.URL, "", Options{Base: base, Retry: RetryOptions{BaseDelay: time.Millisecond, Sleep: sl.sleep}})
	if _, _, err := c2.Repositories.Get(context.Background(), "acme", "bench"); err != nil {
		t.Fatalf("after connection errors: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestBaseURLForms(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/api/v3", srv.URL + "/api/v3/"} {
		c := tokenClient(t, srv, base, &sleeps{}, nil)
		r, _, err := c.Repositories.Get(context.Background(), "acme", "bench")
		if err != nil || r.GetDefaultBranch() != "main" {
			t.Errorf("base %s: %v", base, err)
		}
	}
	for _, bad := range []string{"ftp://x/", "not a url", "/relative"} {
		if _, err := NewToken(bad, ""); err == nil {
			t.Errorf("base %q accepted", bad)
		}
	}
	// The token is sent.
	srv.AddFault(githubtest.Fault{Path: `/repos/acme/bench$`, Auth: "Bearer ghs_tok-123", Status: 418, Times: 1})
	c := tokenClient(t, srv, srv.URL, &sleeps{}, nil)
	if _, resp, _ := c.Repositories.Get(context.Background(), "acme", "bench"); resp.StatusCode != 418 {
		t.Errorf("token not sent: %d", resp.StatusCode)
	}
}

func TestAppsInstallationClients(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	apps, err := NewApps(srv.URL+"/api/v3", 1, pemKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	app, _, err := apps.App().Apps.Get(ctx, "")
	if err != nil || app.GetSlug() != "verdict" {
		t.Fatalf("app: %v %v", app, err)
	}
	c1, _ := apps.Installation(77)
	c2, _ := apps.Installation(77)
	if c1 != c2 {
		t.Error("installation client not cached")
	}
	for i := 0; i < 3; i++ {
		if _, _, err := c1.PullRequests.Get(ctx, "acme", "bench", 5); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.TokensIssued(); n != 1 {
		t.Errorf("tokens minted = %d, want 1 (cached)", n)
	}
	if _, err := NewApps(srv.URL, 1, []byte("not a key")); err == nil || !strings.Contains(err.Error(), "private key") {
		t.Errorf("bad key: %v", err)
	}
	if _, err := apps.Installation(0); err == nil {
		t.Error("installation 0 accepted")
	}
}

func TestEndpoint(t *testing.T) {
	tests := map[string]string{
		"/repos/o/r/pulls/12":                                                    "/repos/:owner/:repo/pulls/:n",
		"/api/v3/repos/o/r/pulls/12/files":                                       "/repos/:owner/:repo/pulls/:n/files",
		"/repos/o/r/contents/a/b/c.yaml":                                         "/repos/:owner/:repo/contents/:path",
		"/repos/o/r/branches/feature/x":                                          "/repos/:owner/:repo/branches/:branch",
		"/repos/o/r/commits/0123456789abcdef0123456789abcdef01234567/check-runs": "/repos/:owner/:repo/commits/:sha/check-runs",
		"/repos/o/r/commits/main/statuses":                                       "/repos/:owner/:repo/commits/:ref/statuses",
		"/repos/o/r/statuses/0123456789abcdef0123456789abcdef01234567":           "/repos/:owner/:repo/statuses/:sha",
		"/repos/o/r/collaborators/alice/permission":                              "/repos/:owner/:repo/collaborators/:login/permission",
		"/orgs/acme/teams/core/memberships/alice":                                "/orgs/:org/teams/:slug/memberships/:login",
		"/repos/o/r/actions/workflows/run-sweep.yml/runs":                        "/repos/:owner/:repo/actions/workflows/:workflow/runs",
		"/repos/o/r/issues/comments/9/reactions/10":                              "/repos/:owner/:repo/issues/comments/:n/reactions/:n",
		"/app/installations/5/access_tokens":                                     "/app/installations/:n/access_tokens",
		"/repos/o/r":                                                             "/repos/:owner/:repo",
	}
	for in, want := range tests {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestExhaustedBudgetWaitsInsteadOfFailingLocally(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	sl := &sleeps{}
	c := tokenClient(t, srv, srv.URL, sl, nil)
	reset := time.Now().Add(5 * time.Second).Unix()
	srv.AddFault(githubtest.Fault{Path: `/repos/acme/bench$`, Status: 200, Times: 1, Body: `{"full_name":"acme/bench"}`,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": fmt.Sprint(reset)}})
	ctx := context.Background()
	if _, _, err := c.Repositories.Get(ctx, "acme", "bench"); err != nil {
		t.Fatal(err)
	}
	// go-github would refuse this locally if it had seen Remaining: 0.
	if _, _, err := c.PullRequests.Get(ctx, "acme", "bench", 5); err != nil {
		t.Fatalf("after an exhausted budget: %v", err)
	}
	if w := sl.total(); w < 4*time.Second || w > 7*time.Second {
		t.Errorf("waited %v before the next request, want about 5s", w)
	}
	if metrics.RateLimitRemainingValue("core") < 0 {
		t.Error("gauge")
	}
}
