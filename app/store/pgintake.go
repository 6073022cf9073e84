package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// IntakeConns is how many intake transactions run at once on PostgreSQL.
//
// A group commit is a handful of statements, each a round trip, and the
// commit's WAL flush; one at a time, a delivery that arrives during a
// commit waits for it and then for its own, so the tail is two commits
// long. Side by side, a batch starts as soon as a connection is free, and
// PostgreSQL can flush the WAL of several commits at once. Transactions of
// different batches touching one sign-off are ordered by the row lock on
// its generation, so running them at once decides what running them in
// turn would. Three, four and six measured alike on two cores, all clearly
// better than one (BENCHMARKS.md, intake).
const IntakeConns = 4

// openIntakePool opens intake's own connections. They are not shared with
// River and the per-PR locks of running jobs, which can hold every
// connection of the main pool while a burst arrives: a delivery never
// waits for a verification to give a connection back. One is kept open
// from the start, so the first delivery does not wait for a connection to
// be made; the others are opened by the first burst and then kept.
func openIntakePool(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	cfg = cfg.Copy()
	cfg.MaxConns, cfg.MinConns = IntakeConns, 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening PostgreSQL intake connections: %w", err)
	}
	return pool, nil
}

// IntakePgx is the PostgreSQL pool intake commits on, IntakeConns
// connections of its own. Nil on SQLite.
func (s *Store) IntakePgx() *pgxpool.Pool { return s.intakePool }
