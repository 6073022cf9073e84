package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/retry"
)

// Verifier verifies one sign-off and publishes the verdict (implemented by
// the verification pipeline). Errors wrapping retry.ErrTransient are retried
// with backoff (a retry.RateLimitError waits as long as it says); any other
// error is final and logged.
type Verifier interface {
	Verify(ctx context.Context, a jobs.VerifyArgs, at jobs.Attempt) error
}

// Abandoner is a Verifier that can settle a verification the queue gives up
// on (a final error, or the last attempt failed): its status and check run
// must not stay pending.
type Abandoner interface {
	Abandon(ctx context.Context, a jobs.VerifyArgs, cause error) error
}

// ReuseAcknowledger reacts to a reuse command comment
// (checks/inferencex/RULES.md, "Reuse commands").
type ReuseAcknowledger interface {
	Acknowledge(ctx context.Context, a jobs.ReuseArgs) error
}

// Welcomer posts the welcome / recipe reminder when it applies.
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
		"signoff", a.SignOff.Key(), "action", a.Action)
	// Coalescing: a job still pending for its sign-off verifies with the
	// arguments of the newest event folded into it (claimed below). Any
	// other job whose generation is behind the sign-off's was superseded
	// by a newer job, which will verify the latest state.
	key := a.CoalesceKey()
	owner, pending, err := q.st.PendingJob(ctx, key)
	if err != nil {
		return retry.Transient(err)
	}
	if !pending || owner != job.ID {
		cur, err := q.st.Generation(ctx, key)
		if err != nil {
			return retry.Transient(err)
		}
		if a.Generation > 0 && a.Generation < cur {
			log.Info("verification superseded by a newer event for the same sign-off", "generation", a.Generation, "latest", cur)
			metrics.Job(jobs.KindVerify, "superseded")
			return nil
		}
	}
	if q.opt.Verifier == nil {
		return q.final(log, jobs.KindVerify, errors.New("no verifier configured"))
	}
	at := jobs.Attempt{Number: job.Attempt, Max: job.MaxAttempts, AssessBy: time.Now().Add(q.assessBudget(job.Attempt))}
	return q.exclusive(ctx, log, job.JobRow, "verify:"+jobs.PRKey(a.Repo, a.PR), jobs.KindVerify, func(ctx context.Context) error {
		// Begin: from here on, new events for the sign-off get a job of
		// their own, and this one verifies with the newest folded into it.
		if latest, ok, err := q.eng.claim(ctx, q.st, key, job.ID); err != nil {
			return retry.Transient(err)
		} else if ok {
			a = latest
			log = log.With("delivery_id", a.DeliveryID, "action", a.Action, "generation", a.Generation)
		}
		if n := processDeaths(job.JobRow); n >= maxProcessDeaths {
			// Quarantined: stored with its attempts' errors, settled as
			// not verifiable, and never run into another crash.
			err := fmt.Errorf("quarantined: %d attempts ended with their process (a crash or an out-of-memory kill); not run again", n)
			metrics.Job(jobs.KindVerify, "quarantined")
			q.abandon(ctx, log, a, err)
			return river.JobCancel(err)
		}
		if at.Number > at.Max {
			// Resumed after its last attempt died with its process.
			err := fmt.Errorf("gave up after %d attempts; the last one ended with its process", at.Max)
			q.abandon(ctx, log, a, err)
			return err
		}
		start := time.Now()
		err := q.opt.Verifier.Verify(ctx, a, at)
		metrics.Verification(time.Since(start), outcomeOf(err))
		if q.givesUp(ctx, job.JobRow, err) {
			q.abandon(ctx, log, a, err)
		}
		return err
	})
}

// publishBudget is how long a verification may spend publishing a verdict
// it decided within its assessment budget: comment, status and check run
// take a handful of writes.
const publishBudget = 2 * time.Minute

// maxBudgetDoublings caps how often a retry doubles the assessment budget.
const maxBudgetDoublings = 3

// assessBudget is how long attempt may take to decide its verdict: the job
// timeout, doubled for each earlier attempt (at most 8×). A verification
// slower than the timeout (GitHub answering slowly) thus completes on a
// later attempt instead of being cut at the same point every time.
func (q *Queue) assessBudget(attempt int) time.Duration {
	return q.opt.JobTimeout << min(max(attempt-1, 0), maxBudgetDoublings)
}

// Timeout is River's bound on one attempt: its assessment budget plus
// the time to publish what it decided.
func (w *verifyWorker) Timeout(job *river.Job[jobs.VerifyArgs]) time.Duration {
	return w.q.assessBudget(job.Attempt) + publishBudget
}

// abandon lets the verifier settle a verification given up for good. It
// runs under the PR's lock, so no newer verification is overwritten.
func (q *Queue) abandon(ctx context.Context, log *slog.Logger, a jobs.VerifyArgs, cause error) {
	ab, ok := q.opt.Verifier.(Abandoner)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := ab.Abandon(ctx, a, cause); err != nil {
		log.Error("settling an abandoned verification failed; its status may stay pending", "err", err, "cause", cause)
		return
	}
	log.Warn("verification abandoned; status and check run say it could not be verified", "cause", cause)
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
	// Its own per-PR group, so acknowledgements never overtake each
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
	case retry.IsTransient(err):
		return "retry"
	default:
		return "failed"
	}
}

// exclusive runs f while holding key, so at most one job per key runs at a
// time, across every process sharing the database (see locks.go). A job
// that finds the key busy steps aside (River snooze, which spends no
// attempt) and comes back shortly.
func (q *Queue) exclusive(ctx context.Context, log *slog.Logger, job *rivertype.JobRow, key, kind string, f func(context.Context) error) error {
	lock, ok, err := q.locks.tryLock(ctx, key)
	if err != nil {
		return q.classify(ctx, log, job, kind, retry.Transient(fmt.Errorf("taking the per-PR lock: %w", err)))
	}
	if !ok {
		metrics.Job(kind, "busy")
		wait := q.opt.BusyRetry + rand.N(q.opt.BusyRetry/2+1)
		log.Debug("PR busy with another job; waiting", "lock", key, "wait_ms", wait.Milliseconds())
		return river.JobSnooze(wait)
	}
	workCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-lock.lost():
			// Another process may take the PR now: stop rather than run
			// two verifications of one PR at once.
			cancel(fmt.Errorf("lost the per-PR lock %s", key))
		case <-workCtx.Done():
		}
	}()
	err = f(workCtx)
	cancel(nil)
	lock.release()
	if cause := context.Cause(workCtx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = retry.Transient(fmt.Errorf("%w (%v)", err, cause))
	}
	return q.classify(ctx, log, job, kind, err)
}

// interrupted reports whether a job's failure is the shutdown cancelling it.
func (q *Queue) interrupted(ctx context.Context) bool {
	return q.stopping.Load() && ctx.Err() != nil
}

// givesUp reports whether classify will end the job for good with err.
func (q *Queue) givesUp(ctx context.Context, job *rivertype.JobRow, err error) bool {
	switch {
	case err == nil, q.interrupted(ctx):
		return false
	case retry.IsTransient(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		if _, ok := retry.After(err); ok && time.Since(job.CreatedAt) < q.opt.RateLimitMaxAge {
			return false
		}
		return job.Attempt >= job.MaxAttempts
	}
	return true
}

// classify turns a handler's error into River's vocabulary: nil is done,
// a rate limit waits its time, a transient error is retried with backoff,
// anything else is cancelled for good.
func (q *Queue) classify(ctx context.Context, log *slog.Logger, job *rivertype.JobRow, kind string, err error) error {
	if err == nil {
		metrics.Job(kind, "ok")
		return nil
	}
	if q.interrupted(ctx) {
		metrics.Job(kind, "interrupted")
		log.Info("job interrupted by shutdown; it resumes at the next start without spending an attempt", "err", err)
		return river.JobSnooze(0)
	}
	if wait, ok := retry.After(err); ok && time.Since(job.CreatedAt) < q.opt.RateLimitMaxAge {
		metrics.Job(kind, "retry")
		log.Warn("rate limited; waiting before retrying", "wait_ms", wait.Milliseconds(), "err", err)
		return river.JobSnooze(wait)
	}
	if retry.IsTransient(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
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
