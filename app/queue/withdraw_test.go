package queue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// withdrawer is the recorder that also settles withdrawals.
type withdrawer struct {
	*recorder
	mu        sync.Mutex
	withdrawn []jobs.WithdrawArgs
}

func (w *withdrawer) Withdraw(_ context.Context, a jobs.WithdrawArgs) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.withdrawn = append(w.withdrawn, a)
	return nil
}

// A withdrawal shares its sign-off's coalescing key: a verification of the
// sign-off still waiting when it was deleted is superseded, one of another
// sign-off is not.
func TestWithdrawalSupersedesWaitingVerifications(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		ctx := context.Background()
		intake := startIntake(t, st, nil)
		for _, d := range []queue.Delivery{
			verifyDelivery("edit", 9, "issuecomment-55"),
			verifyDelivery("other", 9, "issuecomment-56"),
			{Delivery: store.Delivery{ID: "delete", Event: "issue_comment", Repo: "o/r", PR: 9, Received: time.Now()},
				Jobs: []jobs.Args{jobs.WithdrawArgs{Repo: repo, PR: 9, SignOff: ref("issuecomment-55"), How: "deleted", ActorLogin: "a"}}},
		} {
			if out, err := intake.Enqueue(ctx, d); err != nil || out != queue.Queued {
				t.Fatalf("Enqueue %s = %v, %v", d.ID, out, err)
			}
		}
		if err := intake.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		w := &withdrawer{recorder: &recorder{}}
		q, err := queue.New(ctx, st, queue.Options{Verifier: w, Reuse: w, Welcomer: w, Logger: quiet,
			RetryPolicy: fastRetry{}, BusyRetry: 20 * time.Millisecond, FetchPollInterval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := q.Stop(stop); err != nil {
				t.Errorf("stopping queue: %v", err)
			}
		})
		waitFor(t, "the withdrawal", func() bool { w.mu.Lock(); defer w.mu.Unlock(); return len(w.withdrawn) == 1 })
		waitFor(t, "the other verification", func() bool { v, _, _ := w.calls(); return v == 1 })
		time.Sleep(300 * time.Millisecond)
		w.recorder.mu.Lock()
		defer w.recorder.mu.Unlock()
		if len(w.verifies) != 1 || w.verifies[0].SignOff.Key() != "issuecomment-56" {
			t.Fatalf("verified %+v; want only the other sign-off", w.verifies)
		}
		if g := w.withdrawn[0].Generation; g != 2 {
			t.Errorf("withdrawal generation %d, want 2 (after the edit's)", g)
		}
	})
}
