package ghclient

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

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
	if release, wait, _ := b.Admit(7, 60); wait != 0 {
		t.Fatal("an installation GitHub said nothing of is put off")
	} else {
		release()
	}
	reset := now.Add(20 * time.Minute)
	b.observe(7, headers("core", 130, reset))
	b.observe(7, headers("search", 1, reset)) // another resource: ignored
	b.observe(8, headers("", 0, reset))       // another installation
	r1, wait, _ := b.Admit(7, 60)
	if wait != 0 {
		t.Fatal("the first of two that fit is put off")
	}
	r2, wait, _ := b.Admit(7, 60)
	if wait != 0 {
		t.Fatal("the second of two that fit is put off")
	}
	if _, wait, left := b.Admit(7, 60); wait < 20*time.Minute || left != 10 {
		t.Errorf("a third: wait %s with %d left; want until the reset, 10 left", wait, left)
	}
	r1()
	r1() // a second release gives nothing back twice
	if r3, wait, _ := b.Admit(7, 60); wait != 0 {
		t.Error("after a release, one more fits")
	} else {
		r3()
	}
	if _, wait, _ := b.Admit(7, 80); wait == 0 {
		t.Error("more than is left (70) was admitted")
	}
	r2()
	if _, wait, _ := b.Admit(8, 1); wait == 0 {
		t.Error("installation 8 has nothing left")
	}
	now = reset.Add(time.Second)
	if _, wait, _ := b.Admit(8, 60); wait != 0 {
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
	if _, wait, left := b.Admit(5, 60); wait == 0 || left != 12 {
		t.Errorf("after GitHub said 12 are left: wait %s, left %d", wait, left)
	}
}
