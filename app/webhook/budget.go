package webhook

import (
	"context"
	"sync"
	"time"
)

// Reading a body comes before its signature can be checked, so anyone who
// can reach the port can make the server hold bodies. The budget bounds
// what all unauthenticated bodies hold at once, in bytes, and (through a
// minimum reservation) in number.
const (
	// DefaultBodyBudget lets two bodies of GitHub's maximum size, or
	// hundreds of ordinary deliveries, be read at once.
	DefaultBodyBudget = 2 * MaxBody
	// DefaultBodyWait is how long a delivery waits for budget before it is
	// answered 503; GitHub's own delivery timeout is 10 s.
	DefaultBodyWait = 2 * time.Second
	// bodyStep is the unit in which a body's bytes are charged as they
	// arrive; it bounds how many bodies are read at once however small
	// they are.
	bodyStep = 64 << 10
	// firstRead is what a body may send before it is charged: a sender
	// that opens connections and sends nothing holds no budget.
	firstRead = 4 << 10
	// DefaultBodyGrace and DefaultMinBodyRate: a body must arrive at 16
	// KiB/s or faster after its first 5 s. GitHub sends a delivery at
	// once; a sender that trickles is cut off.
	DefaultBodyGrace   = 5 * time.Second
	DefaultMinBodyRate = 16 << 10
)

// budget is a byte semaphore without FIFO order: a small delivery may
// take bytes a large waiting one cannot, so big bodies do not starve
// ordinary ones.
type budget struct {
	mu    sync.Mutex
	free  int64
	freed chan struct{} // closed (and replaced) whenever bytes come back
}

func newBudget(n int64) *budget {
	return &budget{free: n, freed: make(chan struct{})}
}

// acquire takes n bytes, waiting at most wait (or until ctx ends); false
// means it did not get them.
func (b *budget) acquire(ctx context.Context, n int64, wait time.Duration) bool {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if n <= b.free {
			b.free -= n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}
