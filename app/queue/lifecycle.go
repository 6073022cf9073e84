package queue

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/verdict-bot/verdict/app/jobs"
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
