package queue

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/store"
)

// riverEngine is the one implementation of intake and work; the only thing
// that differs between databases is how a transaction is begun and ended.
type riverEngine[TTx any] struct {
	client   *river.Client[TTx]
	begin    func(ctx context.Context) (TTx, store.Execer, error)
	commitTx func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx) error
}

func newRiverEngine[TTx any](ctx context.Context, drv riverdriver.Driver[TTx], cfg *river.Config) (*riverEngine[TTx], error) {
	mig, err := rivermigrate.New(drv, &rivermigrate.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("preparing job queue migrations: %w", err)
	}
	if _, err := mig.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("migrating job queue tables: %w", err)
	}
	client, err := river.NewClient(drv, cfg)
	if err != nil {
		return nil, fmt.Errorf("creating job queue client: %w", err)
	}
	return &riverEngine[TTx]{client: client}, nil
}

func newSQLiteEngine(ctx context.Context, st *store.Store, cfg *river.Config) (engine, error) {
	db := st.SQL()
	e, err := newRiverEngine[*sql.Tx](ctx, riversqlite.New(db), cfg)
	if err != nil {
		return nil, err
	}
	e.begin = func(ctx context.Context) (*sql.Tx, store.Execer, error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		return tx, st.SQLTx(tx), nil
	}
	e.commitTx = func(_ context.Context, tx *sql.Tx) error { return tx.Commit() }
	e.rollback = func(_ context.Context, tx *sql.Tx) error { return tx.Rollback() }
	return e, nil
}

func newPgxEngine(ctx context.Context, st *store.Store, cfg *river.Config) (engine, error) {
	pool := st.Pgx()
	e, err := newRiverEngine[pgx.Tx](ctx, riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, err
	}
	e.begin = func(ctx context.Context) (pgx.Tx, store.Execer, error) {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return nil, nil, err
		}
		return tx, store.PgxExecer(tx), nil
	}
	e.commitTx = func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) }
	e.rollback = func(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }
	return e, nil
}

func (e *riverEngine[TTx]) start(ctx context.Context) error { return e.client.Start(ctx) }
func (e *riverEngine[TTx]) stop(ctx context.Context) error  { return e.client.Stop(ctx) }

// commit stores a batch in one transaction: each new delivery's log row and
// its jobs; a delivery whose ID is already logged is marked duplicate and
// contributes nothing. Verification jobs get the next generation of their
// sign-off so that older pending ones know they were superseded.
func (e *riverEngine[TTx]) commit(ctx context.Context, batch []*request) (err error) {
	tx, ex, err := e.begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning intake transaction: %w", err)
	}
	defer func() {
		if err != nil {
			e.rollback(context.WithoutCancel(ctx), tx)
		}
	}()
	var params []river.InsertManyParams
	for _, r := range batch {
		d := r.d.Delivery
		d.Jobs = len(r.d.Jobs)
		if d.Outcome == "" {
			d.Outcome = "ignored"
			if d.Jobs > 0 {
				d.Outcome = "queued"
			}
		}
		fresh, err := store.InsertDelivery(ctx, ex, d)
		if err != nil {
			return err
		}
		r.duplicate = !fresh
		if !fresh {
			continue
		}
		for _, a := range r.d.Jobs {
			if v, ok := a.(jobs.VerifyArgs); ok {
				g, err := store.NextGeneration(ctx, ex, v.CoalesceKey())
				if err != nil {
					return err
				}
				v.Generation = g
				a = v
			}
			params = append(params, river.InsertManyParams{Args: a})
		}
	}
	if len(params) > 0 {
		if _, err := e.client.InsertManyTx(ctx, tx, params); err != nil {
			return fmt.Errorf("inserting %d jobs: %w", len(params), err)
		}
	}
	if err := e.commitTx(ctx, tx); err != nil {
		return fmt.Errorf("committing intake transaction: %w", err)
	}
	return nil
}
