package githubtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The App's webhook: the fake delivers events to it as GitHub does (signed
// POSTs), keeps GitHub's log of every attempt, lists that log
// (GET /app/hook/deliveries, by cursor) and redelivers an attempt on request
// (POST /app/hook/deliveries/{id}/attempts) by POSTing the stored payload to
// the webhook URL again under the same GUID.

func init() {
	handle("GET", "/app/hook/deliveries", (*Server).listHookDeliveries)
	handle("POST", "/app/hook/deliveries/{delivery_id}/attempts", (*Server).redeliverHook)
}

// hookTimeout is how long GitHub waits for a webhook's answer.
const hookTimeout = 10 * time.Second

// hookLog is the App's webhook configuration and delivery log. It has its
// own lock: an attempt POSTs to the App, which must not wait for s.mu.
type hookLog struct {
	mu     sync.Mutex
	url    string
	secret []byte
	log    []*HookAttempt // oldest first
	nextID int64
	guids  int
}

// HookAttempt is one delivery attempt as GitHub's delivery log keeps it.
type HookAttempt struct {
	ID         int64
	GUID       string
	Event      string
	Action     string
	Redelivery bool
	// Status is "OK" for a 2xx answer, else what went wrong;
	// StatusCode is the answer's (502 when none came).
	Status      string
	StatusCode  int
	DeliveredAt time.Time
	Duration    time.Duration

	payload []byte
}

// SetWebhook points the App's webhook at url, signing with secret.
func (s *Server) SetWebhook(url string, secret []byte) {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	s.hooks.url, s.hooks.secret = url, append([]byte(nil), secret...)
}

// Deliver sends a new delivery of event (a fresh GUID) to the App's webhook
// and logs the attempt, which fails when the webhook is unreachable or
// answers other than 2xx, as GitHub's would.
func (s *Server) Deliver(event string, payload map[string]any) HookAttempt {
	body, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("githubtest: Deliver: %v", err))
	}
	action, _ := payload["action"].(string)
	s.hooks.mu.Lock()
	s.hooks.guids++
	guid := fmt.Sprintf("%08x-%04x-11f0-8a3c-%012x", 0x5e000000+s.hooks.guids, s.hooks.guids%0x10000, s.fx.App.ID)
	s.hooks.mu.Unlock()
	return s.attempt(&HookAttempt{GUID: guid, Event: event, Action: action, payload: body})
}

// HookAttempts returns the delivery log, oldest first.
func (s *Server) HookAttempts() []HookAttempt {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	out := make([]HookAttempt, len(s.hooks.log))
	for i, a := range s.hooks.log {
		out[i] = *a
	}
	return out
}

// attempt POSTs a's payload to the webhook and logs the outcome.
func (s *Server) attempt(a *HookAttempt) HookAttempt {
	s.hooks.mu.Lock()
	target, secret := s.hooks.url, s.hooks.secret
	s.hooks.nextID++
	a.ID = 11000000000 + s.hooks.nextID
	s.hooks.mu.Unlock()

	start := time.Now()
	a.DeliveredAt = start.UTC().Truncate(time.Second)
	a.Status, a.StatusCode = "failed to connect", http.StatusBadGateway
	if target == "" {
		a.Status = "no webhook URL configured"
	} else if code, err := s.post(target, secret, a); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			a.Status = "timed out"
		}
	} else if a.StatusCode = code; code >= 200 && code < 300 {
		a.Status = "OK"
	} else {
		a.Status = "Invalid HTTP Response: " + strconv.Itoa(code)
	}
	a.Duration = time.Since(start)
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	s.hooks.log = append(s.hooks.log, a)
	return *a
}

func (s *Server) post(target string, secret []byte, a *HookAttempt) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(a.payload))
	if err != nil {
		return 0, err
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(a.payload)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/fake")
	req.Header.Set("X-GitHub-Event", a.Event)
	req.Header.Set("X-GitHub-Delivery", a.GUID)
	req.Header.Set("X-GitHub-Hook-ID", "470000001")
	req.Header.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	req.Header.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(s.fx.App.ID, 10))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// requireJWT answers like GitHub when the App's delivery log is asked for
// with anything but the App's JWT.
func requireJWT(w http.ResponseWriter, r *http.Request) bool {
	if identityOf(r).jwt {
		return true
	}
	writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
	return false
}

func (s *Server) hookAttemptJSON(a *HookAttempt) map[string]any {
	var repoID, installation any
	var payload struct {
		Repository *struct {
			ID int64 `json:"id"`
		} `json:"repository"`
		Installation *struct {
			ID int64 `json:"id"`
		} `json:"installation"`
	}
	if json.Unmarshal(a.payload, &payload) == nil {
		if payload.Repository != nil {
			repoID = payload.Repository.ID
		}
		if payload.Installation != nil {
			installation = payload.Installation.ID
		}
	}
	var action any
	if a.Action != "" {
		action = a.Action
	}
	return map[string]any{"id": a.ID, "guid": a.GUID, "delivered_at": iso(a.DeliveredAt), "redelivery": a.Redelivery,
		"duration": a.Duration.Seconds(), "status": a.Status, "status_code": a.StatusCode, "event": a.Event,
		"action": action, "installation_id": installation, "repository_id": repoID, "throttled_at": nil}
}

// listHookDeliveries serves the log newest first, per_page (default 30, at
// most 100) at a time; the next page's cursor, "v1_<last id>", is in the
// Link header as GitHub gives it.
func (s *Server) listHookDeliveries(w http.ResponseWriter, r *http.Request, p params) {
	if !requireJWT(w, r) {
		return
	}
	q := r.URL.Query()
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	var after int64 = -1
	if c := q.Get("cursor"); c != "" {
		id, err := strconv.ParseInt(strings.TrimPrefix(c, "v1_"), 10, 64)
		if !strings.HasPrefix(c, "v1_") || err != nil {
			writeError(w, http.StatusBadRequest, "Invalid cursor")
			return
		}
		after = id
	}
	s.hooks.mu.Lock()
	var page []map[string]any
	more := false
	var last int64
	for i := len(s.hooks.log) - 1; i >= 0; i-- {
		a := s.hooks.log[i]
		if after >= 0 && a.ID >= after {
			continue
		}
		if len(page) == perPage {
			more = true
			break
		}
		page = append(page, s.hookAttemptJSON(a))
		last = a.ID
	}
	s.hooks.mu.Unlock()
	if more {
		next := url.Values{"per_page": {strconv.Itoa(perPage)}, "cursor": {fmt.Sprintf("v1_%d", last)}}
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, next.Encode()))
	}
	if page == nil {
		page = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, page)
}

// redeliverHook makes a new attempt of a logged delivery (same GUID,
// redelivery true) before answering 202, so a test sees its outcome at
// once; GitHub makes it shortly after.
func (s *Server) redeliverHook(w http.ResponseWriter, r *http.Request, p params) {
	if !requireJWT(w, r) {
		return
	}
	id := p.int64("delivery_id")
	s.hooks.mu.Lock()
	var orig *HookAttempt
	for _, a := range s.hooks.log {
		if a.ID == id {
			orig = a
		}
	}
	s.hooks.mu.Unlock()
	if orig == nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
			"documentation_url": "https://docs.github.com/rest/apps/webhooks#redeliver-a-delivery-for-an-app-webhook"})
		return
	}
	s.attempt(&HookAttempt{GUID: orig.GUID, Event: orig.Event, Action: orig.Action, Redelivery: true, payload: orig.payload})
	writeJSON(w, http.StatusAccepted, map[string]any{})
}
