// Package webhook receives GitHub webhook deliveries: it checks the
// signature before reading anything else, routes the event, and answers 202
// only once the delivery and its jobs are stored durably. Which events
// count, and what each one asks for, is the router's table.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/store"
)

// MaxBody is GitHub's own cap on webhook payloads.
const MaxBody = 25 << 20

// Enqueuer stores a delivery with its jobs and says what it did;
// queue.Queue implements it.
type Enqueuer interface {
	Enqueue(ctx context.Context, d queue.Delivery) (queue.Outcome, error)
}

// Handler serves POST /webhook.
type Handler struct {
	// Secrets are the accepted webhook secrets; several during rotation.
	Secrets [][]byte
	Router  router.Router
	Queue   Enqueuer
	Logger  *slog.Logger
	// MaxBody overrides the body cap (tests); 0 means MaxBody.
	MaxBody int64
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() { metrics.Ack(time.Since(start)) }()
	log := h.Logger
	if log == nil {
		log = slog.Default()
	}
	event := r.Header.Get("X-GitHub-Event")
	delivery := r.Header.Get("X-GitHub-Delivery")
	log = log.With("event", event, "delivery_id", delivery)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "webhooks are POSTed", http.StatusMethodNotAllowed)
		return
	}
	limit := h.MaxBody
	if limit <= 0 {
		limit = MaxBody
	}
	if r.ContentLength > limit {
		h.reject(w, log, event, "too_large", http.StatusRequestEntityTooLarge, fmt.Sprintf("payload larger than %d bytes", limit))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.reject(w, log, event, "too_large", http.StatusRequestEntityTooLarge, fmt.Sprintf("payload larger than %d bytes", limit))
			return
		}
		h.reject(w, log, event, "error", http.StatusBadRequest, "could not read payload")
		return
	}
	// Nothing about the body is trusted, or even parsed, before this.
	if !h.validSignature(r.Header.Get("X-Hub-Signature-256"), body) {
		h.reject(w, log, event, "bad_signature", http.StatusUnauthorized, "missing or invalid X-Hub-Signature-256")
		return
	}
	if event == "" || delivery == "" {
		h.reject(w, log, event, "malformed", http.StatusBadRequest, "missing X-GitHub-Event or X-GitHub-Delivery header")
		return
	}
	if event == "ping" {
		metrics.Delivery(event, "ignored")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "pong\n")
		return
	}
	dec, err := h.Router.Route(event, delivery, body)
	if err != nil {
		h.reject(w, log, event, "malformed", http.StatusBadRequest, err.Error())
		return
	}
	if dec.Unhandled {
		metrics.Delivery(event, "unhandled")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	log = log.With("repo", dec.Repo.FullName(), "pr", dec.PR)
	if dec.HeadSHA != "" {
		log = log.With("head_sha", dec.HeadSHA)
	}
	if dec.IgnoredSender {
		metrics.Delivery(event, "bot")
		log.Debug("ignoring delivery from a bot", "sender", dec.Sender)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	d := queue.Delivery{
		Delivery: store.Delivery{
			ID: delivery, Event: event, Action: dec.Action, Repo: dec.Repo.FullName(),
			PR: dec.PR, Received: now().UTC(),
		},
		Jobs: dec.Jobs,
	}
	if dec.Repo.Owner == "" {
		d.Repo = ""
	}
	outcome, err := h.Queue.Enqueue(r.Context(), d)
	if err != nil {
		// 503 tells GitHub (and whoever redelivers) to try again later.
		h.reject(w, log, event, "error", http.StatusServiceUnavailable, "could not store the delivery; redeliver later")
		log.Error("storing delivery failed", "err", err)
		return
	}
	metrics.Delivery(event, string(outcome))
	if outcome != queue.Ignored {
		log.Info("delivery stored", "action", dec.Action, "outcome", outcome, "jobs", len(dec.Jobs))
	}
	w.WriteHeader(http.StatusAccepted)
}

func (h *Handler) reject(w http.ResponseWriter, log *slog.Logger, event, outcome string, code int, msg string) {
	metrics.Delivery(event, outcome)
	log.Warn("webhook rejected", "status", code, "reason", msg)
	http.Error(w, msg, code)
}

// validSignature checks "sha256=<hex>" against every secret in constant
// time (per secret; which secret matched is not secret).
func (h *Handler) validSignature(header string, body []byte) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil || len(sig) != sha256.Size {
		return false
	}
	valid := false
	for _, s := range h.Secrets {
		if len(s) == 0 {
			continue
		}
		m := hmac.New(sha256.New, s)
		m.Write(body)
		if hmac.Equal(m.Sum(nil), sig) {
			valid = true
		}
	}
	return valid
}

// Sign returns the X-Hub-Signature-256 value of body under secret (for
// tests, benchmarks and tools that replay deliveries).
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
