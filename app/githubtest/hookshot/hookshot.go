// Package hookshot is the fake GitHub's side of an App's webhook (GitHub
// calls the service that sends webhooks Hookshot): it delivers events as
// GitHub does (signed POSTs with GitHub's headers), keeps GitHub's log of
// every attempt, lists that log by cursor and redelivers a logged attempt
// under the same GUID. The fake GitHub serves the log's two endpoints
// (GET /app/hook/deliveries, POST /app/hook/deliveries/{id}/attempts)
// through a Hook once it has checked the App's JWT.
package hookshot

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

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// hookTimeout is how long GitHub waits for a webhook's answer.
const hookTimeout = 10 * time.Second

// Hook is the App's webhook configuration and delivery log. It has its own
// lock, which no server lock is held with: an attempt POSTs to the App,
// whose handler may call back into the fake.
type Hook struct {
	appID int64

	mu     sync.Mutex
	url    string
	secret []byte
	log    []*Attempt // oldest first
	nextID int64
	guids  int
}

// New is the webhook of the App appID, with no URL yet.
func New(appID int64) *Hook { return &Hook{appID: appID} }

// Attempt is one delivery attempt as GitHub's delivery log keeps it.
type Attempt struct {
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

// Configure points the webhook at url, signing with secret.
func (h *Hook) Configure(url string, secret []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.url, h.secret = url, append([]byte(nil), secret...)
}

// Deliver sends a new delivery of event (a fresh GUID) to the App's webhook
// and logs the attempt, which fails when the webhook is unreachable or
// answers other than 2xx, as GitHub's would.
func (h *Hook) Deliver(event string, payload map[string]any) Attempt {
	body, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("hookshot: Deliver: %v", err))
	}
	action, _ := payload["action"].(string)
	h.mu.Lock()
	h.guids++
	guid := fmt.Sprintf("%08x-%04x-11f0-8a3c-%012x", 0x5e000000+h.guids, h.guids%0x10000, h.appID)
	h.mu.Unlock()
	return h.attempt(&Attempt{GUID: guid, Event: event, Action: action, payload: body})
}

// Attempts returns the delivery log, oldest first.
func (h *Hook) Attempts() []Attempt {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Attempt, len(h.log))
	for i, a := range h.log {
		out[i] = *a
	}
	return out
}

// attempt POSTs a's payload to the webhook and logs the outcome.
func (h *Hook) attempt(a *Attempt) Attempt {
	h.mu.Lock()
	target, secret := h.url, h.secret
	h.nextID++
	a.ID = 11000000000 + h.nextID
	h.mu.Unlock()

	start := time.Now()
	a.DeliveredAt = start.UTC().Truncate(time.Second)
	a.Status, a.StatusCode = "failed to connect", http.StatusBadGateway
	if target == "" {
		a.Status = "no webhook URL configured"
	} else if code, err := h.post(target, secret, a); err != nil {
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
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, a)
	return *a
}

func (h *Hook) post(target string, secret []byte, a *Attempt) (int, error) {
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
	req.Header.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(h.appID, 10))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func attemptJSON(a *Attempt) map[string]any {
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
	return map[string]any{"id": a.ID, "guid": a.GUID, "delivered_at": ghjson.ISO(a.DeliveredAt), "redelivery": a.Redelivery,
		"duration": a.Duration.Seconds(), "status": a.Status, "status_code": a.StatusCode, "event": a.Event,
		"action": action, "installation_id": installation, "repository_id": repoID, "throttled_at": nil}
}

// ServeDeliveries serves the log newest first, per_page (default 30, at
// most 100) at a time; the next page's cursor, "v1_<last id>", is in the
// Link header as GitHub gives it.
func (h *Hook) ServeDeliveries(w http.ResponseWriter, r *http.Request) {
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
			ghjson.Error(w, http.StatusBadRequest, "Invalid cursor")
			return
		}
		after = id
	}
	h.mu.Lock()
	var page []map[string]any
	more := false
	var last int64
	for i := len(h.log) - 1; i >= 0; i-- {
		a := h.log[i]
		if after >= 0 && a.ID >= after {
			continue
		}
		if len(page) == perPage {
			more = true
			break
		}
		page = append(page, attemptJSON(a))
		last = a.ID
	}
	h.mu.Unlock()
	if more {
		next := url.Values{"per_page": {strconv.Itoa(perPage)}, "cursor": {fmt.Sprintf("v1_%d", last)}}
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, next.Encode()))
	}
	if page == nil {
		page = []map[string]any{}
	}
	ghjson.Write(w, http.StatusOK, page)
}

// ServeRedelivery makes a new attempt of logged delivery id (same GUID,
// redelivery true) before answering 202, so a test sees its outcome at
// once; GitHub makes it shortly after.
func (h *Hook) ServeRedelivery(w http.ResponseWriter, id int64) {
	h.mu.Lock()
	var orig *Attempt
	for _, a := range h.log {
		if a.ID == id {
			orig = a
		}
	}
	h.mu.Unlock()
	if orig == nil {
		ghjson.Write(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
			"documentation_url": "https://docs.github.com/rest/apps/webhooks#redeliver-a-delivery-for-an-app-webhook"})
		return
	}
	h.attempt(&Attempt{GUID: orig.GUID, Event: orig.Event, Action: orig.Action, Redelivery: true, payload: orig.payload})
	ghjson.Write(w, http.StatusAccepted, map[string]any{})
}
