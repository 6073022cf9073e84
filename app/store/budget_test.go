package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store/storetest"
)

// TestReserveWrite: the write budget is a token bucket kept in the
// database, so bookings made at once (by the replicas) each get their own
// slot, and any minute holds at most burst + rate × 60 writes.
func TestReserveWrite(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
		const rate, burst = 1.0, 20.0 // 60 a minute
		book := func(installation int64, at time.Time) time.Duration {
			t.Helper()
			w, err := s.ReserveWrite(ctx, installation, at, rate, burst)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		for i := range 20 {
			if w := book(1, t0); w != 0 {
				t.Fatalf("booking %d of the burst waits %s", i+1, w)
			}
		}
		if w := book(1, t0); w != time.Second {
			t.Errorf("21st booking waits %s, want 1s", w)
		}
		if w := book(1, t0); w != 2*time.Second {
			t.Errorf("22nd booking waits %s, want 2s", w)
		}
		if w := book(2, t0); w != 0 {
			t.Errorf("another installation's first booking waits %s", w)
		}
		// Ten seconds on, the debt of two is repaid and 8 are back.
		if w := book(1, t0.Add(10*time.Second)); w != 0 {
			t.Errorf("after the refill: waits %s", w)
		}
		// A clock running behind refills nothing.
		for range 7 {
			book(1, t0)
		}
		if w := book(1, t0); w != time.Second {
			t.Errorf("behind the last booking: waits %s, want 1s", w)
		}

		// 100 bookings at once, on two handles of the database: 20 go now,
		// the others one a second, each its own.
		other := open(t, url)
		var mu sync.Mutex
		var waits []time.Duration
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := s
				if i%2 == 1 {
					h = other
				}
				w, err := h.ReserveWrite(ctx, 3, t0, rate, burst)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				waits = append(waits, w)
				mu.Unlock()
			}()
		}
		wg.Wait()
		slices.Sort(waits)
		for i, w := range waits {
			want := time.Duration(max(0, i-19)) * time.Second
			if w != want {
				t.Fatalf("booking %d of 100 at once waits %s, want %s (all: %v)", i+1, w, want, waits)
			}
		}
		if _, err := s.ReserveWrite(ctx, 1, t0, 0, burst); err == nil {
			t.Error("a zero rate was accepted")
		}
	})
}
