package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/store"
)

// riverEngine is the one implementation of intake and work; the only thing
// that differs between databases is how a transaction is begun and ended.
type riverEngine[TTx any] struct {
	client   *river.Client[TTx]
	exec     riverdriver.Executor
	begin    func(ctx context.Context) (TTx, store.Execer, error)
	commitTx func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx) error
	// setArgs replaces a job's arguments ($1, JSON; $2 its ID); the JSON
	// column type differs by database.
	setArgs string
	// parallel is how many intake transactions may run at once.
	parallel int
	// claimOne, when set, claims in one statement (see claim).
	claimOne string
}

func newRiverEngine[TTx any](ctx context.Context, st *store.Store, drv riverdriver.Driver[TTx], cfg *river.Config) (*riverEngine[TTx], error) {
	mig, err := rivermigrate.New(drv, &rivermigrate.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("preparing job queue migrations: %w", err)
	}
	// River's migrator takes no lock: replicas starting together on an
	// empty database collide creating its types. One migrates at a time;
	// the others then find nothing to do.
	err = st.Migrating(ctx, func(ctx context.Context) error {
		_, err := mig.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("migrating job queue tables: %w", err)
	}
	client, err := river.NewClient(drv, cfg)
	if err != nil {
		return nil, fmt.Errorf("creating job queue client: %w", err)
	}
	return &riverEngine[TTx]{client: client, exec: drv.GetExecutor()}, nil
}

func newSQLiteEngine(ctx context.Context, st *store.Store, cfg *river.Config) (engine, error) {
	db := st.SQL()
	e, err := newRiverEngine[*sql.Tx](ctx, st, riversqlite.New(db), cfg)
	if err != nil {
		return nil, err
	}
	// Intake commits on its own connection, ahead of River's (see the
	// store's sqlitegate.go); River inserts the jobs in that transaction.
	intake := st.IntakeSQL()
	e.begin = func(ctx context.Context) (*sql.Tx, store.Execer, error) {
		tx, err := intake.BeginTx(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		return tx, st.IntakeSQLTx(tx), nil
	}
	e.setArgs = `UPDATE river_job SET args = jsonb($1) WHERE id = $2`
	// SQLite has one writer: a second intake transaction would only wait.
	e.parallel = 1
	e.commitTx = func(_ context.Context, tx *sql.Tx) error { return tx.Commit() }
	e.rollback = func(_ context.Context, tx *sql.Tx) error { return tx.Rollback() }
	return e, nil
}

func newPgxEngine(ctx context.Context, st *store.Store, cfg *river.Config) (engine, error) {
	pool := st.Pgx()
	e, err := newRiverEngine[pgx.Tx](ctx, st, riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, err
	}
	intake := st.IntakePgx()
	e.begin = func(ctx context.Context) (pgx.Tx, store.Execer, error) {
		tx, err := intake.Begin(ctx)
		if err != nil {
			return nil, nil, err
		}
		return tx, store.PgxExecer(tx), nil
	}
	e.setArgs = `UPDATE river_job SET args = $1::jsonb WHERE id = $2`
	e.parallel = store.IntakeConns
	e.claimOne = `WITH c AS (DELETE FROM verdict_pending_job WHERE coalesce_key = $1 AND job_id = $2 RETURNING args),
	u AS (UPDATE river_job SET args = c.args::jsonb FROM c WHERE river_job.id = $2)
	SELECT args FROM c`
	e.commitTx = func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) }
	e.rollback = func(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }
	return e, nil
}

func (e *riverEngine[TTx]) commits() int { return e.parallel }

func (e *riverEngine[TTx]) start(ctx context.Context) error { return e.client.Start(ctx) }
func (e *riverEngine[TTx]) clientID() string                { return e.client.ID() }

// stop is River's soft stop: no new jobs are fetched and running ones
// finish, until ctx ends; then the ones still running are cancelled (and
// snooze, see Queue.classify) and waited for a few seconds more.
func (e *riverEngine[TTx]) stop(ctx context.Context) error {
	err := e.client.Stop(ctx)
	if err == nil {
		return nil
	}
	hard, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(fmt.Errorf("running jobs did not finish in time: %w", err), e.client.StopAndCancel(hard))
}

// running lists every job in the running state.
func (e *riverEngine[TTx]) running(ctx context.Context) ([]*rivertype.JobRow, error) {
	var out []*rivertype.JobRow
	var after int64
	for {
		page, err := e.exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{AfterID: after, Max: 500, StuckHorizon: time.Now().Add(time.Hour)})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 500 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// resume makes a running job available now, unless it moved on since it
// was listed.
func (e *riverEngine[TTx]) resume(ctx context.Context, j *rivertype.JobRow, why string) error {
	id, errJSON, horizon, err := resumeParams(j, why)
	if err != nil {
		return err
	}
	_, err = e.exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{
		ID: []int64{id}, Error: [][]byte{errJSON}, FinalizedAt: []*time.Time{nil},
		ScheduledAt: []time.Time{time.Now().UTC()}, State: []string{string(rivertype.JobStateAvailable)},
		StuckHorizon: horizon,
	})
	return err
}

// commit stores a batch in one transaction: each new delivery's log row and
// its jobs; a delivery whose ID is already logged is marked duplicate and
// contributes nothing. Verification jobs get the next generation of their
// sign-off so that older pending ones know they were superseded.
//
// Verification requests coalesce here: while the job of a sign-off has not
// begun verifying (it waits, or it is only finding its PR busy), a new
// request for that sign-off replaces the arguments it will verify with
// (the newest generation, delivery and actor) instead of adding a job, so a
// flood of events for one sign-off keeps one job waiting. A job that began
// verifying has claimed its arguments (see claim); the next request gets a
// job of its own.
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
	// The log rows and the generations take a fixed number of statements
	// per batch, whatever its size: on PostgreSQL each statement is a round
	// trip.
	ds := make([]store.Delivery, len(batch))
	for i, r := range batch {
		r.outcome = deliveryOutcome(r.d)
		ds[i] = r.d.Delivery
		ds[i].Jobs, ds[i].Outcome = len(r.d.Jobs), string(r.outcome)
	}
	fresh, err := store.InsertDeliveries(ctx, ex, ds)
	if err != nil {
		return err
	}
	replayed, err := store.InsertBodies(ctx, ex, ds, fresh)
	if err != nil {
		return err
	}
	var keys []string
	for i, r := range batch {
		if replayed[i] {
			// Logged (so its ID stays a duplicate), but acted on never.
			fresh[i], r.outcome = false, Replayed
			continue
		}
		if !fresh[i] {
			r.outcome = Duplicate
			continue
		}
		for _, a := range r.d.Jobs {
			switch v := a.(type) {
			case jobs.VerifyArgs:
				keys = append(keys, v.CoalesceKey())
			case jobs.WithdrawArgs:
				// A withdrawal takes the key's next generation too, in
				// delivery order, so a verification still waiting is skipped.
				keys = append(keys, v.CoalesceKey())
			}
		}
	}
	gens, err := store.NextGenerations(ctx, ex, keys)
	if err != nil {
		return err
	}
	c, err := coalesce(ctx, ex, batch, fresh, gens)
	if err != nil {
		return err
	}
	if len(c.params) > 0 {
		res, err := e.client.InsertManyTx(ctx, tx, c.params)
		if err != nil {
			return fmt.Errorf("inserting %d jobs: %w", len(c.params), err)
		}
		if err := c.recordPending(ctx, ex, res); err != nil {
			return err
		}
	}
	if err := e.commitTx(ctx, tx); err != nil {
		return fmt.Errorf("committing intake transaction: %w", err)
	}
	return nil
}

// claim begins job id's verification of key: it takes the arguments
// folded into it while it waited and writes them into the job, so that a
// retry, or a resumption after a crash, verifies with them too. ok is false
// when id was not key's pending job (it claimed before, or a newer job
// took its place); the job keeps its own arguments then.
func (e *riverEngine[TTx]) claim(ctx context.Context, st *store.Store, key string, id int64) (a jobs.VerifyArgs, ok bool, err error) {
	if e.claimOne != "" {
		// PostgreSQL: one statement is atomic, and a round trip instead of
		// a transaction's four, for every job, on the database intake
		// shares.
		var raw string
		err := st.DB().QueryRow(ctx, e.claimOne, key, id).Scan(&raw)
		if errors.Is(err, store.ErrNoRows) {
			return a, false, nil
		}
		if err != nil {
			return a, false, fmt.Errorf("claiming the pending arguments of %s for job %d: %w", key, id, err)
		}
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			return a, false, fmt.Errorf("decoding the pending arguments of %s: %w", key, err)
		}
		return a, true, nil
	}
	err = st.InTx(ctx, func(ex store.Execer) error {
		raw, found, err := store.ClaimPending(ctx, ex, key, id)
		if err != nil || !found {
			return err
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return fmt.Errorf("decoding the pending arguments of %s: %w", key, err)
		}
		if _, err := ex.Exec(ctx, e.setArgs, string(raw), id); err != nil {
			return fmt.Errorf("updating job %d with the arguments of %s: %w", id, key, err)
		}
		ok = true
		return nil
	})
	return a, ok, err
}
