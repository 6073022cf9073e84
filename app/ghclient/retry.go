package ghclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/verdict-bot/verdict/app/metrics"
)

// RetryOptions bound the retrying transport. Zero values take defaults.
type RetryOptions struct {
	// MaxRetries is the number of retries after the first attempt (default 4).
	MaxRetries int
	// BaseDelay is the first backoff (default 500ms); it doubles per retry
	// up to MaxDelay (default 20s), with jitter.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxWait bounds the total time one request may spend waiting between
	// attempts, rate-limit waits included (default 2m). A wait that would
	// exceed it is not taken: the last response is returned instead.
	MaxWait time.Duration
	// AttemptTimeout bounds the wait for one attempt's response headers
	// (default 10s, GitHub's own request timeout; negative disables).
	AttemptTimeout time.Duration
	// IdleTimeout bounds how long a response body may make no progress
	// (default AttemptTimeout; negative disables). It is not a total: a
	// large artifact download may take minutes while it keeps moving.
	IdleTimeout time.Duration
	// BufferLimit is the largest body read in full inside the attempt
	// (default 8 MiB; negative disables), so that a body cut short or
	// stalled is retried like any other failed attempt. Larger bodies,
	// artifact archives among them, are streamed.
	BufferLimit int64
	// Sleep waits between attempts; tests may replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used for X-RateLimit-Reset; default time.Now.
	Now func() time.Time
}

func (o RetryOptions) withDefaults() RetryOptions {
	if o.MaxRetries == 0 {
		o.MaxRetries = 4
	}
	if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = 500 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 20 * time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 2 * time.Minute
	}
	if o.AttemptTimeout == 0 {
		o.AttemptTimeout = 10 * time.Second
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = o.AttemptTimeout
	}
	if o.BufferLimit == 0 {
		o.BufferLimit = 8 << 20
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Transport retries GitHub API requests. Idempotent requests (GET, HEAD,
// OPTIONS, PUT, DELETE) are retried on 5xx, timeouts and connection errors
// with capped exponential backoff and jitter. Every request, POST and PATCH
// included, is retried after a rate-limit answer (primary: 403/429 with
// X-RateLimit-Remaining 0, waiting until X-RateLimit-Reset; secondary:
// Retry-After or the secondary-limit message), because GitHub did nothing
// for those. It records per-attempt metrics.
type Transport struct {
	Base http.RoundTripper
	Opts RetryOptions
	// Name, when set, labels every request's metrics instead of its path
	// template (for artifact storage and documentation hosts, whose paths
	// are unbounded).
	Name string

	mu sync.Mutex
	// exhaustedUntil is the reset time of a budget a successful response
	// reported as used up (X-RateLimit-Remaining: 0).
	exhaustedUntil time.Time
}

// defaultBase is http.DefaultTransport keeping enough idle connections
// per host for the bursts a verification sends at once (its reads go out
// as soon as their inputs are known, up to 16 pages or downloads of one
// kind together): with the default two, every burst over HTTP/1.1 would
// dial most of its connections again.
var defaultBase = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}()

// NewTransport wraps base (nil: http.DefaultTransport with a larger idle
// pool per host, shared by every such transport).
func NewTransport(base http.RoundTripper, o RetryOptions) *Transport {
	if base == nil {
		base = defaultBase
	}
	return &Transport{Base: base, Opts: o.withDefaults()}
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	o := t.Opts
	ctx := req.Context()
	endpoint := Endpoint(req.URL.Path)
	canReplay := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	var waited time.Duration
	// A previous response used up the budget: wait for the reset here (within
	// MaxWait) instead of sending a request that is sure to be refused.
	if wait := t.exhaustedWait(); wait > 0 && wait <= o.MaxWait {
		metrics.APIRetry("rate_limit")
		if err := o.Sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
	for attempt := 0; ; attempt++ {
		areq := req
		if attempt > 0 && req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			areq = req.Clone(ctx)
			areq.Body = body
		}
		countCall(ctx)
		resp, err := t.attempt(areq, endpoint)
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		wait, reason := t.decide(retryMethod(req), attempt, resp, err)
		if reason == "" || !canReplay || attempt >= o.MaxRetries || waited+wait > o.MaxWait {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		metrics.APIRetry(reason)
		if err := o.Sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
}

// noteExhausted remembers a used-up budget reported by a successful
// response and hides the zero from go-github, which would otherwise refuse
// every later request locally until the reset, bypassing the bounded wait.
func (t *Transport) noteExhausted(resp *http.Response) {
	h := resp.Header
	if resp.StatusCode >= 400 || h.Get("X-RateLimit-Remaining") != "0" {
		return
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return
	}
	t.mu.Lock()
	t.exhaustedUntil = time.Unix(reset, 0).Add(time.Second)
	t.mu.Unlock()
	h.Set("X-RateLimit-Remaining", "1")
}

func (t *Transport) exhaustedWait() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exhaustedUntil.IsZero() {
		return 0
	}
	d := t.exhaustedUntil.Sub(t.Opts.Now())
	if d <= 0 {
		t.exhaustedUntil = time.Time{}
		return 0
	}
	return d
}

// decide returns how long to wait before the next attempt and why, or an
// empty reason when the outcome is final.
func (t *Transport) decide(method string, attempt int, resp *http.Response, err error) (time.Duration, string) {
	o := t.Opts
	if err != nil {
		var dns *net.DNSError
		if !idempotent(method) || (errors.As(err, &dns) && dns.IsNotFound) {
			// A host that does not exist will not exist in a second.
			return 0, ""
		}
		reason := "network"
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			reason = "timeout"
		}
		return t.backoff(attempt), reason
	}
	if wait, kind, ok := rateLimit(resp.StatusCode, resp.Header, o.Now(), func() bool { return isSecondaryLimit(resp) }); ok {
		if kind == "secondary" {
			// A secondary limit without Retry-After asks for at least a
			// minute; backoff only ever lengthens that.
			if resp.Header.Get("Retry-After") == "" {
				wait = max(wait, t.backoff(attempt))
			}
			return wait, "secondary_limit"
		}
		return wait, "rate_limit"
	}
	if resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented && idempotent(method) {
		return t.backoff(attempt), "server_error"
	}
	return 0, ""
}

// isSecondaryLimit peeks at a 403 body for GitHub's secondary-limit message
// and puts the bytes back.
func isSecondaryLimit(resp *http.Response) bool {
	buf, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
	return mentionsSecondaryLimit(string(buf))
}

func (t *Transport) backoff(attempt int) time.Duration {
	d := t.Opts.BaseDelay << min(attempt, 20)
	if d <= 0 || d > t.Opts.MaxDelay {
		d = t.Opts.MaxDelay
	}
	// Equal jitter: at least half the delay, so retries never collapse to 0.
	return d/2 + rand.N(d/2+1)
}
