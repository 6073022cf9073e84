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
	"time"

	"github.com/riverqueue/river"

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

	// LeaseTTL is how long a per-PR lease lasts without renewal (default
	// 2m; renewed every third of it). Leases are PostgreSQL's per-PR lock;
	// SQLite runs in one process and locks in memory. BusyRetry is how soon a job finding
	// its PR busy tries again (default 500ms, plus jitter).
	LeaseTTL  time.Duration
	BusyRetry time.Duration

	// JobTimeout cancels a job running longer (default 10m).
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
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 2 * time.Minute
	}
	if o.BusyRetry <= 0 {
		o.BusyRetry = 500 * time.Millisecond
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = 10 * time.Minute
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
	st    *store.Store
	opt   Options
	log   *slog.Logger
	id    string // distinguishes this process's lease holders
	eng   engine
	batch *batcher
	locks keyLocks // per-PR exclusion on SQLite (one process)

	stopPrune chan struct{}
	pruneDone chan struct{}
}

// engine is the River client over one database; riverEngine implements it
// once for both SQLite and PostgreSQL.
type engine interface {
	commit(ctx context.Context, batch []*request) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
}

// ErrClosed is returned by Enqueue after Stop.
var ErrClosed = errors.New("queue is shut down")

// New migrates River's tables in st's database and prepares a queue; Start
// begins intake and work.
func New(ctx context.Context, st *store.Store, opt Options) (*Queue, error) {
	opt.defaults()
	var b [6]byte
	rand.Read(b[:])
	q := &Queue{st: st, opt: opt, log: opt.Logger, id: hex.EncodeToString(b[:])}
	workers := river.NewWorkers()
	river.AddWorker(workers, &verifyWorker{q: q})
	river.AddWorker(workers, &reuseWorker{q: q})
	river.AddWorker(workers, &welcomeWorker{q: q})
	cfg := &river.Config{
		Workers:           workers,
		MaxAttempts:       opt.MaxAttempts,
		RetryPolicy:       opt.RetryPolicy,
		JobTimeout:        opt.JobTimeout,
		FetchPollInterval: opt.FetchPollInterval,
		FetchCooldown:     min(opt.FetchPollInterval, 100*time.Millisecond),
		Logger:            opt.Logger.With("component", "river"),
		// Verification outcomes live in the audit table; keep finished
		// jobs a day for inspection.
		CompletedJobRetentionPeriod: 24 * time.Hour,
	}
	if !opt.InsertOnly {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: opt.Workers}}
	}
	var err error
	switch st.Dialect() {
	case store.SQLite:
		q.eng, err = newSQLiteEngine(ctx, st, cfg)
	case store.Postgres:
		q.eng, err = newPgxEngine(ctx, st, cfg)
	default:
		err = fmt.Errorf("unsupported database %q", st.Dialect())
	}
	if err != nil {
		return nil, err
	}
	q.batch = newBatcher(q.eng, opt.Linger, opt.MaxBatch, opt.Logger)
	metrics.SetQueueDepth(st.QueueDepth)
	return q, nil
}

// Start begins accepting deliveries and, unless InsertOnly, working jobs.
func (q *Queue) Start(ctx context.Context) error {
	if !q.opt.InsertOnly {
		if err := q.eng.start(ctx); err != nil {
			return fmt.Errorf("starting job workers: %w", err)
		}
	}
	q.batch.start()
	q.stopPrune, q.pruneDone = make(chan struct{}), make(chan struct{})
	go q.prune()
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

// Stop stores what is still pending, then lets running jobs finish until ctx
// ends. Call it after the HTTP server stopped taking requests.
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
	return q.eng.stop(ctx)
}

// Enqueue stores d and its jobs durably (in a group commit with whatever
// else arrived meanwhile). It reports duplicate=true, storing nothing, when
// d's delivery ID was stored before.
func (q *Queue) Enqueue(ctx context.Context, d Delivery) (duplicate bool, err error) {
	return q.batch.submit(ctx, d)
}

// Store is the store the queue runs on.
func (q *Queue) Store() *store.Store { return q.st }
