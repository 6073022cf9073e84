package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/store"
)

// coalesced is what a batch adds to River: its jobs, and which of them are
// verifications to record as the pending job of their key once inserted.
type coalesced struct {
	params  []river.InsertManyParams
	pending map[int]string // params index -> coalescing key
}

// coalesce turns the jobs of a batch's new deliveries into River jobs,
// folding verification requests into the pending job of their sign-off
// (see commit) and giving each verification and withdrawal the next of gens.
//
// It decides exactly as taking the jobs one by one would (fold into the
// stored pending job, or else add a job; a withdrawal ends the pending
// state), but with a fixed number of statements per batch: the stored
// pending jobs of a key can only be folded into before the key's first
// withdrawal in the batch, and after it only jobs of the batch itself can,
// so one multi-row update (with each key's last request before its first
// withdrawal) and one delete (of the withdrawn keys) say everything that
// one statement per job would. On PostgreSQL each statement is a round
// trip, and a group commit holds hundreds of requests.
func coalesce(ctx context.Context, ex store.Execer, batch []*request, fresh []bool, gens []int64) (coalesced, error) {
	var ops []jobs.Args
	lastBefore := map[string]int{} // key -> ops index of its last verification before any withdrawal
	var foldKeys, drops []string
	withdrawn := map[string]bool{}
	for i, r := range batch {
		if !fresh[i] {
			continue
		}
		for _, a := range r.d.Jobs {
			switch v := a.(type) {
			case jobs.WithdrawArgs:
				// A withdrawal takes the key's next generation too, in
				// delivery order, so a verification still waiting is skipped.
				v.Generation, gens = gens[0], gens[1:]
				a = v
				if k := v.CoalesceKey(); !withdrawn[k] {
					withdrawn[k] = true
					drops = append(drops, k)
				}
			case jobs.VerifyArgs:
				v.Generation, gens = gens[0], gens[1:]
				a = v
				if k := v.CoalesceKey(); !withdrawn[k] {
					if _, seen := lastBefore[k]; !seen {
						foldKeys = append(foldKeys, k)
					}
					lastBefore[k] = len(ops)
				}
			}
			ops = append(ops, a)
		}
	}
	folds := make([]store.Pending, len(foldKeys))
	for i, k := range foldKeys {
		args, err := json.Marshal(ops[lastBefore[k]])
		if err != nil {
			return coalesced{}, fmt.Errorf("encoding verification arguments: %w", err)
		}
		folds[i] = store.Pending{Key: k, Args: args}
	}
	stored, err := store.FoldPendings(ctx, ex, folds)
	if err != nil {
		return coalesced{}, err
	}
	// A withdrawal supersedes the verifications of its sign-off that are
	// waiting: besides the generation, it ends their pending state, so that
	// none of them is handed a later request's arguments (and generation);
	// a later request gets a job of its own.
	if err := store.DropPendings(ctx, ex, drops); err != nil {
		return coalesced{}, err
	}
	c := coalesced{pending: map[int]string{}}
	inBatch := map[string]int{} // coalescing key -> params index
	for _, a := range ops {
		switch v := a.(type) {
		case jobs.WithdrawArgs:
			key := v.CoalesceKey()
			delete(stored, key)
			if j, ok := inBatch[key]; ok {
				delete(c.pending, j)
				delete(inBatch, key)
			}
		case jobs.VerifyArgs:
			key := v.CoalesceKey()
			if j, ok := inBatch[key]; ok {
				c.params[j].Args = v
				metrics.Coalesced()
				continue
			}
			if stored[key] {
				metrics.Coalesced()
				continue
			}
			inBatch[key], c.pending[len(c.params)] = len(c.params), key
		}
		c.params = append(c.params, river.InsertManyParams{Args: a})
	}
	return c, nil
}

// recordPending makes each inserted verification of c the pending job of
// its key.
func (c coalesced) recordPending(ctx context.Context, ex store.Execer, res []*rivertype.JobInsertResult) error {
	idx := make([]int, 0, len(c.pending))
	for i := range c.pending {
		if i < len(res) && res[i].Job != nil {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	ps := make([]store.Pending, len(idx))
	for n, i := range idx {
		args, err := json.Marshal(c.params[i].Args)
		if err != nil {
			return fmt.Errorf("encoding verification arguments: %w", err)
		}
		ps[n] = store.Pending{Key: c.pending[i], JobID: res[i].Job.ID, Args: args}
	}
	return store.SetPendingJobs(ctx, ex, ps)
}
