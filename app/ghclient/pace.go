package ghclient

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/retry"
)

// WriteBudget books the content-creating requests of an installation
// (installation 0 for a token client). ReserveWrite takes the next slot
// and says how long to wait before sending: the slot is spent whether or
// not the caller sends. The store's budget is shared by every replica;
// NewWriteBudget serves one process.
type WriteBudget interface {
	ReserveWrite(ctx context.Context, installation int64) (wait time.Duration, err error)
}

// TokenBucket is the budget's rule, as the store computes it too: tokens
// refill at Rate per second up to Burst; a reservation takes one, and a
// negative balance is the wait of the caller that made it.
type TokenBucket struct {
	Rate  float64 // tokens a second
	Burst float64
}

// Take books one token from a bucket holding tokens at last, at now: the
// new balance and the wait the booking asks for.
func (b TokenBucket) Take(tokens float64, last, now time.Time) (float64, time.Duration) {
	if now.Before(last) {
		now = last // another replica's clock ran ahead: refill nothing
	}
	tokens = math.Min(b.Burst, tokens+now.Sub(last).Seconds()*b.Rate) - 1
	if tokens >= 0 {
		return tokens, 0
	}
	return tokens, time.Duration(-tokens / b.Rate * float64(time.Second))
}

// localBudget is a WriteBudget for one process.
type localBudget struct {
	rule TokenBucket
	now  func() time.Time

	mu      sync.Mutex
	buckets map[int64]bucketState
}

type bucketState struct {
	tokens float64
	at     time.Time
}

// NewWriteBudget is a WriteBudget for one process: perMinute writes a
// minute per installation with bursts of burst (now: time.Now when nil).
func NewWriteBudget(perMinute, burst float64, now func() time.Time) WriteBudget {
	if now == nil {
		now = time.Now
	}
	return &localBudget{rule: TokenBucket{Rate: perMinute / 60, Burst: burst}, now: now, buckets: map[int64]bucketState{}}
}

func (l *localBudget) ReserveWrite(_ context.Context, installation int64) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	s, ok := l.buckets[installation]
	if !ok {
		s = bucketState{tokens: l.rule.Burst, at: now}
	}
	tokens, wait := l.rule.Take(s.tokens, s.at, now)
	l.buckets[installation] = bucketState{tokens: tokens, at: maxTime(now, s.at)}
	return wait, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// contentCreating reports a request GitHub counts against the
// content-creation limit: any write of the REST API, and a GraphQL
// mutation (a GraphQL query reads).
func contentCreating(req *http.Request) bool {
	switch req.Method {
	case http.MethodPost:
		return !strings.HasSuffix(req.URL.Path, "/graphql") || graphQLMutation(req)
	case http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// graphQLMutation reports whether a GraphQL request's document is a
// mutation, from a copy of its body (its start is enough: the client
// encodes {"query":"mutation..."}). A body that cannot be copied counts
// as a mutation, so pacing errs on the side of GitHub's limit.
func graphQLMutation(req *http.Request) bool {
	if req.GetBody == nil {
		return req.Body != nil && req.Body != http.NoBody
	}
	body, err := req.GetBody()
	if err != nil {
		return true
	}
	defer body.Close()
	var head [64]byte
	n, _ := io.ReadFull(body, head[:])
	_, doc, found := strings.Cut(string(head[:n]), `"query"`)
	if !found {
		return true
	}
	doc = strings.TrimLeft(doc, " \t\r\n:\"")
	return !strings.HasPrefix(doc, "query") && !strings.HasPrefix(doc, "{")
}

// paced spaces one installation's content-creating requests by its write
// budget and bounds the requests in flight of every client sharing
// inFlight.
type paced struct {
	base         http.RoundTripper
	installation int64
	budget       WriteBudget   // nil: writes are not paced
	inFlight     chan struct{} // nil: unbounded
	rates        *RateBook     // nil: not observed
	sleep        func(ctx context.Context, d time.Duration) error
}

func (p *paced) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if p.budget != nil && contentCreating(req) {
		wait, err := p.budget.ReserveWrite(ctx, p.installation)
		if err != nil {
			return nil, retry.Transient(fmt.Errorf("booking a write of installation %d: %w", p.installation, err))
		}
		if wait > 0 {
			metrics.WriteWait(wait)
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				// The job would end waiting: let the queue run it again
				// when the slot comes instead of holding a worker.
				return nil, &retry.RateLimitError{RetryAfter: wait,
					Err: fmt.Errorf("installation %d's writes are booked %s ahead", p.installation, wait.Round(time.Second))}
			}
			if err := p.sleep(ctx, wait); err != nil {
				return nil, err
			}
		}
	}
	if p.inFlight != nil {
		select {
		case p.inFlight <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-p.inFlight }()
	}
	resp, err := p.base.RoundTrip(req)
	if resp != nil {
		p.rates.observe(p.installation, resp.Header)
	}
	return resp, err
}
