package ghsource

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// Verifications book what their large reads will cost against the
// process's budget: one that does not fit waits, then gives up for now
// (transient, retried later) instead of growing the process; a release
// lets the next in; a read that could never fit is refused as too large.
func TestMemoryBudget(t *testing.T) {
	fx := fixture.New("verdict")
	fx.Tree("t").Put("configs/master.yaml", strings.Repeat("a: 1\n", 1<<18)). // 1.25 MiB: books 22.5 MiB
											Put("configs/huge.yaml", strings.Repeat("b: 2\n", 1<<19)). // 2.5 MiB: books 45 MiB
											Put("small.yaml", "c: 3\n")
	r := fx.Repo(ixFull)
	sha := r.Commit("c", "t")
	r.Branch("main", "c")
	s := githubtest.New(t, fx)
	mem := NewMemory(40<<20, 100*time.Millisecond)
	ctx := context.Background()
	a, b := newSource(t, s, Options{Memory: mem}), newSource(t, s, Options{Memory: mem})

	if _, err := a.ReadFile(ctx, sha, "configs/master.yaml"); err != nil {
		t.Fatal(err)
	}
	// A second read of the same file by the same verification books nothing more.
	if _, err := a.ReadFile(ctx, sha, "configs/master.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadFile(ctx, sha, "small.yaml"); err != nil {
		t.Fatalf("a small read waits for nothing: %v", err)
	}
	_, err := b.ReadFile(ctx, sha, "configs/master.yaml")
	if !retry.IsTransient(err) || !errors.Is(err, errMemoryBusy) || b.Transient() == nil {
		t.Fatalf("a second verification over the budget: %v (noted transient: %v)", err, b.Transient())
	}
	a.Release()
	if _, err := b.ReadFile(ctx, sha, "configs/master.yaml"); err != nil {
		t.Fatalf("after the first verification released: %v", err)
	}
	c := newSource(t, s, Options{Memory: mem})
	_, err = c.ReadFile(ctx, sha, "configs/huge.yaml")
	if !errors.Is(err, checks.ErrTooLarge) || retry.IsTransient(err) {
		t.Fatalf("a read over the whole budget: %v", err)
	}
	b.Release()
	c.Release()
	if !mem.sem.TryAcquire(mem.total) {
		t.Error("bookings left after every verification released")
	}
}
