package ghclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// admit is Admit without a ledger, which cannot fail.
func admit(t *testing.T, b *RateBook, installation int64, cost int) (func(), time.Duration, int) {
	t.Helper()
	release, wait, left, err := b.Admit(t.Context(), installation, cost)
	if err != nil {
		t.Fatal(err)
	}
	return release, wait, left
}

// Verifications are admitted while what GitHub says is left of their
// installation's limit, less what running ones set aside, covers them; the
// others wait for the reset. Other installations and other resources do
// not count.
func TestRateBookAdmits(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	b := NewRateBook()
	b.now = func() time.Time { return now }
	headers := func(resource string, remaining int, reset time.Time) http.Header {
		h := http.Header{}
		h.Set("X-RateLimit-Remaining", fmt.Sprint(remaining))
		h.Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()))
		if resource != "" {
			h.Set("X-RateLimit-Resource", resource)
		}
		return h
	}
	if release, wait, _ := admit(t, b, 7, 60); wait != 0 {
		t.Fatal("an installation GitHub said nothing of is put off")
	} else {
		release()
	}
	reset := now.Add(20 * time.Minute)
	b.observe(7, headers("core", 130, reset))
	b.observe(7, headers("search", 1, reset)) // another resource: ignored
	b.observe(8, headers("", 0, reset))       // another installation
	r1, wait, _ := admit(t, b, 7, 60)
	if wait != 0 {
		t.Fatal("the first of two that fit is put off")
	}
	r2, wait, _ := admit(t, b, 7, 60)
	if wait != 0 {
		t.Fatal("the second of two that fit is put off")
	}
	if _, wait, left := admit(t, b, 7, 60); wait < 20*time.Minute || left != 10 {
		t.Errorf("a third: wait %s with %d left; want until the reset, 10 left", wait, left)
	}
	r1()
	r1() // a second release gives nothing back twice
	if r3, wait, _ := admit(t, b, 7, 60); wait != 0 {
		t.Error("after a release, one more fits")
	} else {
		r3()
	}
	if _, wait, _ := admit(t, b, 7, 80); wait == 0 {
		t.Error("more than is left (70) was admitted")
	}
	r2()
	if _, wait, _ := admit(t, b, 8, 1); wait == 0 {
		t.Error("installation 8 has nothing left")
	}
	now = reset.Add(time.Second)
	if _, wait, _ := admit(t, b, 8, 60); wait != 0 {
		t.Error("after the reset the limit is whole again")
	}
}

// The installation's transport tells the book what each response says.
func TestPacedObservesRateLimit(t *testing.T) {
	reset := time.Now().Add(time.Hour).Unix()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Resource", "core")
		w.Header().Set("X-RateLimit-Remaining", "12")
		w.Header().Set("X-RateLimit-Reset", fmt.Sprint(reset))
	}))
	defer srv.Close()
	b := NewRateBook()
	rt := Options{Rates: b}.pace(http.DefaultTransport, 5, nil)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/repos/o/r", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, wait, left := admit(t, b, 5, 60); wait == 0 || left != 12 {
		t.Errorf("after GitHub said 12 are left: wait %s, left %d", wait, left)
	}
}

// fakeLedger is a RateLedger that records what it was asked and answers
// as told.
type fakeLedger struct {
	asks      []RateAsk
	admit     bool
	left      int
	reset     time.Time
	givenBack []string
}

func (f *fakeLedger) SetAside(_ context.Context, a RateAsk) (bool, int, time.Time, error) {
	f.asks = append(f.asks, a)
	return f.admit, f.left, f.reset, nil
}

func (f *fakeLedger) GiveBack(_ context.Context, id string) error {
	f.givenBack = append(f.givenBack, id)
	return nil
}

// With a ledger the book asks it, handing over this process's newest view
// of the limit, and gives the reservation back once.
func TestRateBookSharesThroughItsLedger(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	reset := now.Add(10 * time.Minute)
	l := &fakeLedger{admit: true, left: 100}
	b := NewRateBook()
	b.Ledger, b.Hold, b.now = l, 5*time.Minute, func() time.Time { return now }
	h := http.Header{}
	h.Set("X-RateLimit-Remaining", "140")
	h.Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()))
	b.observe(3, h)
	release, wait, left, err := b.Admit(t.Context(), 3, 60)
	if err != nil || wait != 0 || left != 100 {
		t.Fatalf("admitted: wait %s, left %d, %v", wait, left, err)
	}
	a := l.asks[0]
	if a.Installation != 3 || a.Cost != 60 || a.Remaining != 140 || !a.Reset.Equal(reset) || !a.Seen.Equal(now) || a.Hold != 5*time.Minute || a.ID == "" {
		t.Errorf("ask = %+v", a)
	}
	release()
	release()
	if len(l.givenBack) != 1 || l.givenBack[0] != a.ID {
		t.Errorf("given back %v, want %s once", l.givenBack, a.ID)
	}
	l.admit, l.left, l.reset = false, 20, reset
	if release, wait, left, err := b.Admit(t.Context(), 3, 60); release != nil || wait != 10*time.Minute+time.Second || left != 20 || err != nil {
		t.Errorf("refused: wait %s, left %d, %v", wait, left, err)
	}
	if l.asks[1].ID == a.ID {
		t.Error("two asks share a reservation id")
	}
}
