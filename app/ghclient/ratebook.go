package ghclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateBook keeps what GitHub last said of each installation's primary rate
// limit (X-RateLimit-Remaining and -Reset of the core resource, which
// GitHub counts for the installation whichever replica calls), and what the
// running verifications have set aside of it. A verification is admitted
// when its estimated cost fits in what is left after those set aside;
// otherwise it waits for the reset, rather than starting and running dry
// halfway. With a Ledger the reservations (and the newest view of the
// limit) are shared by every process on one database, so replicas
// admitting at once cannot overdraw the installation together; without
// one they are this process's.
type RateBook struct {
	// Ledger, when set, keeps the reservations for every process.
	Ledger RateLedger
	// Hold is how long a shared reservation lasts if its process dies
	// before giving it back: the longest a verification runs.
	Hold time.Duration

	now func() time.Time

	mu   sync.Mutex
	inst map[int64]*rateState
}

// RateLedger is the store of reservations every process shares.
type RateLedger interface {
	// SetAside admits ask (recording its reservation) when its cost fits;
	// otherwise it says what is left until the limit resets.
	SetAside(ctx context.Context, ask RateAsk) (admitted bool, left int, reset time.Time, err error)
	// GiveBack ends the reservation id.
	GiveBack(ctx context.Context, id string) error
}

// RateAsk is one admission asked of a RateLedger.
type RateAsk struct {
	Installation int64
	// ID names the reservation.
	ID   string
	Cost int
	// Remaining and Reset are this process's newest view of the limit,
	// taken at Seen (zero: none yet).
	Remaining int
	Reset     time.Time
	Seen, Now time.Time
	Hold      time.Duration
}

type rateState struct {
	remaining int
	reset     time.Time
	seen      time.Time
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
	s.remaining, s.reset, s.seen = remaining, time.Unix(reset, 0), b.now()
}

// Admit sets cost calls aside for a verification of installation and
// returns release, which gives them back; or, when they do not fit in what
// is left until the limit resets, how long to wait and what is left. An
// error is the ledger's: the caller retries.
func (b *RateBook) Admit(ctx context.Context, installation int64, cost int) (release func(), wait time.Duration, left int, err error) {
	if b == nil {
		return func() {}, 0, 0, nil
	}
	if b.Ledger != nil {
		return b.admitShared(ctx, installation, cost)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.state(installation)
	now := b.now()
	if !s.seen.IsZero() && now.Before(s.reset) {
		if left = s.remaining - s.reserved; left < cost {
			return nil, s.reset.Sub(now) + time.Second, left, nil
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
	}, 0, left, nil
}

// giveBackTimeout bounds giving a shared reservation back; one that could
// not be given back expires at its hold.
const giveBackTimeout = 10 * time.Second

func (b *RateBook) admitShared(ctx context.Context, installation int64, cost int) (func(), time.Duration, int, error) {
	var id [12]byte
	rand.Read(id[:])
	b.mu.Lock()
	s := *b.state(installation)
	now := b.now()
	b.mu.Unlock()
	ask := RateAsk{Installation: installation, ID: hex.EncodeToString(id[:]), Cost: cost,
		Remaining: s.remaining, Reset: s.reset, Seen: s.seen, Now: now, Hold: b.Hold}
	ok, left, reset, err := b.Ledger.SetAside(ctx, ask)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("setting %d calls of installation %d aside: %w", cost, installation, err)
	}
	if !ok {
		return nil, reset.Sub(now) + time.Second, left, nil
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), giveBackTimeout)
			defer cancel()
			b.Ledger.GiveBack(ctx, ask.ID)
		})
	}, 0, left, nil
}
