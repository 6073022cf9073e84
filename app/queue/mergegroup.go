package queue

import (
	"context"
	"errors"

	"github.com/riverqueue/river"

	"github.com/verdict-bot/verdict/app/jobs"
)

// MergeGrouper answers a merge queue: Verdict's status and check run on a
// merge group's commit.
type MergeGrouper interface {
	MergeGroup(ctx context.Context, a jobs.MergeGroupArgs, at jobs.Attempt) error
}

type mergeGroupWorker struct {
	river.WorkerDefaults[jobs.MergeGroupArgs]
	q *Queue
}

// Work settles one merge group at a time per group commit: a redelivered
// checks_requested and the group's destroyed never interleave.
func (w *mergeGroupWorker) Work(ctx context.Context, job *river.Job[jobs.MergeGroupArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindMergeGroup, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "head_sha", a.HeadSHA, "delivery_id", a.DeliveryID)
	if q.opt.MergeGroups == nil {
		return q.final(log, jobs.KindMergeGroup, errors.New("no merge group handler configured"))
	}
	at := jobs.Attempt{Number: job.Attempt, Max: job.MaxAttempts}
	return q.exclusive(ctx, log, job.JobRow, "merge_group:"+a.FullName()+"@"+a.HeadSHA, jobs.KindMergeGroup, func(ctx context.Context) error {
		return q.opt.MergeGroups.MergeGroup(ctx, a, at)
	})
}
