package ghclient

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateBook keeps what GitHub last said of each installation's primary rate
// limit (X-RateLimit-Remaining and -Reset of the core resource, which
// GitHub counts for the installation whichever replica calls), and what
// this process's running verifications have set aside of it. A
// verification is admitted when its estimated cost fits in what is left
// after those set aside; otherwise it waits for the reset, rather than
// starting and running dry halfway.
type RateBook struct {
	now func() time.Time

	mu   sync.Mutex
	inst map[int64]*rateState
}

type rateState struct {
	remaining int
	reset     time.Time
	seen      bool
	reserved  int
}

// NewRateBook is an empty book: every installation is admitted until
// GitHub has said something of its limit.
func NewRateBook() *RateBook { return &RateBook{now: time.Now, inst: map[int64]*rateState{}} }

func (b *RateBook) state(installation int64) *rateState {
	s := b.inst[installation]
	if s == nil {
		s = &rateState{}
		b.inst[installation] = s
	}
	return s
}

// observe records a response's rate-limit headers for installation.
func (b *RateBook) observe(installation int64, h http.Header) {
	if b == nil {
		return
	}
	if r := h.Get("X-RateLimit-Resource"); r != "" && r != "core" {
		return
	}
	remaining, err := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	if err != nil {
		return
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.state(installation)
	s.remaining, s.reset, s.seen = remaining, time.Unix(reset, 0), true
}

// Admit sets cost calls aside for a verification of installation and
// returns release, which gives them back; or, when they do not fit in what
// is left until the limit resets, how long to wait and what is left.
func (b *RateBook) Admit(installation int64, cost int) (release func(), wait time.Duration, left int) {
	if b == nil {
		return func() {}, 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.state(installation)
	now := b.now()
	if s.seen && now.Before(s.reset) {
		if left = s.remaining - s.reserved; left < cost {
			return nil, s.reset.Sub(now) + time.Second, left
		}
	}
	s.reserved += cost
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.state(installation).reserved -= cost
		})
	}, 0, left
}
