package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// queued waits until the gate has n waiters.
func queued(t *testing.T, g *gate, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		got := len(g.urgent) + len(g.waiting)
		g.mu.Unlock()
		if got == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("gate never had %d waiters", n)
}

func TestGateUrgentGoesFirst(t *testing.T) {
	g := &gate{}
	ctx := context.Background()
	if err := g.lock(ctx, false); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	enter := func(name string, urgent bool) {
		wg.Go(func() {
			if err := g.lock(ctx, urgent); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			g.unlock()
		})
	}
	enter("first", false)
	queued(t, g, 1)
	enter("second", false)
	queued(t, g, 2)
	enter("urgent", true)
	queued(t, g, 3)
	g.unlock()
	wg.Wait()
	if fmt.Sprint(order) != "[urgent first second]" {
		t.Fatalf("gate taken in order %v, want [urgent first second]", order)
	}
	if g.held {
		t.Fatal("gate still held after everyone left")
	}
}

func TestGateWaitEndsWithContext(t *testing.T) {
	g := &gate{}
	if err := g.lock(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.lock(ctx, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock with an ended context: %v", err)
	}
	g.unlock()
	if g.held || len(g.urgent) > 0 {
		t.Fatal("a waiter that gave up kept its place")
	}
	if err := g.lock(context.Background(), false); err != nil {
		t.Fatal(err)
	}
}

// TestIntakeAndStoreConnectionsNeverCollide: transactions that read before
// they write fail at once with SQLITE_BUSY when another connection commits
// in between (no busy timeout helps); through the gate, River's and the
// store's connection and intake's never overlap, so none fails.
func TestIntakeAndStoreConnectionsNeverCollide(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.IntakeSQL() == s.SQL() {
		t.Fatal("intake shares the store's connection on a file database")
	}
	readThenWrite := func(begin func() (Execer, func() error, func() error, error), key string) error {
		ex, commit, rollback, err := begin()
		if err != nil {
			return err
		}
		var g int64
		if err := ex.QueryRow(ctx, `SELECT COUNT(*) FROM verdict_generation`).Scan(&g); err != nil {
			rollback()
			return err
		}
		time.Sleep(100 * time.Microsecond)
		if _, err := NextGeneration(ctx, ex, key); err != nil {
			rollback()
			return err
		}
		return commit()
	}
	onStore := func() (Execer, func() error, func() error, error) {
		tx, err := s.SQL().BeginTx(ctx, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		return s.SQLTx(tx), tx.Commit, tx.Rollback, nil
	}
	onIntake := func() (Execer, func() error, func() error, error) {
		tx, err := s.IntakeSQL().BeginTx(ctx, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		return s.IntakeSQLTx(tx), tx.Commit, tx.Rollback, nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w, begin := range []func() (Execer, func() error, func() error, error){onStore, onIntake, onStore, onIntake} {
		wg.Go(func() {
			for i := range 100 {
				if err := readThenWrite(begin, fmt.Sprint("k", w, "-", i%7)); err != nil {
					errs <- fmt.Errorf("writer %d, transaction %d: %w", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := s.DB().QueryRow(ctx, `SELECT SUM(generation) FROM verdict_generation`).Scan(&n); err != nil || n != 400 {
		t.Fatalf("generations sum to %d (%v), want 400", n, err)
	}
}

// TestCheckpointerBoundsTheWAL: with automatic checkpoints off on the
// writing connections, the checkpointer keeps starting the WAL over while
// commits keep coming; without it the WAL would hold every page written.
func TestCheckpointerBoundsTheWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	s, err := Open(ctx, "sqlite://"+path+"?synchronous=OFF")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("x", 50<<10)
	const commits = 800 // 40 MB
	var largest int64
	start := time.Now()
	for i := range commits {
		d := Delivery{ID: fmt.Sprint("d", i), Event: "e", Action: big, Received: time.Now(), Outcome: "ignored"}
		if _, err := InsertDelivery(ctx, s.DB(), d); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err == nil {
			largest = max(largest, fi.Size())
		}
		// Spread over about 2 s: ten checkpoint periods.
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 10 * checkpointEvery / commits)))
	}
	if written := int64(commits * len(big)); largest > written/2 {
		t.Fatalf("WAL grew to %d bytes for %d written", largest, written)
	} else {
		t.Logf("WAL at most %d bytes for %d written", largest, written)
	}
}
