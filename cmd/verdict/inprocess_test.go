package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/webhook"
)

// inProcess is `verdict serve` running in the test process against gh,
// with GitHub timeouts and retry pauses shortened.
type inProcess struct {
	t    *testing.T
	gh   *githubtest.Server
	base string
}

func serveInProcess(t *testing.T, gh *githubtest.Server) *inProcess {
	t.Helper()
	env := map[string]string{
		"VERDICT_APP_ID":         fmt.Sprint(gh.Fixture().App.ID),
		"VERDICT_WEBHOOK_SECRET": e2eSecret,
		"VERDICT_PRIVATE_KEY":    string(appKey(t)),
		"VERDICT_GITHUB_URL":     gh.BaseURL(),
		// Off unless a test asks: recovery is TestFlowMissedWebhook's.
		"VERDICT_REDELIVER_INTERVAL": "0",
		"VERDICT_GITHUB_TIMEOUT":     "300ms",
		"VERDICT_GITHUB_BACKOFF":     "2ms",
		"VERDICT_RETRY_DELAY":        "10ms",
	}
	cfg, err := config.LoadServer([]string{"-listen", "127.0.0.1:0", "-database-url", "sqlite://" + filepath.Join(t.TempDir(), "v.db")},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	wire := appWiring(gh.PageTransport())
	go func() { done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)), wire, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve exited: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", logs.String())
		}
	})
	return &inProcess{t: t, gh: gh, base: "http://" + addr}
}

func (s *inProcess) deliver(event, delivery string, payload any) int {
	s.t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		s.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.base+"/webhook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(e2eSecret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// signOffEvent is the webhook GitHub sends when the sign-off key is posted
// on repo#pr by sender.
func signOffEvent(fx *fixture.Fixture, repo string, pr int, head, key, sender string) (string, map[string]any) {
	owner, name, _ := strings.Cut(repo, "/")
	user := map[string]any{"login": sender, "type": "User"}
	ev := map[string]any{
		"installation": map[string]any{"id": fx.App.InstallationID},
		"repository":   map[string]any{"full_name": repo, "name": name, "owner": map[string]any{"login": owner}},
		"sender":       user,
	}
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:"
	pull := map[string]any{"number": pr, "state": "open", "head": map[string]any{"sha": head}}
	var id int64
	switch {
	case strings.HasPrefix(key, "pullrequestreview-"):
		fmt.Sscanf(key, "pullrequestreview-%d", &id)
		ev["action"], ev["pull_request"] = "submitted", pull
		ev["review"] = map[string]any{"id": id, "body": body, "user": user}
		return "pull_request_review", ev
	case strings.HasPrefix(key, "discussion_r"):
		fmt.Sscanf(key, "discussion_r%d", &id)
		ev["action"], ev["pull_request"] = "created", pull
		ev["comment"] = map[string]any{"id": id, "body": body, "user": user}
		return "pull_request_review_comment", ev
	default:
		fmt.Sscanf(key, "issuecomment-%d", &id)
		ev["action"] = "created"
		ev["issue"] = map[string]any{"number": pr, "pull_request": map[string]any{"url": "x"}}
		ev["comment"] = map[string]any{"id": id, "body": body, "user": user, "author_association": "MEMBER",
			"updated_at": time.Now().UTC().Format(time.RFC3339)}
		return "issue_comment", ev
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
