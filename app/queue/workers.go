package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/store"
)

// Verifier verifies one sign-off and publishes the verdict (implemented by
// the verification pipeline). Errors wrapping jobs.ErrTransient are retried
// with backoff (a jobs.RateLimitError waits as long as it says); any other
// error is final and logged.
type Verifier interface {
	Verify(ctx context.Context, a jobs.VerifyArgs) error
}

// ReuseAcknowledger reacts to a reuse command comment (§3.5).
type ReuseAcknowledger interface {
	Acknowledge(ctx context.Context, a jobs.ReuseArgs) error
}

// Welcomer posts the welcome / recipe reminder when it applies (§2.7).
type Welcomer interface {
	Welcome(ctx context.Context, a jobs.WelcomeArgs) error
}

type verifyWorker struct {
	river.WorkerDefaults[jobs.VerifyArgs]
	q *Queue
}

func (w *verifyWorker) Work(ctx context.Context, job *river.Job[jobs.VerifyArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindVerify, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "pr", a.PR, "delivery_id", a.DeliveryID,
		"signoff_key", a.SignOffKey, "action", a.Action)
	// Coalescing: a newer event for the same sign-off was enqueued after
	// this one; that job will verify the latest state, so this one is moot.
	cur, err := q.st.Generation(ctx, a.CoalesceKey())
	if err != nil {
		return jobs.Transient(err)
	}
	if a.Generation > 0 && a.Generation < cur {
		log.Info("verification superseded by a newer event for the same sign-off", "generation", a.Generation, "latest", cur)
		metrics.Job(jobs.KindVerify, "superseded")
		return nil
	}
	if q.opt.Verifier == nil {
		return q.final(log, jobs.KindVerify, errors.New("no verifier configured"))
	}
	return q.exclusive(ctx, log, job.JobRow, "verify:"+jobs.PRKey(a.Repo, a.PR), jobs.KindVerify, func(ctx context.Context) error {
		start := time.Now()
		err := q.opt.Verifier.Verify(ctx, a)
		metrics.Verification(time.Since(start), outcomeOf(err))
		return err
	})
}

type reuseWorker struct {
	river.WorkerDefaults[jobs.ReuseArgs]
	q *Queue
}

func (w *reuseWorker) Work(ctx context.Context, job *river.Job[jobs.ReuseArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindReuse, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "pr", a.PR, "delivery_id", a.DeliveryID,
		"comment_id", a.CommentID, "action", a.Action)
	if q.opt.Reuse == nil {
		return q.final(log, jobs.KindReuse, errors.New("no reuse acknowledger configured"))
	}
	// §1.6: its own per-PR group, so acknowledgements never overtake each
	// other but do not wait for verifications.
	return q.exclusive(ctx, log, job.JobRow, "reuse:"+jobs.PRKey(a.Repo, a.PR), jobs.KindReuse, func(ctx context.Context) error {
		return q.opt.Reuse.Acknowledge(ctx, a)
	})
}

type welcomeWorker struct {
	river.WorkerDefaults[jobs.WelcomeArgs]
	q *Queue
}

func (w *welcomeWorker) Work(ctx context.Context, job *river.Job[jobs.WelcomeArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindWelcome, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "pr", a.PR, "head_sha", a.HeadSHA, "delivery_id", a.DeliveryID, "action", a.Action)
	if q.opt.Welcomer == nil {
		return q.final(log, jobs.KindWelcome, errors.New("no welcomer configured"))
	}
	// Serialized per PR so two quick triggers cannot both post the
	// reminder before either sees the other's marker.
	return q.exclusive(ctx, log, job.JobRow, "welcome:"+jobs.PRKey(a.Repo, a.PR), jobs.KindWelcome, func(ctx context.Context) error {
		return q.opt.Welcomer.Welcome(ctx, a)
	})
}

func outcomeOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case jobs.IsTransient(err):
		return "retry"
	default:
		return "failed"
	}
}

// exclusive runs f while holding key, so at most one job per key runs at a
// time. On PostgreSQL the key is a lease row, which holds across every
// process sharing the database; SQLite serves a single process, so an
// in-process lock does the same without a write (and an fsync) per job. A
// job that finds the key busy steps aside (River snooze, which spends no
// attempt) and comes back shortly.
func (q *Queue) exclusive(ctx context.Context, log *slog.Logger, job *rivertype.JobRow, key, kind string, f func(context.Context) error) error {
	busy := func() error {
		metrics.Job(kind, "busy")
		wait := q.opt.BusyRetry + rand.N(q.opt.BusyRetry/2+1)
		log.Debug("PR busy with another job; waiting", "lease", key, "wait", wait)
		return river.JobSnooze(wait)
	}
	if q.st.Dialect() == store.SQLite {
		if !q.locks.tryLock(key) {
			return busy()
		}
		err := f(ctx)
		q.locks.unlock(key)
		return q.classify(log, job, kind, err)
	}
	holder := q.id + "/" + strconv.FormatInt(job.ID, 10)
	ok, err := q.st.AcquireLease(ctx, key, holder, q.opt.LeaseTTL)
	if err != nil {
		log.Warn("could not take the per-PR lease; will retry", "err", err)
		metrics.Job(kind, "retry")
		return err
	}
	if !ok {
		return busy()
	}
	workCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewDone := make(chan struct{})
	go func() {
		defer close(renewDone)
		t := time.NewTicker(q.opt.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-workCtx.Done():
				return
			case <-t.C:
				ok, err := q.st.AcquireLease(workCtx, key, holder, q.opt.LeaseTTL)
				if err == nil && !ok {
					// Someone took an expired lease: stop rather than
					// run two verifications of one PR at once.
					cancel(fmt.Errorf("lost the per-PR lease %s", key))
					return
				}
				if err != nil && workCtx.Err() == nil {
					log.Warn("renewing the per-PR lease failed", "lease", key, "err", err)
				}
			}
		}
	}()
	err = f(workCtx)
	cancel(nil)
	<-renewDone
	if rerr := q.st.ReleaseLease(context.WithoutCancel(ctx), key, holder); rerr != nil {
		log.Warn("releasing the per-PR lease failed; it will expire", "lease", key, "err", rerr)
	}
	if cause := context.Cause(workCtx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = jobs.Transient(fmt.Errorf("%w (%v)", err, cause))
	}
	return q.classify(log, job, kind, err)
}

// keyLocks is a set of held keys (non-blocking try-lock per key).
type keyLocks struct {
	mu   sync.Mutex
	held map[string]bool
}

func (l *keyLocks) tryLock(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[key] {
		return false
	}
	if l.held == nil {
		l.held = map[string]bool{}
	}
	l.held[key] = true
	return true
}

func (l *keyLocks) unlock(key string) {
	l.mu.Lock()
	delete(l.held, key)
	l.mu.Unlock()
}

// classify turns a handler's error into River's vocabulary: nil is done,
// a rate limit waits its time, a transient error is retried with backoff,
// anything else is cancelled for good.
func (q *Queue) classify(log *slog.Logger, job *rivertype.JobRow, kind string, err error) error {
	if err == nil {
		metrics.Job(kind, "ok")
		return nil
	}
	if wait, ok := jobs.RetryAfter(err); ok && time.Since(job.CreatedAt) < q.opt.RateLimitMaxAge {
		metrics.Job(kind, "retry")
		log.Warn("rate limited; waiting before retrying", "wait", wait, "err", err)
		return river.JobSnooze(wait)
	}
	if jobs.IsTransient(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		metrics.Job(kind, "retry")
		if job.Attempt >= job.MaxAttempts {
			log.Error("job failed for the last time", "err", err)
		} else {
			log.Warn("job failed; will retry", "err", err)
		}
		return err
	}
	return q.final(log, kind, err)
}

func (q *Queue) final(log *slog.Logger, kind string, err error) error {
	metrics.Job(kind, "failed")
	log.Error("job failed; not retrying", "err", err)
	return river.JobCancel(err)
}
