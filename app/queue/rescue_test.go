package queue_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// storeJob stores one verification job of at most maxAttempts without
// working it.
func storeJob(t *testing.T, st *store.Store, id string, maxAttempts int) {
	t.Helper()
	ctx := context.Background()
	intake, err := queue.New(ctx, st, queue.Options{InsertOnly: true, Logger: quiet, MaxAttempts: maxAttempts})
	if err != nil {
		t.Fatal(err)
	}
	if err := intake.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := intake.Enqueue(ctx, verifyDelivery(id, 1, "issuecomment-1")); err != nil {
		t.Fatal(err)
	}
	if err := intake.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// dieWhileRunning leaves the stored job as a process killed during its
// attempt leaves it: running, attempted by a client that no longer exists.
func dieWhileRunning(t *testing.T, st *store.Store, attempt int) {
	t.Helper()
	q := `UPDATE river_job SET state = 'running', attempt = $1, attempted_at = now(), attempted_by = ARRAY['dead-client']`
	if st.Dialect() == store.SQLite {
		q = `UPDATE river_job SET state = 'running', attempt = $1,
			attempted_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), attempted_by = jsonb('["dead-client"]')`
	}
	if n, err := st.DB().Exec(context.Background(), q, attempt); err != nil || n != 1 {
		t.Fatalf("marking the job running: %d rows, %v", n, err)
	}
}

func jobState(t *testing.T, st *store.Store) (state string, attempt int) {
	t.Helper()
	if err := st.DB().QueryRow(context.Background(), `SELECT state, attempt FROM river_job`).Scan(&state, &attempt); err != nil {
		t.Fatal(err)
	}
	return state, attempt
}

// TestJobOfDeadProcessResumesAtOnce: a restart (or, on PostgreSQL, any
// other process) resumes the job without waiting for River's stuck-job
// rescue, and the verifier knows it is a retry.
func TestJobOfDeadProcessResumesAtOnce(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		storeJob(t, st, "dead", 10)
		dieWhileRunning(t, st, 1)
		rec := &recorder{}
		startQueue(t, st, rec, queue.Options{OrphanCheck: 50 * time.Millisecond})
		waitFor(t, "the resumed verification", func() bool { v, _, _ := rec.calls(); return v == 1 })
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if at := rec.attempts[0]; at.Number != 2 || !at.Retry() {
			t.Errorf("attempt = %+v; want the second, a retry", at)
		}
	})
}

// TestLastAttemptDiedAbandons: a job whose last attempt died is not run a
// further time but settled by the verifier as given up.
func TestLastAttemptDiedAbandons(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		storeJob(t, st, "exhausted", 3)
		dieWhileRunning(t, st, 3)
		rec := &recorder{}
		startQueue(t, st, rec, queue.Options{})
		waitFor(t, "the abandonment", func() bool { rec.mu.Lock(); defer rec.mu.Unlock(); return len(rec.abandons) == 1 })
		if v, _, _ := rec.calls(); v != 0 {
			t.Errorf("verified %d times after the attempts ran out", v)
		}
		if !strings.Contains(rec.abandons[0].Error(), "gave up after 3 attempts") {
			t.Errorf("cause = %v", rec.abandons[0])
		}
	})
}

// TestLiveProcessKeepsItsJob: on PostgreSQL a process does not take over
// a job another live process is running.
func TestLiveProcessKeepsItsJob(t *testing.T) {
	url := storetest.PostgresURL(t)
	release := make(chan struct{})
	rec := &recorder{verify: func(int, jobs.VerifyArgs) error { <-release; return nil }}
	a := startQueue(t, openStore(t, url), rec, queue.Options{})
	if _, err := a.Enqueue(context.Background(), verifyDelivery("live", 1, "issuecomment-1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first run", func() bool { v, _, _ := rec.calls(); return v == 1 })
	other := &recorder{}
	startQueue(t, openStore(t, url), other, queue.Options{OrphanCheck: 20 * time.Millisecond})
	time.Sleep(300 * time.Millisecond)
	close(release)
	if v, _, _ := other.calls(); v != 0 {
		t.Fatalf("a second process ran a job its live owner was running")
	}
}

// TestGivingUpAbandons: a final error, or a transient one on the last
// attempt, hands the verification to the abandoner exactly once.
func TestGivingUpAbandons(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"final", errString("sign-off deleted")},
		{"attempts exhausted", retry.Transient(context.DeadlineExceeded)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, storetest.SQLiteURL(t))
			rec := &recorder{verify: func(int, jobs.VerifyArgs) error { return tc.err }}
			q := startQueue(t, st, rec, queue.Options{MaxAttempts: 2})
			if _, err := q.Enqueue(context.Background(), verifyDelivery("give-up", 1, "issuecomment-1")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the abandonment", func() bool { rec.mu.Lock(); defer rec.mu.Unlock(); return len(rec.abandons) == 1 })
			time.Sleep(200 * time.Millisecond)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.abandons) != 1 {
				t.Errorf("abandoned %d times", len(rec.abandons))
			}
		})
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestShutdown: Stop lets a running verification finish (no attempt
// spent); one that outlasts the grace is cancelled and comes back at the
// next start as a first attempt, not a retry.
func TestShutdown(t *testing.T) {
	t.Run("finishes within the grace", func(t *testing.T) {
		st := openStore(t, storetest.SQLiteURL(t))
		rec := &recorder{hold: 300 * time.Millisecond}
		q, err := newQueue(st, rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Enqueue(context.Background(), verifyDelivery("soft", 1, "issuecomment-1")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the verification", func() bool { v, _, _ := rec.calls(); return v == 1 })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if state, attempt := jobState(t, st); state != "completed" || attempt != 1 {
			t.Errorf("job %s after attempt %d; want completed at the first", state, attempt)
		}
	})
	t.Run("grace runs out", func(t *testing.T) {
		st := openStore(t, storetest.SQLiteURL(t))
		rec := &recorder{hold: time.Hour}
		q, err := newQueue(st, rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Enqueue(context.Background(), verifyDelivery("hard", 1, "issuecomment-1")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the verification", func() bool { v, _, _ := rec.calls(); return v == 1 })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		q.Stop(ctx)
		if state, attempt := jobState(t, st); (state != "available" && state != "scheduled") || attempt != 0 {
			t.Errorf("job %s after attempt %d; want waiting, no attempt spent", state, attempt)
		}
		next := &recorder{}
		startQueue(t, st, next, queue.Options{})
		waitFor(t, "the resumed verification", func() bool { v, _, _ := next.calls(); return v == 1 })
		if at := next.attempts[0]; at.Retry() {
			t.Errorf("attempt after an interrupted shutdown = %+v; want a first attempt", at)
		}
	})
}

func newQueue(st *store.Store, rec *recorder) (*queue.Queue, error) {
	q, err := queue.New(context.Background(), st, queue.Options{Verifier: rec, Reuse: rec, Welcomer: rec, Logger: quiet,
		RetryPolicy: fastRetry{}, FetchPollInterval: 20 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	return q, q.Start(context.Background())
}

// TestJobThatKilledItsProcessTwiceIsQuarantined: a PR whose input takes the
// process down (a fatal error, an out-of-memory kill) is not resumed into a
// third crash: the verifier settles it with why, and it is not run again.
func TestJobThatKilledItsProcessTwiceIsQuarantined(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		storeJob(t, st, "crashy", 10)
		dieWhileRunning(t, st, 2)
		// The first attempt died too and was resumed.
		q := `UPDATE river_job SET errors = ARRAY['{"at":"2026-12-01T00:00:00Z","attempt":1,"error":"resumed by a: the process running this attempt (b) is gone"}'::jsonb]`
		if st.Dialect() == store.SQLite {
			q = `UPDATE river_job SET errors = jsonb('[{"at":"2026-12-01T00:00:00Z","attempt":1,"error":"resumed by a: the process running this attempt (b) is gone"}]')`
		}
		if _, err := st.DB().Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		startQueue(t, st, rec, queue.Options{})
		waitFor(t, "the quarantine", func() bool { rec.mu.Lock(); defer rec.mu.Unlock(); return len(rec.abandons) == 1 })
		if v, _, _ := rec.calls(); v != 0 {
			t.Errorf("verified %d times after two crashes", v)
		}
		if !strings.Contains(rec.abandons[0].Error(), "quarantined: 2 attempts ended with their process") {
			t.Errorf("cause = %v", rec.abandons[0])
		}
		waitFor(t, "the job cancelled", func() bool { s, _ := jobState(t, st); return s == "cancelled" })
	})
}
