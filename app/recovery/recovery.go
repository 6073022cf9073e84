// Package recovery is missed-webhook recovery: it reads the App's webhook
// delivery log on GitHub and asks GitHub to redeliver the deliveries that
// failed (Verdict was down, the network broke, intake could not store them)
// and that Verdict never stored. GitHub does not redeliver on its own.
package recovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/metrics"
)

// GitHub is the App's delivery log (App JWT authentication).
type GitHub interface {
	// HookDeliveries lists one page of deliveries, newest first, from
	// cursor ("" for the first); the next cursor is "" at the end.
	HookDeliveries(ctx context.Context, cursor string) ([]*github.HookDelivery, string, error)
	// Redeliver asks for another attempt of delivery id.
	Redeliver(ctx context.Context, id int64) error
}

// Log is Verdict's own delivery log, by GUID (X-GitHub-Delivery).
type Log interface {
	KnownDelivery(ctx context.Context, guid string) (bool, error)
}

// Defaults of the bounds.
const (
	// DefaultWindow is how far back a pass looks: GitHub redelivers only
	// deliveries of the past three days.
	DefaultWindow = 72 * time.Hour
	// DefaultMaxPages bounds the listing (100 deliveries a page).
	DefaultMaxPages = 20
	// DefaultMaxPerPass bounds the redeliveries one pass asks for.
	DefaultMaxPerPass = 100
	// DefaultMaxRedeliveries is how often one delivery is redelivered
	// before recovery gives up on it (a delivery Verdict refuses, say with
	// a rotated secret, would otherwise come back every pass).
	DefaultMaxRedeliveries = 3
)

// Recoverer runs recovery passes. Zero bounds take the defaults.
type Recoverer struct {
	GitHub GitHub
	Log    Log
	// Wanted says whether a delivery of event and action can matter to
	// Verdict (router.Acts); others are not redelivered. Nil wants all.
	Wanted          func(event, action string) bool
	Window          time.Duration
	MaxPages        int
	MaxPerPass      int
	MaxRedeliveries int
	Now             func() time.Time
	Logger          *slog.Logger
}

// Pass is what one recovery pass found and did.
type Pass struct {
	// Listed deliveries were read; Failed deliveries (by GUID) had no
	// successful attempt; Known of them Verdict had stored all the same.
	Listed, Failed, Known int
	// Redelivered were asked for again; GaveUp had been redelivered
	// MaxRedeliveries times already; Skipped are beyond MaxPerPass or are
	// events Verdict does not use.
	Redelivered, GaveUp, Skipped int
}

// Recover runs one pass and logs what it did (the queue's Recoverer).
func (r *Recoverer) Recover(ctx context.Context) error {
	p, err := r.Pass(ctx)
	log := r.logger()
	if err != nil {
		log.Warn("missed-webhook recovery incomplete", "err", err, "listed", p.Listed, "redelivered", p.Redelivered)
		return err
	}
	if p.Redelivered > 0 || p.GaveUp > 0 {
		log.Info("missed-webhook recovery", "listed", p.Listed, "redelivered", p.Redelivered,
			"gave_up", p.GaveUp, "skipped", p.Skipped+p.Known)
	}
	return nil
}

// attempts are the listed attempts of one delivery (one GUID).
type attempts struct {
	guid, event, action string
	first               time.Time
	id                  int64 // of the newest attempt
	ok                  bool
	redeliveries        int
}

// failed reports whether an attempt did not reach Verdict or was refused:
// GitHub's status is "OK" only for a 2xx answer.
func failed(d *github.HookDelivery) bool {
	return d.GetStatus() != "OK" || d.GetStatusCode() >= 400 || d.GetStatusCode() < 200
}

// Pass lists the deliveries of the look-back window and redelivers the
// failed ones Verdict has not stored, oldest first, within the bounds.
func (r *Recoverer) Pass(ctx context.Context) (Pass, error) {
	var p Pass
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	horizon := now().Add(-or(r.Window, DefaultWindow))
	byGUID := map[string]*attempts{}
	var order []*attempts
	cursor := ""
	for page := 0; page < or(r.MaxPages, DefaultMaxPages); page++ {
		ds, next, err := r.GitHub.HookDeliveries(ctx, cursor)
		if err != nil {
			metrics.RecoveryError("list")
			return p, fmt.Errorf("listing the App's webhook deliveries: %w", err)
		}
		p.Listed += len(ds)
		metrics.RecoveryListed(len(ds))
		old := false
		for _, d := range ds {
			at := d.GetDeliveredAt().Time
			if at.Before(horizon) {
				old = true
				continue
			}
			a := byGUID[d.GetGUID()]
			if a == nil {
				a = &attempts{guid: d.GetGUID(), event: d.GetEvent(), action: d.GetAction(), first: at, id: d.GetID()}
				byGUID[a.guid] = a
				order = append(order, a)
			}
			if at.Before(a.first) {
				a.first = at
			}
			if d.GetID() > a.id {
				a.id = d.GetID()
			}
			a.ok = a.ok || !failed(d)
			if d.GetRedelivery() {
				a.redeliveries++
			}
		}
		if old || next == "" {
			break
		}
		cursor = next
	}
	var todo []*attempts
	for _, a := range order {
		if a.ok || a.guid == "" || a.id <= 0 {
			continue
		}
		p.Failed++
		switch {
		case r.Wanted != nil && !r.Wanted(a.event, a.action):
			p.Skipped++
		case a.redeliveries >= or(r.MaxRedeliveries, DefaultMaxRedeliveries):
			p.GaveUp++
		default:
			todo = append(todo, a)
		}
	}
	slices.SortStableFunc(todo, func(x, y *attempts) int { return x.first.Compare(y.first) })
	var errs []error
	for _, a := range todo {
		if p.Redelivered == or(r.MaxPerPass, DefaultMaxPerPass) {
			p.Skipped++
			continue
		}
		known, err := r.Log.KnownDelivery(ctx, a.guid)
		if err != nil {
			metrics.RecoveryError("lookup")
			return p, errors.Join(append(errs, err)...)
		}
		if known {
			// Stored, but GitHub saw no answer in time: nothing was lost.
			p.Known++
			continue
		}
		if err := r.GitHub.Redeliver(ctx, a.id); err != nil {
			metrics.RecoveryError("redeliver")
			errs = append(errs, fmt.Errorf("redelivering %s (%s): %w", a.guid, a.event, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		metrics.RecoveryRedelivered()
		p.Redelivered++
		r.logger().Info("redelivery asked for", "delivery_id", a.guid, "event", a.event, "action", a.action)
	}
	return p, errors.Join(errs...)
}

func (r *Recoverer) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
