// Package queue is Verdict's durable job queue: River on SQLite (default)
// or PostgreSQL, with group commit on intake, per-PR serialization and
// coalescing of bursts for one sign-off on the way out.
//
// Intake: the webhook handler calls Enqueue; a single batcher goroutine
// stores whatever deliveries arrived within a few milliseconds in ONE
// transaction (delivery log rows for dedupe plus their River jobs) and only
// then answers each caller. One fsync serves the whole batch, which is what
// lets SQLite acknowledge thousands of deliveries per second while workers
// drain the same database.
package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/store"
)

// Options configures a Queue. Zero values take the defaults noted.
type Options struct {
	// Handlers run the jobs. A nil handler's jobs fail (final) with a clear
	// error, so a deployment missing one is visible in logs.
	Verifier Verifier
	Reuse    ReuseAcknowledger
	Welcomer Welcomer
	// HeadMover marks pushed PRs; Recoverer redelivers missed webhooks,
	// every RecoverEvery (0: never) on one process (lifecycle.go).
	HeadMover    HeadMover
	Recoverer    Recoverer
	RecoverEvery time.Duration
	// Rerunner finds the PRs of a re-run that named none.
	Rerunner Rerunner
	// MergeGroups answers merge queues (optional).
	MergeGroups MergeGrouper
	// Runs completes check runs left in progress (optional), at start and
	// every SettleEvery (default 5m).
	Runs        RunSettler
	SettleEvery time.Duration

	Logger *slog.Logger

	// Workers is the number of jobs run at once (default 8). Zero workers
	// with InsertOnly makes a queue that stores but never works.
	Workers    int
	InsertOnly bool

	// Linger is how long the batcher waits after the first delivery of a
	// batch for more to join it (default 1ms; deliveries arriving during a
	// commit join the next batch anyway); MaxBatch caps a batch (256).
	Linger   time.Duration
	MaxBatch int

	// MaxAttempts per job before it is discarded (default 10). RetryPolicy
	// spaces the attempts (default River's attempt^4 seconds).
	MaxAttempts int
	RetryPolicy river.ClientRetryPolicy
	// RateLimitMaxAge bounds how long a job keeps waiting out rate limits
	// without spending attempts (default 6h).
	RateLimitMaxAge time.Duration

	// BusyRetry is how soon a job finding its PR busy tries again (default
	// 500ms, plus jitter).
	BusyRetry time.Duration
	// LockCheck is how often a PostgreSQL process stamps its heartbeat and
	// checks its process lock (default 5s); Lease how long a per-PR lock
	// or a heartbeat lasts unrenewed (default 30s: a process whose host
	// died loses its PRs and jobs within it). OrphanCheck is how often
	// running jobs are checked for a dead process or a fetch whose answer
	// never reached its worker (default 5s). See locks.go and rescue.go.
	LockCheck   time.Duration
	Lease       time.Duration
	OrphanCheck time.Duration

	// JobTimeout cancels a job running longer (default 5m, far above any
	// verification). A verification gets it to decide its verdict on its
	// first attempt, twice as long on each retry (at most 8×), and two
	// minutes more to publish (see assessBudget). River's own rescue of
	// stuck jobs, a backstop for what OrphanCheck cannot see, starts 30s
	// after the longest.
	JobTimeout time.Duration
	// KeepDeliveries is how long delivery IDs are remembered for dedupe
	// (default 14 days; GitHub redelivers only recent deliveries).
	KeepDeliveries time.Duration

	// FetchPollInterval is how often idle workers look for jobs (default
	// 200ms; SQLite has no LISTEN/NOTIFY).
	FetchPollInterval time.Duration
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Linger <= 0 {
		o.Linger = time.Millisecond
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 256
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 10
	}
	if o.RateLimitMaxAge <= 0 {
		o.RateLimitMaxAge = 6 * time.Hour
	}
	if o.BusyRetry <= 0 {
		o.BusyRetry = 500 * time.Millisecond
	}
	if o.LockCheck <= 0 {
		o.LockCheck = 5 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.OrphanCheck <= 0 {
		o.OrphanCheck = 5 * time.Second
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = 5 * time.Minute
	}
	if o.SettleEvery <= 0 {
		o.SettleEvery = 5 * time.Minute
	}
	if o.KeepDeliveries <= 0 {
		o.KeepDeliveries = 14 * 24 * time.Hour
	}
	if o.FetchPollInterval <= 0 {
		o.FetchPollInterval = 200 * time.Millisecond
	}
}

// Delivery is one webhook delivery and the jobs routing derived from it.
type Delivery struct {
	store.Delivery
	Jobs []jobs.Args
}

// Queue stores deliveries and runs their jobs.
type Queue struct {
	st     *store.Store
	opt    Options
	log    *slog.Logger
	eng    engine
	batch  *batcher
	locks  locker
	schema string    // PostgreSQL only
	live   *liveness // PostgreSQL only
	held   held      // the jobs this process's workers run

	// stopping is set once Stop began: a job cancelled after that was
	// interrupted by the shutdown and snoozes instead of spending an attempt.
	stopping atomic.Bool

	stopPrune   chan struct{}
	pruneDone   chan struct{}
	stopOrphans chan struct{}
	orphansDone chan struct{}
	stopRuns    chan struct{}
	runsDone    chan struct{}
}

// engine is the River client over one database; riverEngine implements it
// once for both SQLite and PostgreSQL.
type engine interface {
	commit(ctx context.Context, batch []*request) error
	commits() int
	start(ctx context.Context) error
	stop(ctx context.Context) error
	clientID() string
	running(ctx context.Context) ([]*rivertype.JobRow, error)
	unfinished(ctx context.Context, kinds []string) ([]*rivertype.JobRow, error)
	claim(ctx context.Context, st *store.Store, key string, id int64) (jobs.VerifyArgs, bool, error)
	resume(ctx context.Context, j *rivertype.JobRow, why string) error
}

// ErrClosed is returned by Enqueue after Stop.
var ErrClosed = errors.New("queue is shut down")

// New migrates River's tables in st's database and prepares a queue; Start
// begins intake and work.
func New(ctx context.Context, st *store.Store, opt Options) (*Queue, error) {
	opt.defaults()
	q := &Queue{st: st, opt: opt, log: opt.Logger}
	workers := river.NewWorkers()
	river.AddWorker(workers, &verifyWorker{q: q})
	river.AddWorker(workers, &reuseWorker{q: q})
	river.AddWorker(workers, &welcomeWorker{q: q})
	river.AddWorker(workers, &headMovedWorker{q: q})
	river.AddWorker(workers, &recoverWorker{q: q})
	river.AddWorker(workers, &rerunWorker{q: q})
	river.AddWorker(workers, &withdrawWorker{q: q})
	river.AddWorker(workers, &mergeGroupWorker{q: q})
	cfg := &river.Config{
		ID:                   clientID(),
		Workers:              workers,
		Middleware:           []rivertype.Middleware{&holding{h: &q.held}},
		MaxAttempts:          opt.MaxAttempts,
		RetryPolicy:          opt.RetryPolicy,
		JobTimeout:           opt.JobTimeout,
		RescueStuckJobsAfter: opt.JobTimeout<<maxBudgetDoublings + publishBudget + 30*time.Second,
		FetchPollInterval:    opt.FetchPollInterval,
		FetchCooldown:        min(opt.FetchPollInterval, 100*time.Millisecond),
		Logger:               opt.Logger.With("component", "river"),
		// Verification outcomes live in the audit table; keep finished
		// jobs a day for inspection.
		CompletedJobRetentionPeriod: 24 * time.Hour,
	}
	if opt.Recoverer != nil && opt.RecoverEvery > 0 && !opt.InsertOnly {
		cfg.PeriodicJobs = []*river.PeriodicJob{recoverPeriodically(opt.RecoverEvery)}
	}
	if !opt.InsertOnly {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: opt.Workers}}
	}
	var err error
	switch st.Dialect() {
	case store.SQLite:
		q.eng, err = newSQLiteEngine(ctx, st, cfg)
		q.locks = &memLocks{}
	case store.Postgres:
		q.eng, err = newPgxEngine(ctx, st, cfg)
		if err == nil {
			q.schema, err = currentSchema(ctx, st)
		}
		if err == nil {
			q.live = &liveness{pool: st.Pgx(), schema: q.schema, client: q.eng.clientID(), check: opt.LockCheck, stale: opt.Lease, log: q.log}
			locks := &pgLocks{pool: st.Pgx(), client: q.eng.clientID(), ttl: opt.Lease, state: q.live.state}
			q.live.broke, q.locks = locks.loseAll, locks
		}
	default:
		err = fmt.Errorf("unsupported database %q", st.Dialect())
	}
	if err != nil {
		return nil, err
	}
	q.batch = newBatcher(q.eng, opt.Linger, opt.MaxBatch, q.eng.commits(), opt.Logger)
	metrics.SetQueueDepth(st.QueueDepth)
	return q, nil
}

// clientID names this process's River client: unique per process start,
// since other processes judge by it whether a running job's process lives.
func clientID() string {
	host, _ := os.Hostname()
	if len(host) > 60 {
		host = host[:60]
	}
	var b [6]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s_%d_%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Start begins accepting deliveries and, unless InsertOnly, working jobs,
// first resuming the jobs a dead process left running (see rescue.go).
// Cancelling ctx does not stop the queue: Stop does, gracefully.
func (q *Queue) Start(ctx context.Context) error {
	if !q.opt.InsertOnly {
		if err := q.startWork(ctx); err != nil {
			return err
		}
	}
	q.batch.start()
	q.stopPrune, q.pruneDone = make(chan struct{}), make(chan struct{})
	go q.prune()
	return nil
}

func (q *Queue) startWork(ctx context.Context) error {
	if q.st.Dialect() == store.SQLite {
		// One process per SQLite database: whatever runs is this one's
		// predecessor's, and its in-memory locks died with it.
		if _, err := q.rescueOrphans(ctx, true); err != nil {
			return err
		}
	}
	if q.st.Dialect() == store.Postgres {
		// Held before any job can be fetched under this client ID.
		if err := q.live.start(ctx); err != nil {
			return err
		}
	}
	if err := q.eng.start(context.WithoutCancel(ctx)); err != nil {
		if q.live != nil {
			q.live.release()
		}
		return fmt.Errorf("starting job workers: %w", err)
	}
	if q.st.Dialect() == store.Postgres {
		if _, err := q.rescueOrphans(ctx, false); err != nil {
			q.log.Warn("looking for jobs of dead processes failed", "err", err)
		}
	}
	q.stopOrphans, q.orphansDone = make(chan struct{}), make(chan struct{})
	go q.watchOrphans(q.opt.OrphanCheck, q.stopOrphans, q.orphansDone)
	if q.opt.Runs != nil {
		q.stopRuns, q.runsDone = make(chan struct{}), make(chan struct{})
		go q.watchRuns(q.opt.SettleEvery, q.stopRuns, q.runsDone)
	}
	return nil
}

// prune trims the delivery log hourly.
func (q *Queue) prune() {
	defer close(q.pruneDone)
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		n, err := q.st.PruneDeliveries(ctx, time.Now().Add(-q.opt.KeepDeliveries))
		cancel()
		if err != nil {
			q.log.Warn("pruning the delivery log failed", "err", err)
		} else if n > 0 {
			q.log.Info("pruned the delivery log", "deliveries", n)
		}
		select {
		case <-q.stopPrune:
			return
		case <-t.C:
		}
	}
}

// Stop stores what is still pending, then stops fetching jobs and lets
// running ones finish until ctx ends; those still running then are
// cancelled and come back at the next start without having spent an
// attempt. Call it after the HTTP server stopped taking requests.
func (q *Queue) Stop(ctx context.Context) error {
	if q.stopPrune != nil {
		close(q.stopPrune)
		<-q.pruneDone
		q.stopPrune = nil
	}
	q.batch.stop()
	if q.opt.InsertOnly {
		return nil
	}
	q.stopping.Store(true)
	if q.stopOrphans != nil {
		close(q.stopOrphans)
		<-q.orphansDone
		q.stopOrphans = nil
	}
	if q.stopRuns != nil {
		close(q.stopRuns)
		<-q.runsDone
		q.stopRuns = nil
	}
	err := q.eng.stop(ctx)
	if q.live != nil {
		q.live.release()
	}
	return err
}

// Outcome is what intake did with a delivery; the delivery log stores it
// and intake's metrics count it.
type Outcome string

const (
	// Queued: the delivery and its jobs are stored.
	Queued Outcome = "queued"
	// Ignored: the delivery is logged; it asked for nothing.
	Ignored Outcome = "ignored"
	// Duplicate: the delivery ID was stored before; nothing was stored.
	Duplicate Outcome = "duplicate"
	// Replayed: the same signed body came before under another delivery
	// ID (GitHub keeps the ID on a redelivery): someone who captured a
	// delivery sent it again. Logged, not acted on.
	Replayed Outcome = "replayed"
)

// deliveryOutcome is the outcome of storing d for the first time.
func deliveryOutcome(d Delivery) Outcome {
	if len(d.Jobs) > 0 {
		return Queued
	}
	return Ignored
}

// Enqueue stores d and its jobs durably (in a group commit with whatever
// else arrived meanwhile) and says what it did: Duplicate, storing
// nothing, when d's delivery ID was stored before.
func (q *Queue) Enqueue(ctx context.Context, d Delivery) (Outcome, error) {
	return q.batch.submit(ctx, d)
}

// Store is the store the queue runs on.
func (q *Queue) Store() *store.Store { return q.st }
