package queue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fastRetry retries 10ms after any failure so tests do not wait River's
// default attempt^4 seconds.
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(10 * time.Millisecond) }

// recorder is a fake Verifier/ReuseAcknowledger/Welcomer that records calls
// and tracks how many run at once per PR.
type recorder struct {
	mu       sync.Mutex
	verifies []jobs.VerifyArgs
	reuses   []jobs.ReuseArgs
	welcomes []jobs.WelcomeArgs
	running  map[int]int
	maxPerPR int
	overlap  bool // two different PRs ran at once
	hold     time.Duration
	verify   func(n int, a jobs.VerifyArgs) error // n = 1-based call number
	attempts []jobs.Attempt
	abandons []error
}

func (r *recorder) Abandon(_ context.Context, _ jobs.VerifyArgs, cause error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.abandons = append(r.abandons, cause)
	return nil
}

func (r *recorder) Verify(ctx context.Context, a jobs.VerifyArgs, at jobs.Attempt) error {
	r.mu.Lock()
	if r.running == nil {
		r.running = map[int]int{}
	}
	r.verifies = append(r.verifies, a)
	r.attempts = append(r.attempts, at)
	n := len(r.verifies)
	r.running[a.PR]++
	if r.running[a.PR] > r.maxPerPR {
		r.maxPerPR = r.running[a.PR]
	}
	busy := 0
	for _, c := range r.running {
		if c > 0 {
			busy++
		}
	}
	if busy > 1 {
		r.overlap = true
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running[a.PR]--
		r.mu.Unlock()
	}()
	if r.hold > 0 {
		select {
		case <-time.After(r.hold):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if r.verify != nil {
		return r.verify(n, a)
	}
	return nil
}

func (r *recorder) Acknowledge(_ context.Context, a jobs.ReuseArgs) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reuses = append(r.reuses, a)
	return nil
}

func (r *recorder) Welcome(_ context.Context, a jobs.WelcomeArgs) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.welcomes = append(r.welcomes, a)
	return nil
}

func (r *recorder) calls() (v, ru, w int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.verifies), len(r.reuses), len(r.welcomes)
}

func openStore(t testing.TB, url string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

func startQueue(t testing.TB, st *store.Store, rec *recorder, opt queue.Options) *queue.Queue {
	t.Helper()
	opt.Verifier, opt.Reuse, opt.Welcomer = rec, rec, rec
	opt.Logger = quiet
	if opt.RetryPolicy == nil {
		opt.RetryPolicy = fastRetry{}
	}
	if opt.BusyRetry == 0 {
		opt.BusyRetry = 20 * time.Millisecond
	}
	opt.FetchPollInterval = 20 * time.Millisecond
	q, err := queue.New(context.Background(), st, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("stopping queue: %v", err)
		}
	})
	return q
}

// startIntake starts a queue that stores deliveries and runs no job (as if
// every worker were busy); the caller stops it to hand the jobs over.
func startIntake(t testing.TB, st *store.Store, log *slog.Logger) *queue.Queue {
	t.Helper()
	if log == nil {
		log = quiet
	}
	intake, err := queue.New(context.Background(), st, queue.Options{InsertOnly: true, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := intake.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return intake
}

var repo = jobs.Repo{InstallationID: 1, Owner: "o", Name: "r"}

func verifyDelivery(id string, pr int, key string) queue.Delivery {
	return queue.Delivery{
		Delivery: store.Delivery{ID: id, Event: "issue_comment", Action: "edited", Repo: "o/r", PR: pr, Received: time.Now()},
		Jobs:     []jobs.Args{jobs.VerifyArgs{Repo: repo, PR: pr, SignOff: ref(key), DeliveryID: id, Action: "edited"}},
	}
}

// ref is the sign-off a key names.
func ref(key string) signoff.Ref {
	r, err := signoff.ParseKey(key)
	if err != nil {
		panic(err)
	}
	return r
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRedeliveryRunsOnce(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		rec := &recorder{}
		q := startQueue(t, st, rec, queue.Options{})
		ctx := context.Background()
		d := verifyDelivery("dup-1", 3, "issuecomment-1")
		// Concurrent copies land in the same group commit; a later copy
		// arrives after the first was stored.
		var wg sync.WaitGroup
		dups := make(chan bool, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := q.Enqueue(ctx, d)
				if err != nil {
					t.Error(err)
				}
				dups <- out == queue.Duplicate
			}()
		}
		wg.Wait()
		close(dups)
		fresh := 0
		for dup := range dups {
			if !dup {
				fresh++
			}
		}
		if fresh != 1 {
			t.Fatalf("%d of 4 concurrent copies were stored as new", fresh)
		}
		if out, err := q.Enqueue(ctx, d); err != nil || out != queue.Duplicate {
			t.Fatalf("late redelivery: outcome=%v err=%v", out, err)
		}
		waitFor(t, "the verification", func() bool { v, _, _ := rec.calls(); return v == 1 })
		time.Sleep(200 * time.Millisecond)
		if v, _, _ := rec.calls(); v != 1 {
			t.Fatalf("verifier ran %d times, want 1", v)
		}
		got, err := st.LookupDelivery(ctx, "dup-1")
		if err != nil || got.Outcome != "queued" || got.Jobs != 1 {
			t.Fatalf("delivery log = %+v, %v", got, err)
		}
	})
}

func TestJobKindsReachTheirHandlers(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		rec := &recorder{}
		q := startQueue(t, st, rec, queue.Options{})
		d := queue.Delivery{
			Delivery: store.Delivery{ID: "mixed", Event: "issue_comment", Repo: "o/r", PR: 4, Received: time.Now()},
			Jobs: []jobs.Args{
				jobs.VerifyArgs{Repo: repo, PR: 4, SignOff: ref("issuecomment-9")},
				jobs.ReuseArgs{Repo: repo, PR: 4, CommentID: 9, Action: "created", Body: "/use 1"},
				jobs.WelcomeArgs{Repo: repo, PR: 4, Action: "opened"},
			},
		}
		if out, err := q.Enqueue(context.Background(), d); err != nil || out != queue.Queued {
			t.Fatalf("Enqueue = %v, %v; want queued", out, err)
		}
		noJobs := queue.Delivery{Delivery: store.Delivery{ID: "nothing", Event: "issue_comment", Repo: "o/r", PR: 4, Received: time.Now()}}
		if out, err := q.Enqueue(context.Background(), noJobs); err != nil || out != queue.Ignored {
			t.Fatalf("Enqueue = %v, %v; want ignored", out, err)
		}
		waitFor(t, "all three jobs", func() bool { v, r, w := rec.calls(); return v == 1 && r == 1 && w == 1 })
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if rec.reuses[0].Body != "/use 1" || rec.verifies[0].Generation != 1 {
			t.Fatalf("args lost in the queue: %+v %+v", rec.reuses[0], rec.verifies[0])
		}
		if got, err := st.LookupDelivery(context.Background(), "nothing"); err != nil || got.Outcome != "ignored" {
			t.Fatalf("no-job delivery = %+v, %v", got, err)
		}
	})
}

func TestPerPRSerialization(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		rec := &recorder{hold: 40 * time.Millisecond}
		q := startQueue(t, st, rec, queue.Options{Workers: 6})
		ctx := context.Background()
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pr := 1 + i%2 // two PRs, six distinct sign-offs each
				if _, err := q.Enqueue(ctx, verifyDelivery(fmt.Sprint("ser-", i), pr, fmt.Sprint("issuecomment-", 100+i))); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		waitFor(t, "12 verifications", func() bool { v, _, _ := rec.calls(); return v == 12 })
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if rec.maxPerPR != 1 {
			t.Fatalf("%d verifications of one PR ran at once", rec.maxPerPR)
		}
		if !rec.overlap {
			t.Fatal("different PRs never ran concurrently")
		}
	})
}

// TestSerializationAcrossProcesses runs two queues ("processes") with their
// own connection pools on one PostgreSQL schema.
func TestSerializationAcrossProcesses(t *testing.T) {
	url := storetest.PostgresURL(t)
	rec := &recorder{hold: 30 * time.Millisecond}
	a := startQueue(t, openStore(t, url), rec, queue.Options{Workers: 4})
	b := startQueue(t, openStore(t, url), rec, queue.Options{Workers: 4})
	ctx := context.Background()
	for i := range 10 {
		q := a
		if i%2 == 1 {
			q = b
		}
		if _, err := q.Enqueue(ctx, verifyDelivery(fmt.Sprint("xp-", i), 7, fmt.Sprint("issuecomment-", 200+i))); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "10 verifications", func() bool { v, _, _ := rec.calls(); return v == 10 })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.maxPerPR != 1 {
		t.Fatalf("%d verifications of one PR ran at once across processes", rec.maxPerPR)
	}
}

func TestBurstCoalesces(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		ctx := context.Background()
		// Store a burst while no worker runs (as if they were all busy).
		intake := startIntake(t, st, nil)
		for i := range 5 {
			if _, err := intake.Enqueue(ctx, verifyDelivery(fmt.Sprint("burst-", i), 9, "issuecomment-55")); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := intake.Enqueue(ctx, verifyDelivery("other", 9, "issuecomment-56")); err != nil {
			t.Fatal(err)
		}
		if err := intake.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		startQueue(t, st, rec, queue.Options{})
		waitFor(t, "two verifications", func() bool { v, _, _ := rec.calls(); return v == 2 })
		time.Sleep(300 * time.Millisecond)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.verifies) != 2 {
			t.Fatalf("burst ran %d verifications, want 2", len(rec.verifies))
		}
		got := map[string]string{}
		for _, v := range rec.verifies {
			got[v.SignOff.Key()] = v.DeliveryID
		}
		if got["issuecomment-55"] != "burst-4" || got["issuecomment-56"] != "other" {
			t.Fatalf("verified %v; want the latest event of each sign-off", got)
		}
	})
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		err       func(n int) error
		wantCalls int
	}{
		{"transient then success", func(n int) error {
			if n < 3 {
				return fmt.Errorf("GET /pulls/1: 502: %w", retry.ErrTransient)
			}
			return nil
		}, 3},
		{"rate limit waits then succeeds", func(n int) error {
			if n == 1 {
				return &retry.RateLimitError{RetryAfter: 50 * time.Millisecond, Err: errors.New("secondary rate limit")}
			}
			return nil
		}, 2},
		{"final error is not retried", func(int) error { return errors.New("sign-off comment not found") }, 1},
		{"transient until attempts run out", func(int) error { return retry.Transient(errors.New("timeout")) }, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, storetest.SQLiteURL(t))
			rec := &recorder{verify: func(n int, _ jobs.VerifyArgs) error { return tc.err(n) }}
			q := startQueue(t, st, rec, queue.Options{MaxAttempts: 3})
			if _, err := q.Enqueue(context.Background(), verifyDelivery("retry", 1, "issuecomment-1")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the expected attempts", func() bool { v, _, _ := rec.calls(); return v >= tc.wantCalls })
			time.Sleep(300 * time.Millisecond)
			if v, _, _ := rec.calls(); v != tc.wantCalls {
				t.Fatalf("verifier called %d times, want %d", v, tc.wantCalls)
			}
		})
	}
}

func TestStopStoresPendingAndRefusesNew(t *testing.T) {
	st := openStore(t, storetest.SQLiteURL(t))
	q, err := queue.New(context.Background(), st, queue.Options{InsertOnly: true, Logger: quiet, Linger: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := q.Enqueue(context.Background(), verifyDelivery("pending", 1, "issuecomment-1"))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond) // inside the linger window
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("pending delivery: %v", err)
	}
	if _, err := st.LookupDelivery(context.Background(), "pending"); err != nil {
		t.Fatalf("pending delivery not stored: %v", err)
	}
	if _, err := q.Enqueue(context.Background(), verifyDelivery("late", 1, "issuecomment-1")); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("enqueue after stop: %v", err)
	}
}

// A signed body captured and sent again under a new delivery ID is logged
// and not acted on; GitHub's own redelivery keeps the ID (a duplicate), and
// another body is new. Concurrent replays in one group commit count too.
func TestReplayedBodyUnderANewIDIsNotActedOn(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		rec := &recorder{}
		q := startQueue(t, st, rec, queue.Options{})
		ctx := context.Background()
		with := func(d queue.Delivery, body string) queue.Delivery {
			d.BodySHA256 = body
			return d
		}
		if out, err := q.Enqueue(ctx, with(verifyDelivery("orig", 3, "issuecomment-1"), "h1")); err != nil || out != queue.Queued {
			t.Fatalf("original: %v %v", out, err)
		}
		var wg sync.WaitGroup
		outs := make(chan queue.Outcome, 4)
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := q.Enqueue(ctx, with(verifyDelivery(fmt.Sprintf("replay-%d", i), 3, "issuecomment-1"), "h1"))
				if err != nil {
					t.Error(err)
				}
				outs <- out
			}()
		}
		wg.Wait()
		close(outs)
		for out := range outs {
			if out != queue.Replayed {
				t.Errorf("a replay under a new ID: %v, want replayed", out)
			}
		}
		if out, _ := q.Enqueue(ctx, with(verifyDelivery("orig", 3, "issuecomment-1"), "h1")); out != queue.Duplicate {
			t.Errorf("GitHub's redelivery: %v, want duplicate", out)
		}
		if out, _ := q.Enqueue(ctx, with(verifyDelivery("other", 3, "issuecomment-1"), "h2")); out != queue.Queued {
			t.Errorf("another body: %v, want queued", out)
		}
		waitFor(t, "the verifications", func() bool { v, _, _ := rec.calls(); return v >= 1 })
		time.Sleep(200 * time.Millisecond)
		if v, _, _ := rec.calls(); v > 2 {
			t.Errorf("verifier ran %d times; replays were acted on", v)
		}
	})
}
