package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/webhook"
)

// memQueue is an Enqueuer that dedupes by delivery ID like the real store.
type memQueue struct {
	mu    sync.Mutex
	seen  map[string]bool
	saved []queue.Delivery
	fail  error
}

func (q *memQueue) Enqueue(_ context.Context, d queue.Delivery) (queue.Outcome, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return "", q.fail
	}
	if q.seen == nil {
		q.seen = map[string]bool{}
	}
	if q.seen[d.ID] {
		return queue.Duplicate, nil
	}
	q.seen[d.ID] = true
	q.saved = append(q.saved, d)
	if len(d.Jobs) == 0 {
		return queue.Ignored, nil
	}
	return queue.Queued, nil
}

func (q *memQueue) jobs() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, d := range q.saved {
		n += len(d.Jobs)
	}
	return n
}

var (
	current = []byte("current-secret")
	old     = []byte("old-secret")
)

func signOffPayload(senderLogin, senderType string) []byte {
	b, _ := json.Marshal(map[string]any{
		"action":     "created",
		"repository": map[string]any{"full_name": "o/r"},
		"issue":      map[string]any{"number": 5, "pull_request": map[string]any{"url": "u"}},
		"comment":    map[string]any{"id": 77, "body": "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "user": map[string]any{"login": "bob"}},
		"sender":     map[string]any{"login": senderLogin, "type": senderType},
	})
	return b
}

func post(h http.Handler, event, delivery, sig string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	if event != "" {
		req.Header.Set("X-GitHub-Event", event)
	}
	if delivery != "" {
		req.Header.Set("X-GitHub-Delivery", delivery)
	}
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHandler(t *testing.T) {
	good := signOffPayload("alice", "User")
	tests := []struct {
		name      string
		event     string
		delivery  string
		sig       string
		body      []byte
		maxBody   int64
		wantCode  int
		wantJobs  int
		wantSaved int
		wantText  string
	}{
		{"signed sign-off", "issue_comment", "d1", webhook.Sign(current, good), good, 0, 202, 1, 1, ""},
		{"rotation secret accepted", "issue_comment", "d1", webhook.Sign(old, good), good, 0, 202, 1, 1, ""},
		{"missing signature", "issue_comment", "d1", "", good, 0, 401, 0, 0, "X-Hub-Signature-256"},
		{"wrong secret", "issue_comment", "d1", webhook.Sign([]byte("nope"), good), good, 0, 401, 0, 0, ""},
		{"sha1 style header", "issue_comment", "d1", "sha1=" + strings.Repeat("0", 40), good, 0, 401, 0, 0, ""},
		{"not hex", "issue_comment", "d1", "sha256=zz", good, 0, 401, 0, 0, ""},
		{"tampered body", "issue_comment", "d1", webhook.Sign(current, good), append(bytes.Clone(good), ' '), 0, 401, 0, 0, ""},
		{"oversize", "issue_comment", "d1", webhook.Sign(current, good), good, 64, 413, 0, 0, ""},
		{"unknown event", "deployment", "d1", webhook.Sign(current, []byte(`{}`)), []byte(`{}`), 0, 204, 0, 0, ""},
		{"ping", "ping", "d1", webhook.Sign(current, []byte(`{"zen":"x"}`)), []byte(`{"zen":"x"}`), 0, 200, 0, 0, "pong"},
		{"malformed json", "issue_comment", "d1", webhook.Sign(current, []byte(`{"action":`)), []byte(`{"action":`), 0, 400, 0, 0, "malformed payload"},
		{"missing delivery id", "issue_comment", "", webhook.Sign(current, good), good, 0, 400, 0, 0, "X-GitHub-Delivery"},
		{"bot sender", "issue_comment", "d1", webhook.Sign(current, signOffPayload("verdict[bot]", "Bot")), signOffPayload("verdict[bot]", "Bot"), 0, 204, 0, 0, ""},
		{"handled event, nothing to do", "pull_request", "d1", webhook.Sign(current, []byte(`{"action":"closed","number":5,"repository":{"full_name":"o/r"},"sender":{"login":"a"}}`)),
			[]byte(`{"action":"closed","number":5,"repository":{"full_name":"o/r"},"sender":{"login":"a"}}`), 0, 202, 0, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := &memQueue{}
			h := &webhook.Handler{Secrets: [][]byte{current, old}, Router: router.Router{}, Queue: q, MaxBody: tc.maxBody}
			rec := post(h, tc.event, tc.delivery, tc.sig, tc.body)
			if rec.Code != tc.wantCode {
				t.Fatalf("status %d (%s), want %d", rec.Code, rec.Body, tc.wantCode)
			}
			if !strings.Contains(rec.Body.String(), tc.wantText) {
				t.Fatalf("body %q lacks %q", rec.Body, tc.wantText)
			}
			if len(q.saved) != tc.wantSaved || q.jobs() != tc.wantJobs {
				t.Fatalf("stored %d deliveries with %d jobs, want %d with %d", len(q.saved), q.jobs(), tc.wantSaved, tc.wantJobs)
			}
		})
	}
}

func TestRedeliveryEnqueuesOnce(t *testing.T) {
	q := &memQueue{}
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q}
	body := signOffPayload("alice", "User")
	for i := range 3 {
		if rec := post(h, "issue_comment", "same-id", webhook.Sign(current, body), body); rec.Code != 202 {
			t.Fatalf("delivery %d: %d", i, rec.Code)
		}
	}
	if q.jobs() != 1 {
		t.Fatalf("%d jobs for one delivery ID", q.jobs())
	}
	v := q.saved[0].Jobs[0].(jobs.VerifyArgs)
	if v.SignOff.Key() != "issuecomment-77" || v.DeliveryID != "same-id" || q.saved[0].Repo != "o/r" || q.saved[0].PR != 5 {
		t.Fatalf("stored %+v", q.saved[0])
	}
}

func TestStoreFailureIs503(t *testing.T) {
	q := &memQueue{fail: errors.New("disk full")}
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q}
	body := signOffPayload("alice", "User")
	if rec := post(h, "issue_comment", "x", webhook.Sign(current, body), body); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", rec.Code)
	}
}

func TestOversizeWithoutContentLength(t *testing.T) {
	q := &memQueue{}
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q, MaxBody: 10}
	body := bytes.Repeat([]byte("x"), 100)
	req := httptest.NewRequest(http.MethodPost, "/webhook", struct{ *bytes.Reader }{bytes.NewReader(body)})
	req.ContentLength = -1
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", "big")
	req.Header.Set("X-Hub-Signature-256", webhook.Sign(current, body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || len(q.saved) != 0 {
		t.Fatalf("status %d, stored %d", rec.Code, len(q.saved))
	}
}

func TestEmptySecretNeverMatches(t *testing.T) {
	q := &memQueue{}
	h := &webhook.Handler{Secrets: [][]byte{{}}, Router: router.Router{}, Queue: q}
	body := signOffPayload("alice", "User")
	if rec := post(h, "issue_comment", "x", webhook.Sign(nil, body), body); rec.Code != 401 {
		t.Fatalf("status %d with an empty secret", rec.Code)
	}
}

// FuzzHandler: whatever arrives, the handler answers without panicking and
// stores nothing that is not validly signed.
func FuzzHandler(f *testing.F) {
	good := signOffPayload("alice", "User")
	f.Add("issue_comment", "d", webhook.Sign(current, good), good)
	f.Add("pull_request", "d", webhook.Sign(current, []byte(`{"action":"opened"}`)), []byte(`{"action":"opened"}`))
	f.Add("issue_comment", "", "sha256=00", []byte(`{`))
	// The crash this target found: an event header that is not UTF-8
	// became a Prometheus label, which panics.
	f.Add("issue_comment\xff", "d", "sha256=00", []byte(`{}`))
	f.Fuzz(func(t *testing.T, event, delivery, sig string, body []byte) {
		q := &memQueue{}
		h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q, MaxBody: 1 << 16}
		rec := post(h, event, delivery, sig, body)
		signed := sig == webhook.Sign(current, body)
		if !signed && rec.Code != http.StatusUnauthorized && rec.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("unsigned delivery answered %d", rec.Code)
		}
		if !signed && len(q.saved) > 0 {
			t.Fatal("unsigned delivery stored")
		}
		if rec.Code == http.StatusAccepted && len(q.saved) != 1 {
			t.Fatalf("202 but %d stored", len(q.saved))
		}
	})
}
