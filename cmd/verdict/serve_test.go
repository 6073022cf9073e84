package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/webhook"
)

const testPEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"

func envOf(m map[string]string, out, errw io.Writer) Env {
	return Env{Getenv: func(k string) string { return m[k] }, Stdout: out, Stderr: errw}
}

func TestServeMissingSettingExits2(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "VERDICT_WEBHOOK_SECRET"},
		{map[string]string{"VERDICT_WEBHOOK_SECRET": "s"}, "VERDICT_APP_ID"},
		{map[string]string{"VERDICT_WEBHOOK_SECRET": "s", "VERDICT_APP_ID": "1"}, "VERDICT_PRIVATE_KEY"},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, envOf(tc.env, io.Discard, &stderr))
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("env %v: exit %d, stderr %q; want 2 and one line naming %s", tc.env, code, stderr.String(), tc.want)
		}
	}
}

func TestSubcommands(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version"}, envOf(nil, &out, &errb)); code != 0 || !strings.HasPrefix(out.String(), "verdict ") {
		t.Fatalf("version: %d %q", code, out.String())
	}
	if code := run(context.Background(), []string{"nope"}, envOf(nil, &out, &errb)); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
	out.Reset()
	if code := run(context.Background(), nil, envOf(nil, &out, &errb)); code != 0 || !strings.Contains(out.String(), "serve") || !strings.Contains(out.String(), "check") {
		t.Fatalf("usage: %d %q", code, out.String())
	}
}

type countingVerifier struct {
	mu sync.Mutex
	n  []jobs.VerifyArgs
}

func (c *countingVerifier) Verify(_ context.Context, a jobs.VerifyArgs, _ jobs.Attempt) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = append(c.n, a)
	return nil
}

func (c *countingVerifier) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.n)
}

// TestServeEndToEnd runs the real server on SQLite: a signed sign-off is
// acknowledged, stored and verified once, and SIGTERM-style cancellation
// stops it cleanly.
func TestServeEndToEnd(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "v.db")
	v := &countingVerifier{}
	wire := func(context.Context, config.Server, *store.Store, *slog.Logger) (handlers, error) {
		return handlers{Verifier: v}, nil
	}
	cfg, err := config.LoadServer([]string{"-listen", "127.0.0.1:0", "-database-url", dbURL},
		func(k string) string {
			return map[string]string{"VERDICT_APP_ID": "1", "VERDICT_WEBHOOK_SECRET": "s3cret", "VERDICT_PRIVATE_KEY": testPEM}[k]
		}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), wire, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	}
	base := "http://" + addr
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	body := []byte(`{"action":"created","repository":{"full_name":"o/r"},"issue":{"number":3,"pull_request":{"url":"u"}},` +
		`"comment":{"id":9,"body":"As a PR reviewer and CODEOWNER, I have reviewed this and have:","user":{"login":"bob"}},"sender":{"login":"bob","type":"User"}}`)
	send := func(sig string) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/webhook", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", "issue_comment")
		req.Header.Set("X-GitHub-Delivery", "e2e-1")
		req.Header.Set("X-Hub-Signature-256", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send(webhook.Sign([]byte("wrong"), body)); code != 401 {
		t.Fatalf("bad signature: %d", code)
	}
	for range 2 {
		if code := send(webhook.Sign([]byte("s3cret"), body)); code != 202 {
			t.Fatalf("signed delivery: %d", code)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for v.count() < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metricsText, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if v.count() != 1 || v.n[0].SignOff.Key() != "issuecomment-9" {
		t.Fatalf("verifications: %+v", v.n)
	}
	for _, m := range []string{`verdict_webhook_deliveries_total{event="issue_comment",outcome="duplicate"} 1`, "verdict_queue_depth", "verdict_verification_duration_seconds"} {
		if !bytes.Contains(metricsText, []byte(m)) {
			t.Errorf("metrics lack %s", m)
		}
	}
}

func TestReadyzReportsDatabaseDown(t *testing.T) {
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	q, err := queue.New(context.Background(), st, queue.Options{InsertOnly: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h := routes(config.Server{WebhookSecrets: [][]byte{[]byte("s")}}, st, q, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, nil)
	st.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a closed database: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("healthz: %d", rec.Code)
	}
}
