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
	"sync"
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
	// BodyBudget bounds the bytes that payloads not yet authenticated may
	// hold at once; 0 means DefaultBodyBudget.
	BodyBudget int64
	// BodyWait is how long a delivery may wait for BodyBudget before it is
	// answered 503; 0 means DefaultBodyWait.
	BodyWait time.Duration
	// BodyGrace and MinBodyRate (bytes a second) cut off a body that
	// arrives slower than MinBodyRate after BodyGrace; zero means
	// DefaultBodyGrace and DefaultMinBodyRate.
	BodyGrace   time.Duration
	MinBodyRate float64

	budgetOnce sync.Once
	budget     *budget
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() { metrics.Ack(time.Since(start)) }()
	log := h.Logger
	if log == nil {
		log = slog.Default()
	}
	// Until the signature is checked every header is the sender's choice:
	// what reaches a metric label comes from a fixed set, what reaches the
	// log is valid UTF-8 of bounded length.
	event := r.Header.Get("X-GitHub-Event")
	label := eventLabel(event)
	delivery := r.Header.Get("X-GitHub-Delivery")
	log = log.With("event", label, "delivery_id", bounded(delivery))
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
		h.reject(w, log, label, "too_large", http.StatusRequestEntityTooLarge, fmt.Sprintf("payload larger than %d bytes", limit))
		return
	}
	b := h.bodyBudget()
	wait := h.BodyWait
	if wait <= 0 {
		wait = DefaultBodyWait
	}
	body, held, err := h.readBody(w, r, limit, b, wait)
	if err != nil {
		b.release(held)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.Is(err, errBusy):
			w.Header().Set("Retry-After", "1")
			h.reject(w, log, label, "busy", http.StatusServiceUnavailable, "too many webhook payloads are being read; redeliver later")
		case errors.As(err, &tooLarge):
			h.reject(w, log, label, "too_large", http.StatusRequestEntityTooLarge, fmt.Sprintf("payload larger than %d bytes", limit))
		default:
			h.reject(w, log, label, "error", http.StatusBadRequest, "could not read payload")
		}
		return
	}
	// Nothing about the body is trusted, or even parsed, before this.
	valid := h.validSignature(r.Header.Get("X-Hub-Signature-256"), body)
	b.release(held)
	if !valid {
		h.reject(w, log, label, "bad_signature", http.StatusUnauthorized, "missing or invalid X-Hub-Signature-256")
		return
	}
	if event == "" || delivery == "" {
		h.reject(w, log, label, "malformed", http.StatusBadRequest, "missing X-GitHub-Event or X-GitHub-Delivery header")
		return
	}
	if !validDeliveryID(delivery) {
		h.reject(w, log, label, "malformed", http.StatusBadRequest, "X-GitHub-Delivery is not a delivery ID")
		return
	}
	if event == "ping" {
		metrics.Delivery(label, "ignored")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "pong\n")
		return
	}
	dec, err := h.Router.Route(event, delivery, body)
	if err != nil {
		h.reject(w, log, label, "malformed", http.StatusBadRequest, err.Error())
		return
	}
	if dec.Unhandled {
		metrics.Delivery(label, "unhandled")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	log = log.With("repo", dec.Repo.FullName(), "pr", dec.PR)
	if dec.HeadSHA != "" {
		log = log.With("head_sha", dec.HeadSHA)
	}
	for _, why := range dec.Refused {
		// The refusal reaches nobody on GitHub; the log is where a
		// maintainer can find why a command did nothing.
		log.Info("command refused", "reason", why, "actor", dec.Sender)
	}
	if dec.IgnoredSender {
		metrics.Delivery(label, "bot")
		log.Debug("ignoring delivery from a bot", "actor", dec.Sender)
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
			PR: dec.PR, Received: now().UTC(), BodySHA256: bodySHA256(body),
		},
		Jobs: dec.Jobs,
	}
	if dec.Repo.Owner == "" {
		d.Repo = ""
	}
	outcome, err := h.Queue.Enqueue(r.Context(), d)
	if err != nil {
		// 503 tells GitHub (and whoever redelivers) to try again later.
		h.reject(w, log, label, "error", http.StatusServiceUnavailable, "could not store the delivery; redeliver later")
		log.Error("storing delivery failed", "err", err)
		return
	}
	metrics.Delivery(label, string(outcome))
	if outcome != queue.Ignored {
		log.Info("delivery stored", "action", dec.Action, "outcome", outcome, "jobs", len(dec.Jobs))
	}
	w.WriteHeader(http.StatusAccepted)
}

func bodySHA256(body []byte) string {
	h := sha256.Sum256(body)
	return hex.EncodeToString(h[:])
}

// errBusy is a body refused for want of budget.
var errBusy = errors.New("webhook body budget exhausted")

// readBody reads at most limit bytes, charging the budget for what has
// arrived (the buffer it grows into, at least bodyStep at a time) rather
// than for what the sender declared:
// a connection that declares 25 MiB and sends a byte a second holds one
// step, and one that sends nothing holds none. It returns what it holds
// for the caller to release, also on error.
//
// Each read has a deadline: a body must keep arriving at MinBodyRate
// after a grace period, so a trickle is cut off long before the server's
// whole-request timeout.
//
// A declared length up to bodyStep is read into a buffer of exactly that
// size; larger bodies grow to their declared length by doubling.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, limit int64, b *budget, wait time.Duration) (body []byte, held int64, err error) {
	rd := http.MaxBytesReader(w, r.Body, limit)
	rc := http.NewResponseController(w)
	defer rc.SetReadDeadline(time.Time{})
	start := time.Now()
	grace, rate := h.bodyGrace(), h.minBodyRate()
	declared := r.ContentLength
	// The first bytes go into a small buffer before any budget is taken.
	buf := make([]byte, 0, min(max(declared, 1), firstRead))
	for {
		if err := rc.SetReadDeadline(start.Add(grace + time.Duration(float64(len(buf))/rate*float64(time.Second)))); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return nil, held, err
		}
		if len(buf) == cap(buf) {
			if declared >= 0 && int64(len(buf)) >= declared {
				// Everything declared arrived: only EOF (or a lie) is left.
				var one [1]byte
				n, err := rd.Read(one[:])
				if n > 0 {
					return nil, held, fmt.Errorf("the body is longer than its declared %d bytes", declared)
				}
				if err == io.EOF {
					return buf, held, nil
				}
				if err != nil {
					return nil, held, err
				}
				continue
			}
			next := max(2*int64(cap(buf)), int64(len(buf))+bodyStep)
			if declared >= 0 {
				next = min(next, declared)
			}
			next = min(next, limit+1)
			// The buffer is charged whole before it is allocated.
			if next > held {
				if !b.acquire(r.Context(), next-held, wait) {
					return nil, held, errBusy
				}
				held = next
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF && declared >= 0 && int64(len(buf)) != declared:
			return nil, held, io.ErrUnexpectedEOF
		case err == io.EOF:
			return buf, held, nil
		case err != nil:
			return nil, held, err
		}
	}
}

func (h *Handler) bodyGrace() time.Duration {
	if h.BodyGrace > 0 {
		return h.BodyGrace
	}
	return DefaultBodyGrace
}

func (h *Handler) minBodyRate() float64 {
	if h.MinBodyRate > 0 {
		return h.MinBodyRate
	}
	return DefaultMinBodyRate
}

func (h *Handler) bodyBudget() *budget {
	h.budgetOnce.Do(func() {
		n := h.BodyBudget
		if n <= 0 {
			n = DefaultBodyBudget
		}
		h.budget = newBudget(n)
	})
	return h.budget
}

func (h *Handler) reject(w http.ResponseWriter, log *slog.Logger, event, outcome string, code int, msg string) {
	metrics.Delivery(event, outcome)
	log.Warn("webhook rejected", "http_status", code, "reason", msg)
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
