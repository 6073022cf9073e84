package hookshot_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// received is one POST the test's webhook got.
type received struct {
	event, guid, sig string
	body             []byte
}

// The App's delivery log: deliveries are signed POSTs to the webhook,
// each attempt is logged with GitHub's outcome, the log is listed newest
// first by cursor, and a redelivery POSTs the same payload under the same
// GUID.
func TestHookDeliveries(t *testing.T) {
	fx, err := fixture.Load("../../../testdata/fixtures/sample-e2e-agentic")
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(t, fx)
	secret := []byte("hook-secret")
	var mu sync.Mutex
	var got []received
	answer := http.StatusServiceUnavailable
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery"), r.Header.Get("X-Hub-Signature-256"), b})
		code := answer
		mu.Unlock()
		w.WriteHeader(code)
	}))
	defer hook.Close()

	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	gh.Webhook().Configure(deadURL+"/webhook", secret)
	down := gh.Webhook().Deliver("pull_request", gh.PullRequestEvent("opened", "SemiAnalysisAI/InferenceX", 3412, "amd-dev-x"))
	if down.Status == "OK" || down.StatusCode < 400 {
		t.Fatalf("delivery to a closed port: %+v", down)
	}
	gh.Webhook().Configure(hook.URL+"/webhook", secret)
	refused := gh.Webhook().Deliver("pull_request", gh.PullRequestEvent("reopened", "SemiAnalysisAI/InferenceX", 3412, "amd-dev-x"))
	if refused.Status != "Invalid HTTP Response: 503" || refused.StatusCode != 503 {
		t.Fatalf("delivery answered 503: %+v", refused)
	}
	mu.Lock()
	answer = http.StatusAccepted
	mu.Unlock()
	ok := gh.Webhook().Deliver("pull_request", gh.PullRequestEvent("ready_for_review", "SemiAnalysisAI/InferenceX", 3412, "amd-dev-x"))
	if ok.Status != "OK" || ok.StatusCode != 202 || ok.GUID == down.GUID || ok.GUID == refused.GUID {
		t.Fatalf("accepted delivery: %+v", ok)
	}

	app := github.NewClient(nil).WithAuthToken(gh.AppJWT())
	u, _ := url.Parse(gh.BaseURL())
	app.BaseURL = u
	ctx := context.Background()
	var all []*github.HookDelivery
	opts := &github.ListCursorOptions{PerPage: 2}
	for pages := 0; ; pages++ {
		ds, resp, err := app.Apps.ListHookDeliveries(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ds...)
		if resp.Cursor == "" {
			if pages != 1 {
				t.Errorf("3 deliveries 2 a page came in %d pages", pages+1)
			}
			break
		}
		opts.Cursor = resp.Cursor
	}
	if len(all) != 3 || all[0].GetGUID() != ok.GUID || all[2].GetGUID() != down.GUID {
		t.Fatalf("log not newest first: %v", all)
	}
	if all[1].GetStatusCode() != 503 || all[1].GetEvent() != "pull_request" || all[1].GetAction() != "reopened" || all[1].GetRedelivery() {
		t.Errorf("logged attempt: %v", all[1])
	}

	// Redelivering the refused one POSTs its payload again, same GUID.
	if _, _, err := app.Apps.RedeliverHookDelivery(ctx, all[1].GetID()); !isAccepted(err) {
		t.Fatalf("redelivery: %v", err)
	}
	mu.Lock()
	last, first := got[len(got)-1], got[0]
	mu.Unlock()
	if last.guid != refused.GUID || string(last.body) != string(first.body) || last.event != "pull_request" {
		t.Errorf("redelivery posted %s %q, want %s and the original body", last.event, last.guid, refused.GUID)
	}
	m := hmac.New(sha256.New, secret)
	m.Write(last.body)
	if last.sig != "sha256="+hex.EncodeToString(m.Sum(nil)) {
		t.Errorf("redelivery signature %q does not verify", last.sig)
	}
	log := gh.Webhook().Attempts()
	if n := len(log); n != 4 || !log[3].Redelivery || log[3].GUID != refused.GUID || log[3].Status != "OK" {
		t.Errorf("log after redelivery: %+v", log)
	}

	// Only the App's JWT reads the log.
	inst := gh.Client()
	if _, _, err := inst.Apps.ListHookDeliveries(ctx, nil); err == nil {
		t.Error("an installation token listed the App's deliveries")
	}
}

func isAccepted(err error) bool {
	var a *github.AcceptedError
	return errors.As(err, &a)
}
