package ghsource

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// What a verification builds from the bytes it reads, per byte read: a
// master config's YAML parsed into nodes and the models built on them
// (measured: about 18 MiB of heap per MiB of config), an artifact entry's
// JSON decoded.
const (
	fileExpansion     = 18
	artifactExpansion = 4
	// memoryFloor: smaller reads are not booked, their cost being noise.
	memoryFloor = 256 << 10
)

// Memory is one process's budget for what its concurrent verifications
// build from the files and artifact entries they read. A verification
// books each large read's estimated cost before using it and gives all of
// it back when it ends (Source.Release); one that cannot book within the
// wait gives up for now with a transient error, which the queue retries
// later. A read whose cost exceeds the whole budget can never be admitted:
// it is refused as too large, and the row says so.
type Memory struct {
	sem   *semaphore.Weighted
	total int64
	wait  time.Duration
}

// NewMemory is a budget of total bytes; a booking waits at most wait.
func NewMemory(total int64, wait time.Duration) *Memory {
	return &Memory{sem: semaphore.NewWeighted(total), total: total, wait: wait}
}

// Total is the budget's size in bytes.
func (m *Memory) Total() int64 { return m.total }

// booked is what one Source holds of the process's memory budget.
type booked struct {
	mu    sync.Mutex
	keys  map[string]bool
	bytes int64
}

// book reserves cost bytes for key (once per key per verification).
func (s *Source) book(ctx context.Context, key string, cost int64, what string) error {
	m := s.o.Memory
	if m == nil || cost < memoryFloor {
		return nil
	}
	b := &s.booked
	b.mu.Lock()
	if b.keys[key] {
		b.mu.Unlock()
		return nil
	}
	if b.keys == nil {
		b.keys = map[string]bool{}
	}
	b.keys[key] = true // pending: a concurrent reader of the same key waits on nothing
	b.mu.Unlock()
	unmark := func() {
		b.mu.Lock()
		delete(b.keys, key)
		b.mu.Unlock()
	}
	if cost > m.total {
		unmark()
		return fmt.Errorf("%s: needs about %d bytes of memory, more than this process's %d-byte budget (VERDICT_MEMORY_BUDGET): %w",
			what, cost, m.total, checks.ErrTooLarge)
	}
	wctx, cancel := context.WithTimeout(ctx, m.wait)
	defer cancel()
	start := time.Now()
	if err := m.sem.Acquire(wctx, cost); err != nil {
		unmark()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		metrics.MemoryAdmission("deferred", time.Since(start))
		err := retry.Transient(fmt.Errorf("%s: this process's memory budget (%d bytes) is taken by other verifications: %w",
			what, m.total, errMemoryBusy))
		// Like GitHub being unreachable: the verification stops and is
		// retried; no row is judged without the read.
		s.noteTransient(err)
		return err
	}
	metrics.MemoryAdmission("admitted", time.Since(start))
	metrics.MemoryBooked(cost)
	b.mu.Lock()
	b.bytes += cost
	b.mu.Unlock()
	return nil
}

var errMemoryBusy = errors.New("memory budget busy")

// Release gives back what this verification booked of the process's
// memory budget. The verifier calls it when the verification ends; the
// Source must not be read after.
func (s *Source) Release() {
	b := &s.booked
	b.mu.Lock()
	n := b.bytes
	b.bytes, b.keys = 0, nil
	b.mu.Unlock()
	if n > 0 && s.o.Memory != nil {
		s.o.Memory.sem.Release(n)
		metrics.MemoryBooked(-n)
	}
}
