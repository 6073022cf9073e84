package queue

import (
	"context"
	"errors"

	"github.com/riverqueue/river"

	"github.com/verdict-bot/verdict/app/jobs"
)

// Withdrawer is a Verifier that can settle a withdrawn sign-off (its
// comment deleted, its review dismissed).
type Withdrawer interface {
	Withdraw(ctx context.Context, a jobs.WithdrawArgs) error
}

type withdrawWorker struct {
	river.WorkerDefaults[jobs.WithdrawArgs]
	q *Queue
}

// Work runs a withdrawal under the PR's verification lock, so it never
// interleaves with a verification of the same PR.
func (w *withdrawWorker) Work(ctx context.Context, job *river.Job[jobs.WithdrawArgs]) error {
	a := job.Args
	q := w.q
	log := q.log.With("job", jobs.KindWithdraw, "job_id", job.ID, "attempt", job.Attempt,
		"repo", a.FullName(), "pr", a.PR, "delivery_id", a.DeliveryID, "signoff", a.SignOff.Key(), "action", a.How)
	wd, ok := q.opt.Verifier.(Withdrawer)
	if !ok {
		return q.final(log, jobs.KindWithdraw, errors.New("no withdrawer configured"))
	}
	return q.exclusive(ctx, log, job.JobRow, "verify:"+jobs.PRKey(a.Repo, a.PR), jobs.KindWithdraw, func(ctx context.Context) error {
		return wd.Withdraw(ctx, a)
	})
}
