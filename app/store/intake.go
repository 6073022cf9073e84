package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxRowsPerStatement keeps a multi-row statement's parameters far below
// both engines' limits (PostgreSQL 65,535; SQLite 32,766).
const maxRowsPerStatement = 500

// InsertDeliveries records a batch of deliveries, each unless its ID is
// already known, in one statement per maxRowsPerStatement rows: on
// PostgreSQL every statement is a round trip, and a group commit holds
// hundreds of deliveries. It reports for each delivery whether it is new,
// as InsertDelivery would one after another: an ID repeated within ds is
// new at most at its first occurrence.
func InsertDeliveries(ctx context.Context, ex Execer, ds []Delivery) ([]bool, error) {
	fresh := make([]bool, len(ds))
	if inProcess(ex) {
		for i, d := range ds {
			f, err := InsertDelivery(ctx, ex, d)
			if err != nil {
				return nil, err
			}
			fresh[i] = f
		}
		return fresh, nil
	}
	first := make(map[string]int, len(ds))
	var rows []int // indexes of first occurrences, in order
	for i, d := range ds {
		if _, seen := first[d.ID]; !seen {
			first[d.ID] = i
			rows = append(rows, i)
		}
	}
	// Batches commit side by side on PostgreSQL: rows are locked in one
	// order, so that two batches holding one redelivered ID each cannot
	// deadlock.
	slices.SortFunc(rows, func(a, b int) int { return strings.Compare(ds[a].ID, ds[b].ID) })
	for len(rows) > 0 {
		n := min(len(rows), maxRowsPerStatement)
		part := rows[:n]
		rows = rows[n:]
		args := make([]any, 0, 8*len(part))
		for _, i := range part {
			d := ds[i]
			args = append(args, d.ID, d.Event, d.Action, d.Repo, d.PR, d.Received.UnixMilli(), d.Outcome, d.Jobs)
		}
		q := `INSERT INTO verdict_delivery
		(delivery_id, event, action, repo, pr_number, received_at, outcome, jobs)
		VALUES ` + placeholders(len(part), 8) + `
		ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id`
		err := ex.Query(ctx, q, args, func(r Row) error {
			var id string
			if err := r.Scan(&id); err != nil {
				return err
			}
			fresh[first[id]] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("recording %d deliveries: %w", len(part), err)
		}
	}
	return fresh, nil
}

// InsertBodies records the body hash of each delivery of ds that fresh
// marks new and reports which of them are replays: their body was logged
// before under another delivery ID, or comes earlier in ds. Deliveries
// without a hash are never replays.
func InsertBodies(ctx context.Context, ex Execer, ds []Delivery, fresh []bool) ([]bool, error) {
	replayed := make([]bool, len(ds))
	first := map[string]int{}
	var rows []int
	for i, d := range ds {
		if !fresh[i] || d.BodySHA256 == "" {
			continue
		}
		if _, seen := first[d.BodySHA256]; seen {
			replayed[i] = true
			continue
		}
		first[d.BodySHA256] = i
		rows = append(rows, i)
	}
	// One lock order across concurrent batches, as for delivery IDs.
	slices.SortFunc(rows, func(a, b int) int { return strings.Compare(ds[a].BodySHA256, ds[b].BodySHA256) })
	stored := map[string]bool{}
	for len(rows) > 0 {
		n := min(len(rows), maxRowsPerStatement)
		part := rows[:n]
		rows = rows[n:]
		args := make([]any, 0, 3*len(part))
		for _, i := range part {
			args = append(args, ds[i].BodySHA256, ds[i].ID, ds[i].Received.UnixMilli())
		}
		q := `INSERT INTO verdict_delivery_body (body_sha256, delivery_id, received_at)
		VALUES ` + placeholders(len(part), 3) + `
		ON CONFLICT (body_sha256) DO NOTHING RETURNING body_sha256`
		err := ex.Query(ctx, q, args, func(r Row) error {
			var h string
			if err := r.Scan(&h); err != nil {
				return err
			}
			stored[h] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("recording %d delivery bodies: %w", len(part), err)
		}
		for _, i := range part {
			replayed[i] = !stored[ds[i].BodySHA256]
		}
	}
	return replayed, nil
}

// NextGenerations bumps the generation of each key once per occurrence and
// returns the generations in order, as NextGeneration called for each key in
// turn would, with one statement per maxRowsPerStatement distinct keys. Run
// it in the transaction that enqueues the jobs carrying the generations.
func NextGenerations(ctx context.Context, ex Execer, keys []string) ([]int64, error) {
	if inProcess(ex) {
		out := make([]int64, len(keys))
		for i, k := range keys {
			g, err := NextGeneration(ctx, ex, k)
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	}
	count := map[string]int64{}
	var distinct []string
	for _, k := range keys {
		if count[k] == 0 {
			distinct = append(distinct, k)
		}
		count[k]++
	}
	// The generation rows are locked in one order (see InsertDeliveries).
	slices.Sort(distinct)
	last := make(map[string]int64, len(distinct))
	for len(distinct) > 0 {
		n := min(len(distinct), maxRowsPerStatement)
		part := distinct[:n]
		distinct = distinct[n:]
		args := make([]any, 0, 2*len(part))
		for _, k := range part {
			args = append(args, k, count[k])
		}
		q := `INSERT INTO verdict_generation (coalesce_key, generation) VALUES ` + placeholders(len(part), 2) + `
		ON CONFLICT (coalesce_key) DO UPDATE SET generation = verdict_generation.generation + excluded.generation
		RETURNING coalesce_key, generation`
		err := ex.Query(ctx, q, args, func(r Row) error {
			var k string
			var g int64
			if err := r.Scan(&k, &g); err != nil {
				return err
			}
			last[k] = g
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("bumping the generations of %d keys: %w", len(part), err)
		}
	}
	out := make([]int64, len(keys))
	seen := map[string]int64{}
	for i, k := range keys {
		g, ok := last[k]
		if !ok {
			return nil, fmt.Errorf("bumping the generation of %s: no row returned", k)
		}
		// The key's occurrences take the generations up to its last, in order.
		out[i] = g - count[k] + 1 + seen[k]
		seen[k]++
	}
	return out, nil
}

// inProcess reports whether ex runs statements in this process (SQLite):
// there a statement costs no round trip, and the prepared one-row
// statements are cheaper than parsing a new multi-row one per batch.
func inProcess(ex Execer) bool {
	_, ok := ex.(sqlExecer)
	return ok
}

// placeholders is "($1, …, $cols), ($cols+1, …), …" for rows rows.
func placeholders(rows, cols int) string {
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(r*cols + c + 1))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Pending is a coalescing key's waiting verification job and the arguments
// (JSON) it will verify with; JobID is unused when folding.
type Pending struct {
	Key   string
	JobID int64
	Args  []byte
}

// FoldPendings gives each key's arguments to its pending job, as FoldPending
// called for each in turn would, and reports the keys that had one. The
// keys must be distinct. It takes one statement per maxRowsPerStatement
// keys on PostgreSQL: a group commit folds hundreds of requests.
func FoldPendings(ctx context.Context, ex Execer, ps []Pending) (map[string]bool, error) {
	folded := make(map[string]bool, len(ps))
	if inProcess(ex) {
		for _, p := range ps {
			f, err := FoldPending(ctx, ex, p.Key, p.Args)
			if err != nil {
				return nil, err
			}
			if f {
				folded[p.Key] = true
			}
		}
		return folded, nil
	}
	for part := range chunks(ps) {
		args := make([]any, 0, 2*len(part))
		for _, p := range part {
			args = append(args, p.Key, string(p.Args))
		}
		q := `UPDATE verdict_pending_job AS p SET args = v.args
		FROM (VALUES ` + placeholders(len(part), 2) + `) AS v (coalesce_key, args)
		WHERE p.coalesce_key = v.coalesce_key RETURNING p.coalesce_key`
		err := ex.Query(ctx, q, args, func(r Row) error {
			var k string
			if err := r.Scan(&k); err != nil {
				return err
			}
			folded[k] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("folding requests into the pending jobs of %d keys: %w", len(part), err)
		}
	}
	return folded, nil
}

// DropPendings ends the pending state of each key's waiting job, as
// DropPending would for each.
func DropPendings(ctx context.Context, ex Execer, keys []string) error {
	if inProcess(ex) {
		for _, k := range keys {
			if err := DropPending(ctx, ex, k); err != nil {
				return err
			}
		}
		return nil
	}
	for part := range chunks(keys) {
		args := make([]any, len(part))
		for i, k := range part {
			args[i] = k
		}
		q := `DELETE FROM verdict_pending_job WHERE coalesce_key IN ` + placeholders(1, len(part))
		if _, err := ex.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("ending the pending state of %d keys: %w", len(part), err)
		}
	}
	return nil
}

// SetPendingJobs records each job as the pending job of its key, as
// SetPendingJob would for each. The keys must be distinct.
func SetPendingJobs(ctx context.Context, ex Execer, ps []Pending) error {
	if inProcess(ex) {
		for _, p := range ps {
			if err := SetPendingJob(ctx, ex, p.Key, p.JobID, p.Args); err != nil {
				return err
			}
		}
		return nil
	}
	for part := range chunks(ps) {
		args := make([]any, 0, 3*len(part))
		for _, p := range part {
			args = append(args, p.Key, p.JobID, string(p.Args))
		}
		q := `INSERT INTO verdict_pending_job (coalesce_key, job_id, args) VALUES ` + placeholders(len(part), 3) + `
		ON CONFLICT (coalesce_key) DO UPDATE SET job_id = excluded.job_id, args = excluded.args`
		if _, err := ex.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("recording the pending jobs of %d keys: %w", len(part), err)
		}
	}
	return nil
}

// chunks splits s into parts of at most maxRowsPerStatement.
func chunks[T any](s []T) func(yield func([]T) bool) {
	return func(yield func([]T) bool) {
		for len(s) > 0 {
			n := min(len(s), maxRowsPerStatement)
			if !yield(s[:n]) {
				return
			}
			s = s[n:]
		}
	}
}
