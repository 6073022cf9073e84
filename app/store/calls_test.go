package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// TestSetAsideCalls: reservations are shared by every process on the
// database, so two replicas that each saw 100 calls left cannot admit
// three 60-call verifications between them; the newest view of the limit
// wins; given-back and expired reservations stop counting.
func TestSetAsideCalls(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		a, b := open(t, url), open(t, url)
		t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
		reset := t0.Add(30 * time.Minute)
		ask := func(s *store.Store, id string, seen time.Time, remaining int, now time.Time) store.CallAnswer {
			t.Helper()
			ans, err := s.SetAsideCalls(ctx, store.CallAsk{Installation: 7, ID: id, Cost: 60,
				Remaining: remaining, Reset: reset, Seen: seen, Now: now, Hold: 10 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			return ans
		}
		if ans := ask(a, "a1", t0, 100, t0); !ans.Admitted || ans.Left != 100 {
			t.Fatalf("first ask: %+v", ans)
		}
		// The other replica saw 100 left too, a moment earlier: its view is
		// older, and the first reservation counts.
		if ans := ask(b, "b1", t0.Add(-time.Second), 100, t0); ans.Admitted || ans.Left != 40 || !ans.Reset.Equal(reset) {
			t.Fatalf("second replica: %+v, want refused with 40 left", ans)
		}
		// A newer view with more left (another window's numbers) wins.
		if ans := ask(b, "b2", t0.Add(time.Second), 200, t0.Add(time.Second)); !ans.Admitted || ans.Left != 140 {
			t.Fatalf("newer view: %+v", ans)
		}
		if err := a.GiveBackCalls(ctx, "a1"); err != nil {
			t.Fatal(err)
		}
		if ans := ask(a, "a2", time.Time{}, 0, t0.Add(2*time.Second)); !ans.Admitted || ans.Left != 140 {
			t.Fatalf("after a1 given back: %+v", ans)
		}
		// b2 and a2 hold 120 of 200; past their hold they expire.
		if ans := ask(a, "a3", time.Time{}, 0, t0.Add(2*time.Second)); !ans.Admitted || ans.Left != 80 {
			t.Fatalf("third: %+v", ans)
		}
		if ans := ask(a, "a4", time.Time{}, 0, t0.Add(3*time.Second)); ans.Admitted || ans.Left != 20 {
			t.Fatalf("fourth: %+v, want refused with 20 left", ans)
		}
		if ans := ask(a, "a5", time.Time{}, 0, t0.Add(11*time.Minute)); !ans.Admitted || ans.Left != 200 {
			t.Fatalf("after the holds: %+v", ans)
		}
		// Past the reset nobody knows the limit: admitted.
		if ans := ask(b, "b3", time.Time{}, 0, reset.Add(time.Second)); !ans.Admitted {
			t.Fatalf("after the reset: %+v", ans)
		}

		// Many asks at once from two handles never overdraw: with 600 left
		// and nothing reserved, exactly 10 of 30 get in.
		inst := int64(8)
		var mu sync.Mutex
		admitted := 0
		var wg sync.WaitGroup
		for i := range 30 {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ans, err := s.SetAsideCalls(ctx, store.CallAsk{Installation: inst, ID: fmt.Sprint("c", i), Cost: 60,
					Remaining: 600, Reset: reset, Seen: t0, Now: t0, Hold: time.Minute})
				if err != nil {
					t.Error(err)
					return
				}
				if ans.Admitted {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if admitted != 10 {
			t.Errorf("%d of 30 concurrent asks admitted, want 10", admitted)
		}
	})
}
