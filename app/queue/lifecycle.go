package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/metrics"
)

// HeadMover marks a PR whose head moved past its verdicts (a push): the new
// head's status and a line on each earlier verdict comment.
type HeadMover interface {
	HeadMoved(ctx context.Context, a jobs.HeadMovedArgs) error
}

// Recoverer asks GitHub to redeliver the webhooks Verdict missed.
type Recoverer interface {
	Recover(ctx context.Context) error
}

type headMovedWorker struct {
	river.WorkerDefaults[jobs.HeadMovedArgs]
	q *Queue
}

func (w *headMovedWorker) Work(ctx context.Context, job *river.Job[jobs.HeadMovedArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindHeadMoved, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "pr", a.PR, "head_sha", a.After, "delivery_id", a.DeliveryID)
	if q.opt.HeadMover == nil {
		return q.final(log, jobs.KindHeadMoved, errors.New("no head-moved handler configured"))
	}
	// The verifications' group: the marks and a verdict of the same PR
	// never interleave, so neither overwrites the other with stale text.
	return q.exclusive(ctx, log, job.JobRow, "verify:"+jobs.PRKey(a.Repo, a.PR), jobs.KindHeadMoved, func(ctx context.Context) error {
		return q.opt.HeadMover.HeadMoved(ctx, a)
	})
}

type recoverWorker struct {
	river.WorkerDefaults[jobs.RecoverArgs]
	q *Queue
}

func (w *recoverWorker) Work(ctx context.Context, job *river.Job[jobs.RecoverArgs]) error {
	q := w.q
	log := q.log.With("job", jobs.KindRecover, "job_id", job.ID)
	if q.opt.Recoverer == nil {
		return q.final(log, jobs.KindRecover, errors.New("no delivery recoverer configured"))
	}
	// One pass at a time across processes: two overlapping passes would
	// both see the same failed delivery and ask for it twice. A pass that
	// finds another running has nothing to add.
	lock, ok, err := q.locks.tryLock(ctx, "recover-deliveries")
	if err != nil {
		return q.classify(ctx, log, job.JobRow, jobs.KindRecover, fmt.Errorf("taking the recovery lock: %w", err))
	}
	if !ok {
		log.Debug("another recovery pass is running; skipping this one")
		return nil
	}
	defer lock.release()
	return q.classify(ctx, log, job.JobRow, jobs.KindRecover, q.opt.Recoverer.Recover(ctx))
}

// recoverPeriodically is the periodic job of missed-webhook recovery. River
// inserts periodic jobs on its elected leader only, so one process of many
// runs each pass; RunOnStart makes the first pass when a leader starts. A
// failed pass is not retried: the next one comes within every.
func recoverPeriodically(every time.Duration) *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
		return jobs.RecoverArgs{}, &river.InsertOpts{MaxAttempts: 1}
	}, &river.PeriodicJobOpts{ID: jobs.KindRecover, RunOnStart: true})
}

// Rerunner finds the open PRs of this repository that contain a commit, for
// a re-run whose delivery named none.
type Rerunner interface {
	PullsOf(ctx context.Context, a jobs.RerunArgs) ([]int, error)
}

type rerunWorker struct {
	river.WorkerDefaults[jobs.RerunArgs]
	q *Queue
}

// Work verifies the re-run's sign-off on each PR found, one PR's lock at a
// time, as a verification job of that PR would; a busy PR makes the whole
// re-run wait (what it already verified is verified again, harmlessly).
func (w *rerunWorker) Work(ctx context.Context, job *river.Job[jobs.RerunArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindRerun, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "head_sha", a.HeadSHA, "delivery_id", a.DeliveryID, "signoff", a.SignOff.Key())
	if q.opt.Rerunner == nil || q.opt.Verifier == nil {
		return q.final(log, jobs.KindRerun, errors.New("no re-run handler configured"))
	}
	if n := processDeaths(job.JobRow); n >= maxProcessDeaths {
		metrics.Job(jobs.KindRerun, "quarantined")
		return q.final(log, jobs.KindRerun, fmt.Errorf("quarantined: %d attempts ended with their process; not run again", n))
	}
	prs, err := q.opt.Rerunner.PullsOf(ctx, a)
	if err != nil {
		return q.classify(ctx, log, job.JobRow, jobs.KindRerun, err)
	}
	if len(prs) == 0 {
		log.Info("re-run names a commit no open pull request contains; nothing to verify")
	}
	at := jobs.Attempt{Number: job.Attempt, Max: job.MaxAttempts}
	for _, pr := range prs {
		v := a.Verify(pr)
		err := q.exclusive(ctx, log.With("pr", pr), job.JobRow, "verify:"+jobs.PRKey(v.Repo, v.PR), jobs.KindRerun, func(ctx context.Context) error {
			start := time.Now()
			err := q.opt.Verifier.Verify(ctx, v, at)
			metrics.Verification(time.Since(start), outcomeOf(err))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
