package queue_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// TestConcurrentIntakeDecidesAsInTurn: deliveries for a few sign-offs,
// each delivered twice (GitHub redelivers), sent at once from many
// goroutines so that batches commit side by side (on PostgreSQL), are
// stored exactly as one commit after another would: each ID once, each
// sign-off's generation counting its deliveries, and one job per sign-off
// that verifies with its newest request.
func TestConcurrentIntakeDecidesAsInTurn(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		ctx := context.Background()
		// A failed group commit (a deadlock between batches, say) is
		// retried one delivery at a time and would still store the right
		// rows; the log says whether any failed.
		var logged syncBuffer
		intake := startIntake(t, st, slog.New(slog.NewTextHandler(&logged, nil)))
		const keys, events = 8, 25
		var sends []queue.Delivery
		for k := range keys {
			for e := range events {
				d := verifyDelivery(fmt.Sprintf("k%d-e%d", k, e), 10+k, fmt.Sprint("issuecomment-", 700+k))
				sends = append(sends, d, d)
			}
		}
		rand.Shuffle(len(sends), func(i, j int) { sends[i], sends[j] = sends[j], sends[i] })
		var mu sync.Mutex
		stored := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, len(sends))
		for _, d := range sends {
			wg.Go(func() {
				out, err := intake.Enqueue(ctx, d)
				if err != nil {
					errs <- err
					return
				}
				if out != queue.Duplicate {
					mu.Lock()
					stored[d.ID]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("enqueue: %v", err)
		}
		if err := intake.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(logged.String(), "group commit failed") {
			t.Fatalf("group commits failed:\n%s", logged.String())
		}
		if len(stored) != keys*events {
			t.Fatalf("%d delivery IDs stored, want %d", len(stored), keys*events)
		}
		for id, n := range stored {
			if n != 1 {
				t.Fatalf("delivery %s stored %d times", id, n)
			}
		}
		for k := range keys {
			key := verifyDelivery("", 10+k, fmt.Sprint("issuecomment-", 700+k)).Jobs[0].(jobs.VerifyArgs).CoalesceKey()
			if g, err := st.Generation(ctx, key); err != nil || g != events {
				t.Fatalf("generation of %s is %d (%v), want %d", key, g, err, events)
			}
		}
		rec := &recorder{}
		startQueue(t, st, rec, queue.Options{})
		waitFor(t, "a verification per sign-off", func() bool { v, _, _ := rec.calls(); return v >= keys })
		time.Sleep(300 * time.Millisecond)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.verifies) != keys {
			t.Fatalf("%d verifications for %d sign-offs", len(rec.verifies), keys)
		}
		for _, v := range rec.verifies {
			if v.Generation != events {
				t.Fatalf("%s verified with generation %d (%s), want its newest, %d", v.SignOff.Key(), v.Generation, v.DeliveryID, events)
			}
		}
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestIntakeHasConnectionsOfItsOwn: on PostgreSQL, a delivery is stored
// while running jobs and River hold every connection of the main pool.
func TestIntakeHasConnectionsOfItsOwn(t *testing.T) {
	st := openStore(t, storetest.PostgresURL(t))
	ctx := context.Background()
	intake := startIntake(t, st, nil)
	defer intake.Stop(ctx)
	pool := st.Pgx()
	for range pool.Config().MaxConns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if out, err := intake.Enqueue(short, verifyDelivery("while-busy", 3, "issuecomment-9")); err != nil || out != queue.Queued {
		t.Fatalf("delivery with the main pool exhausted: %q, %v", out, err)
	}
}

// TestRetryVerifiesWithTheClaimedArguments: a job that claimed the
// newest request folded into it writes that request into itself, so its
// retry, when the pending record is gone, verifies the same request.
// Without that write the retry carries its first request's generation,
// looks superseded and never verifies.
func TestRetryVerifiesWithTheClaimedArguments(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		ctx := context.Background()
		intake := startIntake(t, st, nil)
		for i := range 3 {
			if _, err := intake.Enqueue(ctx, verifyDelivery(fmt.Sprint("fold-", i), 4, "issuecomment-40")); err != nil {
				t.Fatal(err)
			}
		}
		if err := intake.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{verify: func(n int, _ jobs.VerifyArgs) error {
			if n == 1 {
				return retry.Transient(errors.New("502"))
			}
			return nil
		}}
		startQueue(t, st, rec, queue.Options{})
		waitFor(t, "the retry", func() bool { v, _, _ := rec.calls(); return v >= 2 })
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for i, v := range rec.verifies {
			if v.DeliveryID != "fold-2" || v.Generation != 3 {
				t.Fatalf("attempt %d verified %s (generation %d), want fold-2 (3)", i+1, v.DeliveryID, v.Generation)
			}
		}
	})
}
