package store

import (
	"context"
	"fmt"
	"time"
)

// migrationLock is the advisory lock key under which processes change the
// schema, Verdict's tables and River's alike.
const migrationLock = 7305880417

// Migrating runs f (a schema migration, such as River's) while no other
// process migrates: on PostgreSQL under a session-level advisory lock held
// on a connection of its own, since the migrator runs its own
// transactions; on SQLite, with one process and one connection, as is.
func (s *Store) Migrating(ctx context.Context, f func(ctx context.Context) error) error {
	if s.pool == nil {
		return f(ctx)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquiring a connection for the migration lock: %w", err)
	}
	// A failed unlock would leave the lock with the connection: close it
	// rather than return it to the pool.
	release := func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
		conn.Release()
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		conn.Release()
		return fmt.Errorf("waiting for the migration lock: %w", err)
	}
	defer release()
	return f(ctx)
}

// prepareHot prepares the statements every delivery runs, so transactions
// find them ready (SQLite only; pgx caches statements itself).
func (s *Store) prepareHot(ctx context.Context) error {
	if s.stmts == nil {
		return nil
	}
	hot := []string{insertDeliverySQL, nextGenerationSQL, foldPendingSQL, setPendingJobSQL,
		dropPendingSQL, pendingJobSQL, claimPendingSQL, generationSQL}
	if err := s.stmts.prepare(ctx, hot...); err != nil {
		return err
	}
	if s.intakeStmts != s.stmts {
		return s.intakeStmts.prepare(ctx, hot...)
	}
	return nil
}

const (
	insertDeliverySQL = `INSERT INTO verdict_delivery
		(delivery_id, event, action, repo, pr_number, received_at, outcome, jobs)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (delivery_id) DO NOTHING`
	nextGenerationSQL = `INSERT INTO verdict_generation (coalesce_key, generation) VALUES ($1, 1)
		ON CONFLICT (coalesce_key) DO UPDATE SET generation = verdict_generation.generation + 1
		RETURNING generation`
	foldPendingSQL   = `UPDATE verdict_pending_job SET args = $2 WHERE coalesce_key = $1`
	setPendingJobSQL = `INSERT INTO verdict_pending_job (coalesce_key, job_id, args) VALUES ($1, $2, $3)
		ON CONFLICT (coalesce_key) DO UPDATE SET job_id = excluded.job_id, args = excluded.args`
	dropPendingSQL  = `DELETE FROM verdict_pending_job WHERE coalesce_key = $1`
	pendingJobSQL   = `SELECT job_id FROM verdict_pending_job WHERE coalesce_key = $1`
	claimPendingSQL = `DELETE FROM verdict_pending_job WHERE coalesce_key = $1 AND job_id = $2 RETURNING args`
	generationSQL   = `SELECT generation FROM verdict_generation WHERE coalesce_key = $1`
)

// Delivery is one webhook delivery as the log keeps it.
type Delivery struct {
	ID       string
	Event    string
	Action   string
	Repo     string // owner/name, empty when the payload has none
	PR       int
	Received time.Time
	// Outcome is "queued" when jobs were enqueued, "ignored" otherwise.
	Outcome string
	Jobs    int
	// BodySHA256 is the hex SHA-256 of the signed body ("" when unknown);
	// it is kept apart from the log row (InsertBodies).
	BodySHA256 string
}

// InsertDelivery records d unless its ID is already known. It reports
// whether d is new; a redelivery returns false and must not be processed.
func InsertDelivery(ctx context.Context, ex Execer, d Delivery) (bool, error) {
	n, err := ex.Exec(ctx, insertDeliverySQL,
		d.ID, d.Event, d.Action, d.Repo, d.PR, d.Received.UnixMilli(), d.Outcome, d.Jobs)
	if err != nil {
		return false, fmt.Errorf("recording delivery %s: %w", d.ID, err)
	}
	return n == 1, nil
}

// LookupDelivery returns the log entry of a delivery ID.
func (s *Store) LookupDelivery(ctx context.Context, id string) (Delivery, error) {
	d := Delivery{ID: id}
	var ms int64
	err := s.db.QueryRow(ctx, `SELECT event, action, repo, pr_number, received_at, outcome, jobs
		FROM verdict_delivery WHERE delivery_id = $1`, id).
		Scan(&d.Event, &d.Action, &d.Repo, &d.PR, &ms, &d.Outcome, &d.Jobs)
	if err != nil {
		return Delivery{}, fmt.Errorf("looking up delivery %s: %w", id, err)
	}
	d.Received = time.UnixMilli(ms).UTC()
	return d, nil
}

// PruneDeliveries forgets deliveries received before cutoff. GitHub only
// redelivers recent deliveries, so the dedupe log need not grow forever.
func (s *Store) PruneDeliveries(ctx context.Context, cutoff time.Time) (int64, error) {
	n, err := s.db.Exec(ctx, `DELETE FROM verdict_delivery WHERE received_at < $1`, cutoff.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("pruning deliveries: %w", err)
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM verdict_delivery_body WHERE received_at < $1`, cutoff.UnixMilli()); err != nil {
		return n, fmt.Errorf("pruning delivery bodies: %w", err)
	}
	return n, nil
}

// CountDeliveries is the number of deliveries logged (for tests and ops).
func (s *Store) CountDeliveries(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM verdict_delivery`).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting deliveries: %w", err)
	}
	return n, nil
}

// NextGeneration bumps and returns the generation of a coalescing key. Run it
// in the transaction that enqueues the job carrying the generation.
func NextGeneration(ctx context.Context, ex Execer, key string) (int64, error) {
	var g int64
	err := ex.QueryRow(ctx, nextGenerationSQL, key).Scan(&g)
	if err != nil {
		return 0, fmt.Errorf("bumping generation of %s: %w", key, err)
	}
	return g, nil
}

// FoldPending gives args (JSON) to the job of key that has not begun
// verifying, if there is one, and reports whether there was.
func FoldPending(ctx context.Context, ex Execer, key string, args []byte) (bool, error) {
	n, err := ex.Exec(ctx, foldPendingSQL, key, string(args))
	if err != nil {
		return false, fmt.Errorf("folding a request into the pending job of %s: %w", key, err)
	}
	return n == 1, nil
}

// SetPendingJob records job id as the pending job of key, to verify with
// args (JSON).
func SetPendingJob(ctx context.Context, ex Execer, key string, id int64, args []byte) error {
	_, err := ex.Exec(ctx, setPendingJobSQL, key, id, string(args))
	if err != nil {
		return fmt.Errorf("recording the pending job of %s: %w", key, err)
	}
	return nil
}

// DropPending ends the pending state of key's waiting job, if any: it
// keeps the arguments it has, and requests from now on add a job.
func DropPending(ctx context.Context, ex Execer, key string) error {
	if _, err := ex.Exec(ctx, dropPendingSQL, key); err != nil {
		return fmt.Errorf("ending the pending state of %s: %w", key, err)
	}
	return nil
}

// PendingJob returns the pending job of key (ok false if none).
func (s *Store) PendingJob(ctx context.Context, key string) (id int64, ok bool, err error) {
	err = s.db.QueryRow(ctx, pendingJobSQL, key).Scan(&id)
	if err == ErrNoRows {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("reading the pending job of %s: %w", key, err)
	}
	return id, true, nil
}

// ClaimPending ends job id's pending state for key and returns the
// arguments folded into it (ok false when id is not key's pending job):
// from then on, events for key add a new job.
func ClaimPending(ctx context.Context, ex Execer, key string, id int64) (args []byte, ok bool, err error) {
	var a string
	err = ex.QueryRow(ctx, claimPendingSQL, key, id).Scan(&a)
	if err == ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("claiming the pending job of %s: %w", key, err)
	}
	return []byte(a), true, nil
}

// Generation returns the current generation of key (0 if never enqueued).
func (s *Store) Generation(ctx context.Context, key string) (int64, error) {
	var g int64
	err := s.db.QueryRow(ctx, generationSQL, key).Scan(&g)
	if err == ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading generation of %s: %w", key, err)
	}
	return g, nil
}

// Verdict is one published verdict, as the audit trail keeps it.
type Verdict struct {
	Repo        string // owner/name
	PR          int
	SignOffKey  string
	AssessedSHA string
	Verdict     string // PASS, WARN or REJECTED
	CommentURL  string
	DeliveryID  string
	PublishedAt time.Time
}

// AppendVerdict appends v to the audit trail. PublishedAt defaults to now.
func (s *Store) AppendVerdict(ctx context.Context, v Verdict) error {
	if v.PublishedAt.IsZero() {
		v.PublishedAt = time.Now()
	}
	_, err := s.db.Exec(ctx, `INSERT INTO verdict_audit
		(repo, pr_number, signoff_key, assessed_sha, verdict, comment_url, delivery_id, published_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		v.Repo, v.PR, v.SignOffKey, v.AssessedSHA, v.Verdict, v.CommentURL, v.DeliveryID, v.PublishedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("recording verdict for %s#%d: %w", v.Repo, v.PR, err)
	}
	return nil
}

// Verdicts returns the audit trail of one PR, oldest first.
func (s *Store) Verdicts(ctx context.Context, repo string, pr int) ([]Verdict, error) {
	var out []Verdict
	err := s.each(ctx, `SELECT signoff_key, assessed_sha, verdict, comment_url, delivery_id, published_at
		FROM verdict_audit WHERE repo = $1 AND pr_number = $2
		ORDER BY published_at, signoff_key, assessed_sha`, []any{repo, pr}, func(r Row) error {
		v := Verdict{Repo: repo, PR: pr}
		var ms int64
		if err := r.Scan(&v.SignOffKey, &v.AssessedSHA, &v.Verdict, &v.CommentURL, &v.DeliveryID, &ms); err != nil {
			return err
		}
		v.PublishedAt = time.UnixMilli(ms).UTC()
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading verdicts of %s#%d: %w", repo, pr, err)
	}
	return out, nil
}

// QueueDepth counts jobs waiting to run (available, scheduled, retryable,
// pending) in River's table.
func (s *Store) QueueDepth(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'pending')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting queued jobs: %w", err)
	}
	return n, nil
}

// KnownDelivery reports whether a delivery ID (X-GitHub-Delivery, GitHub's
// GUID) is in the delivery log: Verdict stored it, so it needs no
// redelivery.
func (s *Store) KnownDelivery(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.db.QueryRow(ctx, `SELECT 1 FROM verdict_delivery WHERE delivery_id = $1`, id).Scan(&one)
	if err == ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking up delivery %s: %w", id, err)
	}
	return true, nil
}
