package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/contract"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/webhook"
)

const (
	e2eRepo   = "SemiAnalysisAI/InferenceX"
	e2ePR     = 3412
	e2eSecret = "e2e-secret"
	marker    = "<!-- codeowner-signoff-verify signoff="
)

// app is a running verdict serve against the fake GitHub.
type app struct {
	t    *testing.T
	gh   *githubtest.Server
	base string
	head string
	db   string // the database URL serve runs on
	n    int
	// start runs serve (again); stop stops the running one.
	start, stop func()
}

// startApp runs the real App (real wiring, real River queue on SQLite, real
// ghinstallation auth) against the fake GitHub serving the shipped sample.
func startApp(t *testing.T) *app { return startAppWith(t, nil) }

// startAppWith is startApp on the sample fixture after mutate (if any) has
// changed it.
func startAppWith(t *testing.T, mutate func(*fixture.Fixture)) *app {
	t.Helper()
	return startAppSettings(t, mutate, nil)
}

// startAppSettings is startAppWith with more settings (environment names
// to values; VERDICT_LISTEN picks the address).
func startAppSettings(t *testing.T, mutate func(*fixture.Fixture), settings map[string]string) *app {
	t.Helper()
	fx, err := fixture.Load(fixtureDir("sample-e2e-agentic"))
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(fx)
	}
	gh := githubtest.New(t, fx)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	env := map[string]string{
		"VERDICT_APP_ID":         fmt.Sprint(fx.App.ID),
		"VERDICT_WEBHOOK_SECRET": e2eSecret,
		"VERDICT_PRIVATE_KEY":    string(pemKey),
		"VERDICT_GITHUB_URL":     gh.BaseURL(),
		"VERDICT_LISTEN":         "127.0.0.1:0",
		// Off unless a test asks: recovery is TestFlowMissedWebhook's.
		"VERDICT_REDELIVER_INTERVAL": "0",
	}
	for k, v := range settings {
		env[k] = v
	}
	db := "sqlite://" + filepath.Join(t.TempDir(), "v.db")
	cfg, err := config.LoadServer([]string{"-database-url", db},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Published pages come from the fixture: no test leaves the machine.
	wire := appWiring(gh.PageTransport())
	a := &app{t: t, gh: gh, head: fx.SHA(e2eRepo, "head"), db: db}
	a.start = func() {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		ready, done := make(chan string, 1), make(chan error, 1)
		go func() { done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), wire, ready) }()
		select {
		case addr := <-ready:
			a.base = "http://" + addr
		case err := <-done:
			cancel()
			t.Fatalf("serve exited: %v", err)
		}
		var once sync.Once
		a.stop = func() {
			once.Do(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("serve: %v", err)
				}
			})
		}
		t.Cleanup(a.stop)
	}
	a.start()
	return a
}

// restart stops serve (letting running jobs finish) and starts it again on
// the same database and GitHub.
func (a *app) restart() {
	a.t.Helper()
	a.stop()
	a.start()
}

// deliver posts a signed webhook and returns the status code.
func (a *app) deliver(event, delivery string, payload any, secret string) int {
	a.t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		a.t.Fatal(err)
	}
	contract.Webhook(a.t, event, body)
	req, _ := http.NewRequest(http.MethodPost, a.base+"/webhook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(secret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// reviewEvent is a pull_request_review delivery for the sample PR, as the
// fake GitHub builds it (every field GitHub sends).
func (a *app) reviewEvent(action string, id int64, body, sender string) map[string]any {
	return a.gh.PullRequestReviewEvent(action, e2eRepo, e2ePR, githubtest.EventReview{ID: id, Body: body, User: sender}, sender)
}

// commentEvent is an issue_comment delivery for a comment by sender.
func (a *app) commentEvent(action string, id int64, body, sender, senderType string) map[string]any {
	return a.gh.IssueCommentEvent(action, e2eRepo, e2ePR, githubtest.EventComment{ID: id, Body: body, User: sender, UserType: senderType,
		Association: "MEMBER", UpdatedAt: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}, sender, senderType)
}

// verdicts returns the bot's verdict comments, keyed by sign-off key.
func (a *app) verdicts() map[string]fixture.Comment {
	out := map[string]fixture.Comment{}
	for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
		if strings.HasSuffix(c.User, "[bot]") && strings.HasPrefix(c.Body, marker) {
			key, _, _ := strings.Cut(strings.TrimPrefix(c.Body, marker), " ")
			out[key] = c
		}
	}
	return out
}

// waitFor polls until cond holds; verification runs asynchronously.
func (a *app) waitFor(what string, cond func() bool) {
	a.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			a.t.Fatalf("timed out waiting for %s; writes: %d", what, len(a.gh.Writes()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// settle waits until no write has happened for a while and returns the
// number of writes.
func (a *app) settle() int {
	a.t.Helper()
	n, still := len(a.gh.Writes()), 0
	deadline := time.Now().Add(60 * time.Second)
	for still < 30 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if m := len(a.gh.Writes()); m != n {
			n, still = m, 0
		} else {
			still++
		}
	}
	return n
}

func (a *app) delivery() string {
	a.n++
	return fmt.Sprintf("e2e-%d", a.n)
}

func countWrites(ws []githubtest.Write, method, pathPart string) int {
	n := 0
	for _, w := range ws {
		if w.Method == method && strings.Contains(w.Path, pathPart) {
			n++
		}
	}
	return n
}

func TestAppEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	review := a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a")

	// A bad signature is refused before anything is stored.
	if code := a.deliver("pull_request_review", "bad-1", review, "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("bad signature: %d", code)
	}

	// A signed sign-off: 202, then a verdict comment, a status and a check run on H.
	const reviewKey = "pullrequestreview-3900000001"
	if code := a.deliver("pull_request_review", "d-review", review, e2eSecret); code != http.StatusAccepted {
		t.Fatalf("signed delivery: %d", code)
	}
	a.waitFor("the first verdict", func() bool { return len(a.verdicts()) > 0 })
	a.waitFor("the final status", func() bool {
		for _, s := range a.gh.Statuses(e2eRepo, a.head) {
			if s.GetContext() == "codeowner-signoff-verify" && s.GetState() != "pending" {
				return true
			}
		}
		return false
	})
	vs := a.verdicts()
	if len(vs) != 1 {
		t.Fatalf("verdict comments = %d, want 1", len(vs))
	}
	for _, c := range vs {
		if !strings.Contains(c.Body, "Assessed commit: `"+a.head+"`.") || !strings.Contains(c.Body, "<summary>中文</summary>") {
			t.Errorf("verdict body lacks footer or Chinese part:\n%s", c.Body)
		}
		if !strings.HasPrefix(c.Body, marker+reviewKey+" -->\n") {
			t.Errorf("verdict keyed wrong: %q", c.Body[:80])
		}
	}
	// The status is settled before the check run is completed: wait for both.
	a.waitFor("the completed check run carrying the verdict", func() bool {
		for _, r := range a.gh.CheckRuns(e2eRepo, a.head) {
			if r.GetName() == "Verdict / sign-off" && r.GetStatus() == "completed" && strings.Contains(r.GetOutput().GetSummary(), "Check 15") {
				return true
			}
		}
		return false
	})

	// A redelivery of the same delivery ID is acknowledged but not processed.
	posts := countWrites(a.gh.Writes(), "POST", "/check-runs")
	if code := a.deliver("pull_request_review", "d-review", review, e2eSecret); code != http.StatusAccepted {
		t.Fatalf("redelivery: %d", code)
	}
	time.Sleep(1500 * time.Millisecond)
	if got := countWrites(a.gh.Writes(), "POST", "/check-runs"); got != posts {
		t.Errorf("redelivery ran a second verification (%d check runs created, want %d)", got, posts)
	}

	// A second reviewer's sign-off gets its own verdict comment.
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `amd-owner-b`\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	if code := a.deliver("issue_comment", a.delivery(), a.commentEvent("created", id, body, "amd-owner-b", "User"), e2eSecret); code != http.StatusAccepted {
		t.Fatalf("second sign-off: %d", code)
	}
	secondKey := fmt.Sprintf("issuecomment-%d", id)
	a.waitFor("the second verdict", func() bool { return len(a.verdicts()) == 2 })
	first := a.verdicts()

	// Editing that sign-off patches the same comment in place.
	// The edit adds a template item, so the verdict's reason changes.
	edited := body + "- [x] Confirmed at the time of writing that this checklist is the current version of PR_REVIEW_CHECKLIST.md\n"
	a.gh.EditComment(id, edited)
	if code := a.deliver("issue_comment", a.delivery(), a.commentEvent("edited", id, edited, "amd-owner-b", "User"), e2eSecret); code != http.StatusAccepted {
		t.Fatalf("edit: %d", code)
	}
	a.waitFor("the patched verdict", func() bool {
		for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
			if strings.HasPrefix(c.Body, marker+secondKey+" -->") && c.Body != bodyOf(first, secondKey) {
				return true
			}
		}
		return false
	})
	if n := len(a.verdicts()); n != 2 {
		t.Errorf("after the edit there are %d verdict comments, want 2 (patched in place)", n)
	}

	// The bot's own comments never trigger anything, even with the phrase.
	// Let the edit's verification finish its status and check run first.
	writes := a.settle()
	botBody := marker + secondKey + " -->\nAs a PR reviewer and CODEOWNER, quoted"
	botID := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "verdict[bot]", UserType: "Bot", Body: botBody})
	if code := a.deliver("issue_comment", a.delivery(), a.commentEvent("created", botID, botBody, "verdict[bot]", "Bot"), e2eSecret); code >= 300 {
		t.Fatalf("bot comment: %d", code)
	}
	time.Sleep(1500 * time.Millisecond)
	if got := len(a.gh.Writes()); got != writes {
		t.Errorf("a bot comment caused %d writes", got-writes)
	}
}

// TestAppReuseCommand: a /use command by a maintainer gets the bot's 👍
// through the real webhook, queue and acknowledger.
func TestAppReuseCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	body := "/use 30123456789\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	var updated time.Time
	for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
		if c.ID == id {
			updated = c.UpdatedAt
		}
	}
	ev := a.commentEvent("created", id, body, "amd-owner-b", "User")
	ev["comment"].(map[string]any)["updated_at"] = updated.Format(time.RFC3339)
	if code := a.deliver("issue_comment", a.delivery(), ev, e2eSecret); code != http.StatusAccepted {
		t.Fatalf("command delivery: %d", code)
	}
	a.waitFor("the bot's reaction", func() bool {
		for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
			if c.ID != id {
				continue
			}
			for _, r := range c.Reactions {
				if r.User == "verdict[bot]" && r.Content == "+1" {
					return true
				}
			}
		}
		return false
	})
}

func bodyOf(vs map[string]fixture.Comment, key string) string {
	for _, c := range vs {
		if strings.HasPrefix(c.Body, marker+key+" -->") {
			return c.Body
		}
	}
	return ""
}
