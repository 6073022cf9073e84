package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CallAsk asks to set calls aside of an installation's primary rate limit
// for one verification.
type CallAsk struct {
	Installation int64
	// ID names the reservation, for GiveBackCalls.
	ID string
	// Cost is the calls to set aside.
	Cost int
	// Remaining and Reset are the asking process's newest view of the
	// limit, taken at Seen; a zero Seen means it has none.
	Remaining int
	Reset     time.Time
	Seen, Now time.Time
	// Hold is how long the reservation lasts if never given back (its
	// process died): the verification's longest run.
	Hold time.Duration
}

// CallAnswer is what SetAsideCalls decided: Admitted, or what is left
// until Reset (zero when no process has seen the limit).
type CallAnswer struct {
	Admitted bool
	Left     int
	Reset    time.Time
}

// SetAsideCalls admits a verification when its cost fits in what the
// newest view of the installation's limit leaves after every process's
// running reservations, and records its reservation. One transaction per
// ask, the installation's row locked on PostgreSQL, so that replicas
// asking at once are answered one after the other.
func (s *Store) SetAsideCalls(ctx context.Context, a CallAsk) (CallAnswer, error) {
	var ans CallAnswer
	err := s.InTx(ctx, func(tx Execer) error {
		now := a.Now.UnixMilli()
		if !a.Seen.IsZero() {
			if _, err := tx.Exec(ctx, `INSERT INTO verdict_rate_seen (installation_id, remaining, reset_ms, seen_ms)
				VALUES ($1, $2, $3, $4)
				ON CONFLICT (installation_id) DO UPDATE SET remaining = excluded.remaining, reset_ms = excluded.reset_ms, seen_ms = excluded.seen_ms
				WHERE excluded.seen_ms > verdict_rate_seen.seen_ms`,
				a.Installation, a.Remaining, a.Reset.UnixMilli(), a.Seen.UnixMilli()); err != nil {
				return fmt.Errorf("noting installation %d's rate limit: %w", a.Installation, err)
			}
		}
		lock := ""
		if s.dialect == Postgres {
			lock = " FOR UPDATE"
		}
		var remaining, reset int64
		seen := true
		if err := tx.QueryRow(ctx, `SELECT remaining, reset_ms FROM verdict_rate_seen WHERE installation_id = $1`+lock,
			a.Installation).Scan(&remaining, &reset); err != nil {
			if !errors.Is(err, ErrNoRows) {
				return fmt.Errorf("reading installation %d's rate limit: %w", a.Installation, err)
			}
			seen = false
		}
		if _, err := tx.Exec(ctx, `DELETE FROM verdict_rate_reservation WHERE installation_id = $1 AND expires_ms < $2`, a.Installation, now); err != nil {
			return fmt.Errorf("dropping expired reservations of installation %d: %w", a.Installation, err)
		}
		var reserved int64
		if err := tx.QueryRow(ctx, `SELECT COALESCE(SUM(calls), 0) FROM verdict_rate_reservation WHERE installation_id = $1`,
			a.Installation).Scan(&reserved); err != nil {
			return fmt.Errorf("summing installation %d's reservations: %w", a.Installation, err)
		}
		if seen && now < reset {
			ans.Left, ans.Reset = int(remaining-reserved), time.UnixMilli(reset)
			if ans.Left < a.Cost {
				return nil
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO verdict_rate_reservation (id, installation_id, calls, expires_ms) VALUES ($1, $2, $3, $4)`,
			a.ID, a.Installation, a.Cost, now+a.Hold.Milliseconds()); err != nil {
			return fmt.Errorf("setting calls aside for installation %d: %w", a.Installation, err)
		}
		ans.Admitted = true
		return nil
	})
	return ans, err
}

// GiveBackCalls ends the reservation id.
func (s *Store) GiveBackCalls(ctx context.Context, id string) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM verdict_rate_reservation WHERE id = $1`, id); err != nil {
		return fmt.Errorf("giving back reservation %s: %w", id, err)
	}
	return nil
}
