package queue

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
)

// heldCommits is a committer whose commits wait until released, recording
// how many ran at once.
type heldCommits struct {
	mu            sync.Mutex
	inFlight, max int
	stored        int
	release       chan struct{}
	began         chan struct{}
}

func (h *heldCommits) commit(ctx context.Context, batch []*request) error {
	h.mu.Lock()
	h.inFlight++
	h.max = max(h.max, h.inFlight)
	h.mu.Unlock()
	h.began <- struct{}{}
	<-h.release
	h.mu.Lock()
	h.inFlight--
	h.stored += len(batch)
	h.mu.Unlock()
	return nil
}

// TestBatcherCommitsSideBySideUpToItsSlots: with n slots, n batches are
// stored at once and never more, a delivery arriving while they are is
// stored in a later batch, and stop waits for the commits in flight.
func TestBatcherCommitsSideBySideUpToItsSlots(t *testing.T) {
	for _, slots := range []int{1, 3} {
		t.Run(fmt.Sprint(slots, " slots"), func(t *testing.T) {
			h := &heldCommits{release: make(chan struct{}), began: make(chan struct{}, 64)}
			b := newBatcher(h, time.Millisecond, 256, slots, slog.New(slog.NewTextHandler(io.Discard, nil)))
			b.start()
			const n = 12
			var wg sync.WaitGroup
			errs := make(chan error, n)
			submit := func(i int) {
				wg.Go(func() {
					_, err := b.submit(context.Background(), Delivery{Delivery: store.Delivery{ID: fmt.Sprint("d-", i)}})
					errs <- err
				})
			}
			// One delivery per batch while the slots fill: each waits
			// until the previous batch's commit began.
			for i := range slots {
				submit(i)
				select {
				case <-h.began:
				case <-time.After(5 * time.Second):
					t.Fatalf("commit %d did not begin with a slot free", i+1)
				}
			}
			for i := slots; i < n; i++ {
				submit(i)
			}
			// The remaining deliveries wait for a slot; none may begin.
			select {
			case <-h.began:
				t.Fatalf("a commit began with all %d slots taken", slots)
			case <-time.After(50 * time.Millisecond):
			}
			stopped := make(chan struct{})
			go func() { b.stop(); close(stopped) }()
			select {
			case <-stopped:
				t.Fatal("stop returned with commits in flight")
			case <-time.After(50 * time.Millisecond):
			}
			close(h.release)
			wg.Wait()
			<-stopped
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("submit: %v", err)
				}
			}
			if h.max != slots || h.stored != n {
				t.Fatalf("%d commits at once and %d deliveries stored; want %d and %d", h.max, h.stored, slots, n)
			}
		})
	}
}
