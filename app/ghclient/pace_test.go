package ghclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/retry"
)

func TestTokenBucket(t *testing.T) {
	b := TokenBucket{Rate: 1, Burst: 3}
	t0 := time.Unix(1_800_000_000, 0)
	tokens, last := 3.0, t0
	var waits []time.Duration
	for range 5 {
		var w time.Duration
		tokens, w = b.Take(tokens, last, t0)
		waits = append(waits, w)
	}
	want := []time.Duration{0, 0, 0, time.Second, 2 * time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
	// 10 s later the debt of 2 is repaid and the bucket is full again.
	if tokens, w := b.Take(tokens, t0, t0.Add(10*time.Second)); w != 0 || tokens != 2 {
		t.Errorf("after 10 s: %v tokens, wait %s", tokens, w)
	}
	// A clock behind the last booking refills nothing.
	if _, w := b.Take(0, t0, t0.Add(-time.Minute)); w != time.Second {
		t.Errorf("clock behind: wait %s", w)
	}
}

// The paced transport holds writes to the budget, lets reads and GraphQL
// queries through, and never has more than MaxInFlight requests out.
func TestPacedTransport(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
	}))
	defer srv.Close()
	now := time.Unix(1_800_000_000, 0)
	budget := NewWriteBudget(60, 2, func() time.Time { return now })
	var slept []time.Duration
	var mu sync.Mutex
	p := &paced{base: http.DefaultTransport, installation: 7, budget: budget, inFlight: make(chan struct{}, 3),
		sleep: func(_ context.Context, d time.Duration) error {
			mu.Lock()
			slept = append(slept, d)
			mu.Unlock()
			return nil
		}}
	do := func(ctx context.Context, method, path string) error {
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, nil)
		resp, err := p.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, r := range []struct{ method, path string }{
		{"POST", "/repos/o/r/issues/1/comments"}, {"PATCH", "/repos/o/r/issues/comments/2"},
		{"GET", "/repos/o/r/pulls/1"}, {"POST", "/graphql"}, {"POST", "/repos/o/r/statuses/abc"},
		{"DELETE", "/repos/o/r/issues/comments/3"},
	} {
		if err := do(context.Background(), r.method, r.path); err != nil {
			t.Fatal(err)
		}
	}
	// Four writes against a burst of two at one a second: the third and
	// fourth wait 1 s and 2 s; the read and the GraphQL query book nothing.
	if len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
		t.Errorf("slept %v, want [1s 2s]", slept)
	}
	// A job that would end before its slot hands the wait to the queue.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := do(ctx, "POST", "/repos/o/r/check-runs")
	if d, ok := retry.After(err); !ok || d != 3*time.Second || !retry.IsTransient(err) {
		t.Errorf("booked past the deadline: %v (after %s)", err, d)
	}
	// Reads are bounded in flight too.
	var wg sync.WaitGroup
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := do(context.Background(), "GET", "/x"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := peak.Load(); got > 3 || got < 2 {
		t.Errorf("peak in flight %d, want 3 at most (and the bound reached)", got)
	}
	// A budget that cannot be read is a transient failure.
	p.budget = failingBudget{}
	if err := do(context.Background(), "POST", "/x"); !retry.IsTransient(err) {
		t.Errorf("unreadable budget: %v", err)
	}
}

type failingBudget struct{}

func (failingBudget) ReserveWrite(context.Context, int64) (time.Duration, error) {
	return 0, errors.New("database gone")
}

// A GraphQL request is a write when its document is a mutation.
func TestGraphQLMutationIsContentCreating(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"query":"query($id:ID!){node(id: $id){id}}","variables":{"id":"IC_1"}}`, false},
		{`{"query":"{viewer{login}}"}`, false},
		{`{"query":"mutation($input:MinimizeCommentInput!){minimizeComment(input:$input){clientMutationId}}"}`, true},
		{`{ "query": "mutation{x}"}`, true},
	} {
		req, _ := http.NewRequest("POST", "https://api.github.com/graphql", strings.NewReader(tc.body))
		if got := contentCreating(req); got != tc.want {
			t.Errorf("%s: content-creating %v, want %v", tc.body, got, tc.want)
		}
		// The copy leaves the body to send intact.
		if b, _ := io.ReadAll(req.Body); string(b) != tc.body {
			t.Errorf("body after the check: %q", b)
		}
	}
}
