package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/verdict-bot/verdict/app/store"
)

// A job whose process died stays "running" in River's table. River itself
// would rescue it only after RescueStuckJobsAfter (kept as a backstop, just
// above the job timeout); Verdict resumes it as soon as its process is known
// to be dead:
//
//   - SQLite serves one process, so at start every running job belongs to a
//     process that is gone and is made available before work begins.
//   - On PostgreSQL every process holds an advisory lock named after its
//     River client ID and stamps a heartbeat while it runs (locks.go). Each
//     process checks, at start and then every Options.OrphanCheck, whether
//     the clients that hold running jobs still live; the jobs of those that
//     do not are resumed.
//   - A job running under this very process that no worker holds was
//     stranded by a fetch whose answer was lost (see strandGrace); it is
//     made available again.
//
// A resumed job keeps its attempt count (the dead attempt counts) and
// records why it was resumed; its next run sees jobs.Attempt.Retry.

// resumedBy starts the error a resumed attempt records, by which
// processDeaths counts them.
const resumedBy = "resumed by "

// maxProcessDeaths is how many attempts of one job may end with their
// process. A PR whose input crashes the process (a fatal error no recover
// catches, or the kernel's out-of-memory kill) would otherwise take it
// down once per attempt, and every PR of every installation with it.
const maxProcessDeaths = 2

// processDeaths counts the attempts of job that ended with their process.
func processDeaths(job *rivertype.JobRow) int {
	n := 0
	for _, e := range job.Errors {
		if strings.HasPrefix(e.Error, resumedBy) {
			n++
		}
	}
	return n
}

// strandGrace is how long a job may be running under this process before
// a worker holds it. River hands a fetched job to a worker within
// milliseconds; one still unheld after this was fetched by a query the
// database committed after this process gave up waiting for its answer (a
// frozen database), and nothing would run it until River's stuck-job rescue.
const strandGrace = 10 * time.Second

// requeuedBy starts the error a stranded job records: the attempt never
// ran, so it is not a process death (see processDeaths).
const requeuedBy = "requeued by "

// held is the set of jobs this process's workers run, and of those whose
// work returned while River has not yet stored how it ended (its completer
// writes in batches, and not at all while the database is frozen): both
// are this process's, not stranded. Kept by the middleware below.
type held struct {
	mu      sync.Mutex
	working map[int64]struct{}
	ending  map[int64]struct{}
}

func (h *held) has(id int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, w := h.working[id]
	_, e := h.ending[id]
	return w || e
}

// forgetEnded drops the ended jobs no longer running: their ends are
// stored.
func (h *held) forgetEnded(running map[int64]bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id := range h.ending {
		if !running[id] {
			delete(h.ending, id)
		}
	}
}

// holding is River middleware that records which jobs a worker holds.
type holding struct {
	river.MiddlewareDefaults
	h *held
}

func (m *holding) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	m.h.mu.Lock()
	if m.h.working == nil {
		m.h.working, m.h.ending = map[int64]struct{}{}, map[int64]struct{}{}
	}
	m.h.working[job.ID] = struct{}{}
	delete(m.h.ending, job.ID)
	m.h.mu.Unlock()
	defer func() {
		m.h.mu.Lock()
		delete(m.h.working, job.ID)
		m.h.ending[job.ID] = struct{}{}
		m.h.mu.Unlock()
	}()
	return doInner(ctx)
}

// rescueOrphans resumes the running jobs of dead processes (every running
// job when all is set) and this process's stranded ones, and reports how
// many it resumed.
func (q *Queue) rescueOrphans(ctx context.Context, all bool) (int, error) {
	running, err := q.eng.running(ctx)
	if err != nil {
		return 0, fmt.Errorf("listing running jobs: %w", err)
	}
	ids := make(map[int64]bool, len(running))
	for _, j := range running {
		ids[j.ID] = true
	}
	defer q.held.forgetEnded(ids)
	dead := map[string]bool{}
	n := 0
	for _, j := range running {
		by := ""
		if len(j.AttemptedBy) > 0 {
			by = j.AttemptedBy[len(j.AttemptedBy)-1]
		}
		why := fmt.Sprintf("%s%s: the process running this attempt (%s) is gone", resumedBy, q.eng.clientID(), by)
		switch {
		case all:
		case by == q.eng.clientID():
			if q.held.has(j.ID) || j.AttemptedAt == nil || time.Since(*j.AttemptedAt) < strandGrace {
				continue
			}
			why = requeuedBy + by + ": fetched, but the answer never reached a worker (the database answered after the fetch gave up)"
		case q.live == nil:
			continue // SQLite: one process; what another left was resumed at start
		default:
			d, known := dead[by]
			if !known {
				st, err := q.live.state(ctx, by)
				if err != nil {
					return n, fmt.Errorf("checking whether %s runs: %w", by, err)
				}
				// A stale process's job is resumed; it runs once the
				// PR's lease, which that process no longer renews, ends.
				d, dead[by] = st != processRunning, st != processRunning
			}
			if !d {
				continue
			}
		}
		if err := q.eng.resume(ctx, j, why); err != nil {
			return n, fmt.Errorf("resuming job %d: %w", j.ID, err)
		}
		n++
		q.log.Warn("resumed a running job no worker holds", "job_id", j.ID, "job", j.Kind, "attempt", j.Attempt, "attempted_by", by, "reason", why)
	}
	return n, nil
}

// watchOrphans runs rescueOrphans every interval until stop closes.
func (q *Queue) watchOrphans(every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every+5*time.Second)
		if _, err := q.rescueOrphans(ctx, false); err != nil {
			q.log.Warn("looking for jobs of dead processes failed", "err", err)
		}
		cancel()
	}
}

// resumeParams builds the row update that makes a running job available
// now. The horizon matches only the attempt that was seen, so a job another
// process resumed and started again meanwhile is left alone.
func resumeParams(j *rivertype.JobRow, why string) (id int64, errJSON []byte, horizon time.Time, err error) {
	errJSON, err = json.Marshal(rivertype.AttemptError{At: time.Now().UTC(), Attempt: max(j.Attempt, 0), Error: why})
	if err != nil {
		return 0, nil, time.Time{}, err
	}
	horizon = time.Now().Add(time.Hour)
	if j.AttemptedAt != nil {
		horizon = j.AttemptedAt.Add(time.Millisecond)
	}
	return j.ID, errJSON, horizon, nil
}

// currentSchema is the PostgreSQL schema Verdict's tables live in.
func currentSchema(ctx context.Context, st *store.Store) (string, error) {
	var s string
	if err := st.DB().QueryRow(ctx, "SELECT current_schema()").Scan(&s); err != nil {
		return "", fmt.Errorf("reading the current schema: %w", err)
	}
	return s, nil
}
