package queue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// passes counts recovery passes and whether two ever ran at once.
type passes struct {
	mu      sync.Mutex
	n       int
	running int
	overlap bool
}

func (p *passes) Recover(ctx context.Context) error {
	p.mu.Lock()
	p.n++
	p.running++
	if p.running > 1 {
		p.overlap = true
	}
	p.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	p.mu.Lock()
	p.running--
	p.mu.Unlock()
	return nil
}

func (p *passes) count() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.overlap
}

// Recovery runs once at start and then periodically, and with several
// processes on one PostgreSQL database only their leader schedules it: the
// passes are those of one schedule, never two at once.
func TestRecoveryIsPeriodicOnOneProcess(t *testing.T) {
	const every = 300 * time.Millisecond
	t.Run("sqlite", func(t *testing.T) {
		p := &passes{}
		startQueue(t, openStore(t, storetest.SQLiteURL(t)), &recorder{}, queue.Options{Recoverer: p, RecoverEvery: every})
		waitPasses(t, p, 2)
	})
	t.Run("postgres", func(t *testing.T) {
		url := storetest.PostgresURL(t)
		p := &passes{}
		start := time.Now()
		for range 3 {
			startQueue(t, openStore(t, url), &recorder{}, queue.Options{Recoverer: p, RecoverEvery: every})
		}
		waitPasses(t, p, 3)
		time.Sleep(time.Second)
		n, overlap := p.count()
		// One schedule: at most a pass per interval, plus the one at start.
		if limit := int(time.Since(start)/every) + 2; n > limit || overlap {
			t.Errorf("%d passes in %v (at most %d for one schedule), overlapping: %v", n, time.Since(start), limit, overlap)
		}
	})
}

func waitPasses(t *testing.T, p *passes, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n, _ := p.count(); n >= want {
			return
		}
		if time.Now().After(deadline) {
			n, _ := p.count()
			t.Fatalf("%d recovery passes after 30s, want %d", n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Without an interval no pass runs.
func TestRecoveryOff(t *testing.T) {
	p := &passes{}
	startQueue(t, openStore(t, storetest.SQLiteURL(t)), &recorder{}, queue.Options{Recoverer: p})
	time.Sleep(1500 * time.Millisecond)
	if n, _ := p.count(); n != 0 {
		t.Errorf("%d passes with recovery off", n)
	}
}
