package queue

import (
	"context"
	"encoding/json"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
)

// RunSettler completes the check runs verifications opened in progress and
// never completed (an attempt cut, superseded or lost), on PRs for which no
// verification is pending any more: pending tells, by jobs.PRKey.
type RunSettler interface {
	SettleRuns(ctx context.Context, pending func(prKey string) bool) error
}

// settlesRuns are the job kinds that complete a PR's open check runs.
var settlesRuns = []string{jobs.KindVerify, jobs.KindWithdraw}

// unfinishedStates are the states of a job that will still run.
var unfinishedStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// pendingPRs is the set of PRs (jobs.PRKey) with a verification or a
// withdrawal that will still run.
func (q *Queue) pendingPRs(ctx context.Context) (map[string]bool, error) {
	rows, err := q.eng.unfinished(ctx, settlesRuns)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, j := range rows {
		var a struct {
			jobs.Repo
			PR int `json:"pr"`
		}
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			continue // not a PR's job: it settles nothing
		}
		out[jobs.PRKey(a.Repo, a.PR)] = true
	}
	return out, nil
}

// settleRuns runs one pass of the RunSettler, one process at a time.
func (q *Queue) settleRuns(ctx context.Context) error {
	lock, ok, err := q.locks.tryLock(ctx, "settle-open-runs")
	if err != nil || !ok {
		return err
	}
	defer lock.release()
	pending, err := q.pendingPRs(ctx)
	if err != nil {
		return err
	}
	return q.opt.Runs.SettleRuns(ctx, func(pr string) bool { return pending[pr] })
}

// watchRuns settles open runs at start and every interval until stop.
func (q *Queue) watchRuns(every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), every)
		if err := q.settleRuns(ctx); err != nil {
			q.log.Warn("completing check runs left in progress failed", "err", err)
		}
		cancel()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// unfinished lists the jobs of kinds that will still run.
func (e *riverEngine[TTx]) unfinished(ctx context.Context, kinds []string) ([]*rivertype.JobRow, error) {
	params := river.NewJobListParams().Kinds(kinds...).States(unfinishedStates...).First(1000)
	var out []*rivertype.JobRow
	for {
		res, err := e.client.JobList(ctx, params)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Jobs...)
		if len(res.Jobs) < 1000 {
			return out, nil
		}
		params = params.After(res.LastCursor)
	}
}
