package ghclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verdict-bot/verdict/app/metrics"
)

// TimeoutError is a stalled attempt: no response headers within
// AttemptTimeout, or a body that made no progress for IdleTimeout. It is a
// net.Error whose Timeout is true and it matches context.DeadlineExceeded,
// so every classifier treats it as transient.
type TimeoutError struct {
	// Phase is "response headers" or "response body".
	Phase string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("GitHub sent no %s for %s", e.Phase, e.After)
}

// Timeout implements net.Error.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary implements net.Error.
func (e *TimeoutError) Temporary() bool { return true }

// Is makes errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

type repeatableKey struct{}

// Repeatable marks requests made with ctx as safe to send twice, so the
// transport retries them on server errors and timeouts like a GET. Use it
// for writes whose repetition changes nothing (setting a commit status,
// patching a comment or a check run to given contents), never for creates.
func Repeatable(ctx context.Context) context.Context {
	return context.WithValue(ctx, repeatableKey{}, true)
}

// retryMethod is the method decide() judges a request by: a repeatable
// write is judged like PUT, the idempotent write it already retries.
// Minting an installation token is repeatable by nature: a second token
// costs nothing.
func retryMethod(req *http.Request) string {
	if idempotent(req.Method) {
		return req.Method
	}
	if v, _ := req.Context().Value(repeatableKey{}).(bool); v || strings.HasSuffix(req.URL.Path, "/access_tokens") {
		return http.MethodPut
	}
	return req.Method
}

// watchdog cancels an attempt whose response stops making progress.
type watchdog struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelCauseFunc
}

func newWatchdog(cancel context.CancelCauseFunc, d time.Duration, phase string) *watchdog {
	w := &watchdog{cancel: cancel}
	w.arm(d, phase)
	return w
}

// arm restarts the countdown; d <= 0 disarms it.
func (w *watchdog) arm(d time.Duration, phase string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if d > 0 {
		w.timer = time.AfterFunc(d, func() { w.cancel(&TimeoutError{Phase: phase, After: d}) })
	}
}

func (w *watchdog) stop() { w.arm(0, "") }

// attempt sends one request. The response headers must arrive within
// AttemptTimeout; after that the body must keep moving (IdleTimeout). A body
// up to BufferLimit is read here, so that a failure reading it is a failed
// attempt the caller retries rather than an error surfacing mid-decode.
func (t *Transport) attempt(req *http.Request, endpoint string) (*http.Response, error) {
	o := t.Opts
	start := o.Now()
	ctx, cancel := context.WithCancelCause(req.Context())
	wd := newWatchdog(cancel, o.AttemptTimeout, "response headers")
	resp, err := t.Base.RoundTrip(req.WithContext(ctx))
	status := 0
	if resp != nil {
		status = resp.StatusCode
		if v := resp.Header.Get("X-RateLimit-Remaining"); v != "" {
			if n, perr := strconv.Atoi(v); perr == nil {
				metrics.RateLimitRemaining(resp.Header.Get("X-RateLimit-Resource"), n)
			}
		}
		t.noteExhausted(resp)
	}
	metrics.APICall(req.Method, t.endpoint(req, endpoint), status, o.Now().Sub(start))
	if err != nil {
		wd.stop()
		err = stalled(ctx, err)
		cancel(nil)
		return nil, err
	}
	body := &watchedBody{rc: resp.Body, wd: wd, idle: o.IdleTimeout, ctx: ctx, cancel: cancel}
	wd.arm(o.IdleTimeout, "response body")
	if o.BufferLimit < 0 || resp.ContentLength > o.BufferLimit {
		resp.Body = body
		return resp, nil
	}
	buf, err := io.ReadAll(io.LimitReader(body, o.BufferLimit+1))
	if err != nil {
		body.Close()
		return nil, fmt.Errorf("reading the response body of %s %s: %w", req.Method, req.URL.Path, err)
	}
	if int64(len(buf)) <= o.BufferLimit {
		body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(buf))
		return resp, nil
	}
	// Longer than announced (or unannounced): stream the rest.
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), body), body}
	return resp, nil
}

// endpoint is the metrics label of a request: the transport's fixed Name
// when it has one (download hosts have unbounded paths), else the template.
func (t *Transport) endpoint(_ *http.Request, template string) string {
	if t.Name != "" {
		return t.Name
	}
	return template
}

// stalled replaces the error of an attempt the watchdog cancelled by the
// TimeoutError that says why.
func stalled(ctx context.Context, err error) error {
	var te *TimeoutError
	if cause := context.Cause(ctx); errors.As(cause, &te) {
		return te
	}
	return err
}

// watchedBody re-arms the idle watchdog on every read that makes progress
// and ends the attempt's context when closed.
type watchedBody struct {
	rc     io.ReadCloser
	wd     *watchdog
	idle   time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	once   sync.Once
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.wd.arm(b.idle, "response body")
	}
	if err != nil && err != io.EOF {
		err = stalled(b.ctx, err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		b.wd.stop()
		b.cancel(nil)
	})
	return err
}
