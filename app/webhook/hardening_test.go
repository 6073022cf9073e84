package webhook_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/webhook"
)

// deliverySeries scrapes /metrics and returns the event label of every
// verdict_webhook_deliveries_total series.
func deliverySeries(t *testing.T) []string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics answered %d", rec.Code)
	}
	re := regexp.MustCompile(`(?m)^verdict_webhook_deliveries_total\{event="((?:[^"\\]|\\.)*)",outcome="[^"]*"\}`)
	var events []string
	for _, m := range re.FindAllStringSubmatch(rec.Body.String(), -1) {
		events = append(events, m[1])
	}
	return events
}

// gatheredEvents is deliverySeries without the HTTP round: the event
// labels the default registry holds.
func gatheredEvents(t *testing.T) []string {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, f := range families {
		if f.GetName() != "verdict_webhook_deliveries_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "event" {
					events = append(events, l.GetValue())
				}
			}
		}
	}
	return events
}

func allowedEvent(e string) bool {
	return e == "ping" || e == "other" || slices.Contains(router.Handles(), e)
}

// TestUnsignedEventsDoNotAddSeries: distinct X-GitHub-Event values from
// unauthenticated senders, valid UTF-8 or not, share one label.
func TestUnsignedEventsDoNotAddSeries(t *testing.T) {
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: &memQueue{}, Logger: quiet}
	before := len(deliverySeries(t))
	const n = 500
	for i := range n {
		event := "evt-" + strings.Repeat("x", i%40) + string(rune('a'+i%26)) + string([]byte{byte(i), 0xff})
		if i%2 == 0 {
			event = "custom_" + strings.Repeat("y", i)
		}
		if rec := post(h, event, "d", "sha256=00", []byte(`{}`)); rec.Code != http.StatusUnauthorized {
			t.Fatalf("delivery %d answered %d", i, rec.Code)
		}
	}
	series := deliverySeries(t)
	for _, e := range series {
		if !allowedEvent(e) {
			t.Errorf("series with event label %q from an unauthenticated request", e)
		}
	}
	// One new series at most: event="other", outcome="bad_signature".
	if len(series) > before+1 {
		t.Fatalf("%d unsigned deliveries added %d series", n, len(series)-before)
	}
}

// blockingBody is a request body that signals its first Read and then
// blocks until released, as a slow sender's body does.
type blockingBody struct {
	// prefix is sent before the body blocks.
	prefix  []byte
	started chan struct{}
	once    sync.Once
	release chan struct{}
}

func newBlockingBody() *blockingBody {
	return &blockingBody{started: make(chan struct{}), release: make(chan struct{})}
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if len(b.prefix) > 0 {
		n := copy(p, b.prefix)
		b.prefix = b.prefix[n:]
		return n, nil
	}
	b.once.Do(func() { close(b.started) })
	<-b.release
	return 0, io.ErrUnexpectedEOF
}

// TestUnsignedBodiesBoundedInConcurrency: while the budget is held by
// bodies being read (charged for what they sent), a further large body is
// refused with 503 and Retry-After; a small one still fits; once they end,
// a large one is read again.
func TestUnsignedBodiesBoundedInConcurrency(t *testing.T) {
	const size = 400 << 10
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: &memQueue{}, Logger: quiet,
		BodyBudget: 1 << 20, BodyWait: 50 * time.Millisecond}
	send := func(body io.Reader, length int64) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/webhook", body)
		req.ContentLength = length
		req.Header.Set("X-GitHub-Event", "issue_comment")
		req.Header.Set("X-GitHub-Delivery", "d")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	var holders []*blockingBody
	var wg sync.WaitGroup
	for range 2 {
		b := newBlockingBody()
		b.prefix = make([]byte, size-1)
		holders = append(holders, b)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rec := send(b, size); rec.Code != http.StatusBadRequest {
				t.Errorf("interrupted body answered %d", rec.Code)
			}
		}()
		<-b.started
	}
	rec := send(bytes.NewReader(make([]byte, size)), size)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("third large body while two are read: %d (Retry-After %q), want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := send(bytes.NewReader([]byte(`{}`)), 2); rec.Code != http.StatusUnauthorized {
		t.Fatalf("small body while two large are read: %d, want 401 (read, then refused for its signature)", rec.Code)
	}
	for _, b := range holders {
		close(b.release)
	}
	wg.Wait()
	if rec := send(bytes.NewReader(make([]byte, size)), size); rec.Code != http.StatusUnauthorized {
		t.Fatalf("large body after the others ended: %d, want 401", rec.Code)
	}
}

// TestSilentBodiesHoldNoBudget: bodies that declare the cap (or no
// length) and send nothing hold no budget, so they cannot starve the
// deliveries that do arrive.
func TestSilentBodiesHoldNoBudget(t *testing.T) {
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: &memQueue{}, Logger: quiet,
		MaxBody: 1 << 20, BodyBudget: 1 << 20, BodyWait: 50 * time.Millisecond}
	var bodies []*blockingBody
	var wg sync.WaitGroup
	for i := range 40 {
		b := newBlockingBody()
		bodies = append(bodies, b)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest(http.MethodPost, "/webhook", b)
			req.ContentLength = -1
			if i%2 == 0 {
				req.ContentLength = 1 << 20
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
		}()
		<-b.started
	}
	if rec := post(h, "issue_comment", "d", "sha256=00", make([]byte, 300<<10)); rec.Code != http.StatusUnauthorized {
		t.Fatalf("a body while 40 silent ones are open: %d, want 401 (read, then refused for its signature)", rec.Code)
	}
	for _, b := range bodies {
		close(b.release)
	}
	wg.Wait()
}

// FuzzHandlerHeaders: arbitrary bytes in any header, signed or not, never
// panic, never store an unsigned delivery, never store an unprintable
// delivery ID, and never make a metric label outside the fixed set.
func FuzzHandlerHeaders(f *testing.F) {
	good := signOffPayload("alice", "User")
	f.Add([]byte("issue_comment"), []byte("d"), []byte("X-Extra"), []byte("v"), true, good)
	f.Add([]byte("issue_comment\xff"), []byte("d\x00"), []byte("X-Hub-Signature-256"), []byte("sha256=\xfe"), false, good)
	f.Add([]byte("pull_request"), []byte("\xc3\x28"), []byte("Content-Type"), []byte("\x80"), true, []byte(`{"action":"opened"}`))
	f.Add([]byte("ping"), []byte(strings.Repeat("é", 100)), []byte(""), []byte(""), true, []byte(`{}`))
	f.Fuzz(func(t *testing.T, event, delivery, name, value []byte, sign bool, body []byte) {
		q := &memQueue{}
		h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q, Logger: quiet, MaxBody: 1 << 16}
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		if len(name) > 0 {
			req.Header[string(name)] = []string{string(value)}
		}
		req.Header["X-Github-Event"] = []string{string(event)}
		req.Header["X-Github-Delivery"] = []string{string(delivery)}
		if sign {
			req.Header["X-Hub-Signature-256"] = []string{webhook.Sign(current, body)}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		signed := req.Header.Get("X-Hub-Signature-256") == webhook.Sign(current, body)
		if !signed && len(q.saved) > 0 {
			t.Fatal("unsigned delivery stored")
		}
		for _, d := range q.saved {
			if !utf8.ValidString(d.ID) || len(d.ID) > 128 {
				t.Fatalf("stored delivery ID %q", d.ID)
			}
		}
		if rec.Code == http.StatusAccepted && len(q.saved) != 1 {
			t.Fatalf("202 but %d stored", len(q.saved))
		}
		for _, e := range gatheredEvents(t) {
			if !allowedEvent(e) {
				t.Fatalf("metric label event=%q", e)
			}
		}
	})
}

// TestRefusedCommandIsLogged: a /verdict recheck the router refuses leaves
// one info line naming the actor and the reason.
func TestRefusedCommandIsLogged(t *testing.T) {
	var logs bytes.Buffer
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: &memQueue{},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	body, _ := json.Marshal(map[string]any{
		"action":     "created",
		"repository": map[string]any{"full_name": "o/r"},
		"issue":      map[string]any{"number": 5, "pull_request": map[string]any{"url": "u"}},
		"comment":    map[string]any{"id": 78, "body": "/verdict recheck", "author_association": "NONE", "user": map[string]any{"login": "drive-by"}},
		"sender":     map[string]any{"login": "drive-by", "type": "User"},
	})
	if rec := post(h, "issue_comment", "d-refused", webhook.Sign(current, body), body); rec.Code != http.StatusAccepted {
		t.Fatalf("status %d", rec.Code)
	}
	var found []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "command refused" {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d refusal lines:\n%s", len(found), logs.String())
	}
	m := found[0]
	if m["level"] != "INFO" || m["actor"] != "drive-by" || !strings.Contains(m["reason"].(string), "author association NONE") ||
		m["repo"] != "o/r" || m["pr"] != float64(5) || m["delivery_id"] != "d-refused" {
		t.Fatalf("refusal line %v", m)
	}
}
