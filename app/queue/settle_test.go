package queue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// settler records what each pass was told of two PRs.
type settler struct {
	mu     sync.Mutex
	passes []map[string]bool
}

func (s *settler) SettleRuns(_ context.Context, pending func(string) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.passes = append(s.passes, map[string]bool{"busy": pending(jobs.PRKey(repo, 1)), "idle": pending(jobs.PRKey(repo, 2))})
	return nil
}

// TestSettlePassSeesPendingVerifications: the pass that completes check
// runs left open is told which PRs still have a verification to run, so
// it leaves their runs to them, at start and then periodically.
func TestSettlePassSeesPendingVerifications(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		intake := startIntake(t, st, nil)
		if _, err := intake.Enqueue(context.Background(), verifyDelivery("waiting", 1, "issuecomment-1")); err != nil {
			t.Fatal(err)
		}
		if err := intake.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		defer close(release)
		rec := &recorder{verify: func(int, jobs.VerifyArgs) error { <-release; return nil }}
		s := &settler{}
		startQueue(t, st, rec, queue.Options{Runs: s, SettleEvery: 50 * time.Millisecond})
		waitFor(t, "a pass while the verification runs", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			v, _, _ := rec.calls()
			return v == 1 && len(s.passes) > 1
		})
		s.mu.Lock()
		defer s.mu.Unlock()
		last := s.passes[len(s.passes)-1]
		if !last["busy"] || last["idle"] {
			t.Errorf("pending = %v; want only the PR whose verification runs", last)
		}
	})
}
