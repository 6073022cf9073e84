package recovery_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/hookshot"
	"github.com/verdict-bot/verdict/app/recovery"
)

const repo = "acme/bench"

// memLog is Verdict's delivery log: the GUIDs the test webhook accepted
// (and any the test says were stored).
type memLog struct {
	mu    sync.Mutex
	known map[string]bool
}

func (l *memLog) KnownDelivery(_ context.Context, guid string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.known[guid], nil
}

func (l *memLog) store(guid string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.known[guid] = true
}

type env struct {
	gh   *githubtest.Server
	log  *memLog
	up   *httptest.Server // the webhook, storing what it accepts
	down string           // a closed port
	r    *recovery.Recoverer
}

func newEnv(t *testing.T) *env {
	e := &env{gh: githubtest.New(t, nil), log: &memLog{known: map[string]bool{}}}
	e.up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.log.store(r.Header.Get("X-GitHub-Delivery"))
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(e.up.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	e.down = closed.URL
	closed.Close()
	app := github.NewClient(nil).WithAuthToken(e.gh.AppJWT())
	u, _ := url.Parse(e.gh.BaseURL())
	app.BaseURL = u
	wanted := func(event, action string) bool { return event != "check_run" || action == "rerequested" }
	e.r = &recovery.Recoverer{GitHub: ghapi.NewAppHooks(app), Log: e.log, Wanted: wanted}
	return e
}

// missed delivers event while the webhook is down.
func (e *env) missed(event, action string) hookshot.Attempt {
	e.gh.Webhook().Configure(e.down, []byte("s"))
	return e.gh.Webhook().Deliver(event, map[string]any{"action": action, "repository": map[string]any{"id": 1, "full_name": repo}})
}

func (e *env) redeliveries() map[string]int {
	out := map[string]int{}
	for _, a := range e.gh.Webhook().Attempts() {
		if a.Redelivery {
			out[a.GUID]++
		}
	}
	return out
}

func TestPass(t *testing.T) {
	e := newEnv(t)
	lost := e.missed("issue_comment", "created")
	stored := e.missed("pull_request_review", "submitted")
	e.log.store(stored.GUID) // answered too late, but stored
	noise := e.missed("check_run", "completed")
	e.gh.Webhook().Configure(e.up.URL, []byte("s"))
	fine := e.gh.Webhook().Deliver("issue_comment", map[string]any{"action": "edited"})

	ctx := context.Background()
	p, err := e.r.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := recovery.Pass{Listed: 4, Failed: 3, Known: 1, Redelivered: 1, Skipped: 1}
	if p != want {
		t.Errorf("pass = %+v, want %+v", p, want)
	}
	if got := e.redeliveries(); len(got) != 1 || got[lost.GUID] != 1 {
		t.Errorf("redeliveries = %v, want one of %s (not %s, %s, %s)", got, lost.GUID, stored.GUID, noise.GUID, fine.GUID)
	}
	if !e.log.known[lost.GUID] {
		t.Error("the redelivery did not reach the webhook")
	}
	// Recovered now: a second pass asks for nothing.
	if p, err := e.r.Pass(ctx); err != nil || p.Redelivered != 0 {
		t.Errorf("second pass: %+v, %v", p, err)
	}
}

// A delivery the webhook keeps refusing is redelivered a bounded number of
// times; a pass asks for at most MaxPerPass; the window bounds the look-back.
func TestPassBounds(t *testing.T) {
	e := newEnv(t)
	refused := e.missed("issue_comment", "created")
	ctx := context.Background()
	for i := range recovery.DefaultMaxRedeliveries + 2 {
		p, err := e.r.Pass(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantRedelivered := 1
		if i >= recovery.DefaultMaxRedeliveries {
			wantRedelivered = 0
		}
		if p.Redelivered != wantRedelivered {
			t.Errorf("pass %d: %+v", i, p)
		}
	}
	if n := e.redeliveries()[refused.GUID]; n != recovery.DefaultMaxRedeliveries {
		t.Errorf("redelivered %d times, want %d", n, recovery.DefaultMaxRedeliveries)
	}

	// 130 more lost deliveries: two pages by cursor, 50 asked for per pass.
	for range 130 {
		e.missed("pull_request", "synchronize")
	}
	e.r.MaxPerPass = 50
	p, err := e.r.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.Listed < 130 || p.Redelivered != 50 || p.Failed != 131 {
		t.Errorf("bounded pass: %+v", p)
	}

	// Past the window nothing is looked at.
	e.r.Now = func() time.Time { return time.Now().Add(80 * time.Hour) }
	if p, err := e.r.Pass(ctx); err != nil || p.Failed != 0 || p.Redelivered != 0 {
		t.Errorf("pass beyond the window: %+v, %v", p, err)
	}
}

// GitHub failing the listing is an error; nothing is redelivered.
func TestPassListingFails(t *testing.T) {
	e := newEnv(t)
	e.missed("issue_comment", "created")
	e.gh.AddFault(githubtest.Fault{Path: `^/app/hook/deliveries$`, Status: http.StatusBadGateway})
	if _, err := e.r.Pass(context.Background()); err == nil {
		t.Fatal("a failed listing passed")
	}
	if len(e.redeliveries()) != 0 {
		t.Error("redelivered after a failed listing")
	}
}

// TestRedeliveryRequestRetried: one 5xx on the redelivery request is
// retried with backoff, not left for the next pass minutes later.
func TestRedeliveryRequestRetried(t *testing.T) {
	e := newEnv(t)
	lost := e.missed("issue_comment", "created")
	e.gh.Webhook().Configure(e.up.URL, []byte("s"))
	e.gh.AddFault(githubtest.Fault{Method: http.MethodPost, Path: `/attempts$`, Status: http.StatusBadGateway, Times: 1})
	tr := ghclient.NewTransport(nil, ghclient.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	app := github.NewClient(&http.Client{Transport: tr}).WithAuthToken(e.gh.AppJWT())
	u, _ := url.Parse(e.gh.BaseURL())
	app.BaseURL = u
	e.r.GitHub = ghapi.NewAppHooks(app)
	p, err := e.r.Pass(context.Background())
	if err != nil || p.Redelivered != 1 {
		t.Fatalf("pass = %+v, %v; want the delivery redelivered in this pass", p, err)
	}
	if got := e.redeliveries(); got[lost.GUID] != 1 {
		t.Errorf("redeliveries = %v", got)
	}
}
