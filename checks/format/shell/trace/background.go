package trace

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// A dry run must be the same every time. Scripts start their servers in
// the background and then wait for them (`while [[ ! -f $LOG ]]; do sleep
// 1; done`); the interpreter runs a background job on its own goroutine,
// so left alone how often the loop sleeps, and whether it reaches its step
// bound first, would depend on the scheduler. Instead every background
// command is counted from the moment the script starts it, and a sleep,
// the way scripts wait, returns only when no background job is still
// doing something (a job that is itself sleeping is waiting, not doing).

// Names of the marker commands the rewrite inserts; the call handler
// answers them and records nothing.
const (
	bgStarted = "__verdict_bg_started"
	bgBegin   = "__verdict_bg_begin"
	bgDone    = "__verdict_bg_done"
	bgPid     = "__verdict_bg_pid"
	bgVar     = "__VERDICT_BG"
)

// markBackground rewrites each background statement `S &` of f into
// `__verdict_bg_started n; { __VERDICT_BG=n; __verdict_bg_begin n; ( S );
// __verdict_bg_done n; } &; __verdict_bg_pid n "$!"`: the job is counted in the foreground,
// synchronously, before it exists; it begins only when the foreground
// next sleeps or waits (so whether it opened its log before the
// foreground's first look cannot depend on the scheduler); it knows itself
// by the variable (a subshell's variables are its own); and it says it is
// done however S ends, an exit included (S runs in a subshell already, so
// one more changes nothing it sees); and the foreground learns which of
// its process IDs the job is (for kill -0). next numbers the jobs of a
// run.
func markBackground(f *syntax.File, next func() int) {
	rewrite := func(list []*syntax.Stmt) []*syntax.Stmt {
		var out []*syntax.Stmt
		for _, st := range list {
			if !st.Background || st.Coprocess {
				out = append(out, st)
				continue
			}
			n := next()
			inner := *st
			inner.Background, inner.Disown = false, false
			id := &syntax.Stmt{Position: st.Position, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
				Name:  &syntax.Lit{ValuePos: st.Position, ValueEnd: st.Position, Value: bgVar},
				Value: word(st.Position, strconv.Itoa(n)),
			}}}}
			out = append(out,
				marker(st.Position, bgStarted, strconv.Itoa(n)),
				&syntax.Stmt{Position: st.Position, Background: true, Disown: st.Disown, Cmd: &syntax.Block{
					Lbrace: st.Position, Rbrace: st.End(),
					Stmts: []*syntax.Stmt{id, marker(st.Position, bgBegin, strconv.Itoa(n)), {Position: st.Position, Cmd: &syntax.Subshell{
						Lparen: st.Position, Rparen: st.End(), Stmts: []*syntax.Stmt{&inner},
					}}, marker(st.Position, bgDone, strconv.Itoa(n))},
				}},
				pidMarker(st.Position, n))
		}
		return out
	}
	eachList(f, rewrite)
}

// eachList replaces every list of statements in f by what fn makes of it.
func eachList(f *syntax.File, fn func([]*syntax.Stmt) []*syntax.Stmt) {
	syntax.Walk(f, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.File:
			x.Stmts = fn(x.Stmts)
		case *syntax.Block:
			x.Stmts = fn(x.Stmts)
		case *syntax.Subshell:
			x.Stmts = fn(x.Stmts)
		case *syntax.IfClause:
			x.Cond, x.Then = fn(x.Cond), fn(x.Then)
		case *syntax.WhileClause:
			x.Cond, x.Do = fn(x.Cond), fn(x.Do)
		case *syntax.ForClause:
			x.Do = fn(x.Do)
		case *syntax.CaseItem:
			x.Stmts = fn(x.Stmts)
		case *syntax.CmdSubst:
			x.Stmts = fn(x.Stmts)
		}
		return true
	})
}

// clockName is the marker command that prints the dry run's clock after
// a sleep of its arguments.
const clockName = "__verdict_clock"

// clocked rewrites each `sleep ARGS` of f into
// `{ sleep ARGS; SECONDS=$(__verdict_clock ARGS); }`: time does not pass
// in a dry run, but a loop with a deadline on $SECONDS must end as it
// would, so each sleep moves the script's clock on by what it asked for.
func clocked(f *syntax.File) {
	done := map[*syntax.CallExpr]bool{} // the walk goes on into each new block
	eachList(f, func(list []*syntax.Stmt) []*syntax.Stmt {
		for _, st := range list {
			call, ok := st.Cmd.(*syntax.CallExpr)
			if !ok || done[call] || len(call.Assigns) > 0 || len(call.Args) == 0 || call.Args[0].Lit() != "sleep" {
				continue
			}
			done[call] = true
			pos := st.Position
			clock := &syntax.CallExpr{Args: append([]*syntax.Word{word(pos, clockName)}, call.Args[1:]...)}
			set := &syntax.CallExpr{Assigns: []*syntax.Assign{{
				Name:  &syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: "SECONDS"},
				Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.CmdSubst{Left: pos, Right: st.End(), Stmts: []*syntax.Stmt{{Position: pos, Cmd: clock}}}}},
			}}}
			st.Cmd = &syntax.Block{Lbrace: pos, Rbrace: st.End(), Stmts: []*syntax.Stmt{{Position: pos, Cmd: call}, {Position: pos, Cmd: set}}}
		}
		return list
	})
}

// clockEdits make clocked's rewrite as edits of a file's text, for a
// sourced file, which the interpreter parses itself; lines stay put.
func clockEdits(f *syntax.File, text string) []edit {
	var edits []edit
	syntax.Walk(f, func(node syntax.Node) bool {
		st, ok := node.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) > 0 || len(call.Args) < 2 || call.Args[0].Lit() != "sleep" || st.Background || len(st.Redirs) > 0 {
			return true
		}
		from, to := int(call.Args[1].Pos().Offset()), int(call.Args[len(call.Args)-1].End().Offset())
		if from >= to || to > len(text) || strings.Contains(text[from:to], "\n") {
			return true
		}
		edits = append(edits, edit{at: int(call.Pos().Offset()), with: "{ "},
			edit{at: to, with: "; SECONDS=$(" + clockName + " " + text[from:to] + "); }"})
		return true
	})
	return edits
}

func word(pos syntax.Pos, s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: s}}}
}

func marker(pos syntax.Pos, name string, args ...string) *syntax.Stmt {
	words := []*syntax.Word{word(pos, name)}
	for _, a := range args {
		words = append(words, word(pos, a))
	}
	return &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Args: words}}
}

// background is the dry run's account of its background jobs, under
// run.mu. Time does not pass in a dry run, so a sleep is a turn: the
// foreground's sleep lets every running job reach its sleep or its end,
// then every sleeping job run once more, and returns when none is running.
// Each foreground sleep thus sees the same jobs in the same state, every
// run.
type background struct {
	running  int  // begun, not done, not sleeping
	sleeping int  // waiting in a sleep for the foreground's next one
	waiting  int  // started, waiting to begin at the foreground's next sleep or wait
	turn     int  // foreground sleeps so far
	opened   int  // times the foreground let waiting jobs begin
	ending   bool // the foreground waits for its jobs: sleeping ones end
	jobs     int  // jobs numbered so far
	// begins holds, for each job still to begin, the value of opened when
	// it was started: it begins at the next.
	begins map[int]int
	table  jobTable // which job each process ID is, and which are alive
}

// inBackground reports whether the handler runs for a background job.
func inBackground(ctx context.Context) bool {
	return interp.HandlerCtx(ctx).Env.Get(bgVar).String() != ""
}

// nextJob numbers a background job of the run.
func (r *run) nextJob() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bg.jobs++
	return r.bg.jobs
}

// marked answers a marker command; false for any other command.
func (r *run) marked(ctx context.Context, abs string, args []string) bool {
	id := -1
	if len(args) > 1 {
		id, _ = strconv.Atoi(args[1])
	}
	switch args[0] {
	case bgStarted:
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.bg.ending {
			r.bg.running++ // nothing hands turns on any more: it begins now
			return true
		}
		if r.bg.begins == nil {
			r.bg.begins = map[int]int{}
		}
		r.bg.waiting++
		r.bg.begins[id] = r.bg.opened
	case bgBegin:
		r.mu.Lock()
		start, waiting := r.bg.begins[id]
		r.mu.Unlock()
		if waiting {
			// The foreground counts it running when it hands the turn on
			// or waits for its jobs.
			r.await(ctx, func() bool { return r.bg.opened != start || r.bg.ending })
			r.mu.Lock()
			delete(r.bg.begins, id)
			r.mu.Unlock()
		}
	case bgDone:
		r.mu.Lock()
		defer r.mu.Unlock()
		r.bg.running = max(r.bg.running-1, 0)
		r.bg.table.of(id).ended = true
	case bgPid:
		if len(args) > 2 {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.bg.table.name(pidScope(ctx, abs, args[2]), id)
		}
	default:
		return false
	}
	return true
}

// sleep is a sleep of the dry run. It returns false when a background
// job should end there instead (the foreground is waiting for its jobs).
func (r *run) sleep(ctx context.Context) bool {
	if inBackground(ctx) {
		// A job that ends here still counts as running until its done
		// marker, which its wrapper reaches however the job ends.
		r.mu.Lock()
		if r.bg.ending {
			r.mu.Unlock()
			return false
		}
		r.bg.running--
		r.bg.sleeping++
		turn := r.bg.turn
		r.mu.Unlock()
		// The foreground counts this job running again when it hands the
		// turn on or waits for its jobs.
		if !r.await(ctx, func() bool { return r.bg.turn != turn || r.bg.ending }) {
			return false // the time bound: the trace is over
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return !r.bg.ending
	}
	// First the jobs started since the last sleep begin, and every job
	// that is running reaches its sleep or its end (how far a job got
	// before this sleep must not matter), then the sleeping ones run once
	// more.
	idle := func() bool { return r.bg.running <= 0 }
	r.mu.Lock()
	r.bg.running += r.bg.waiting
	r.bg.waiting = 0
	r.bg.opened++
	r.mu.Unlock()
	r.await(ctx, idle)
	r.mu.Lock()
	r.bg.running += r.bg.sleeping
	r.bg.sleeping = 0
	r.bg.turn++
	r.mu.Unlock()
	r.await(ctx, idle)
	return true
}

// waitJobs is the foreground's wait builtin: the jobs sleeping now, and
// any that sleeps from now on, end there; a dry run has no time for a
// loop that waits on a real system.
func (r *run) waitJobs(ctx context.Context) {
	if inBackground(ctx) {
		// A job waiting for jobs it started (a server script that starts
		// its server in the background): those begin now.
		r.mu.Lock()
		r.bg.running += r.bg.waiting
		r.bg.waiting = 0
		r.bg.opened++
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	r.bg.ending = true
	r.bg.running += r.bg.sleeping + r.bg.waiting
	r.bg.sleeping, r.bg.waiting = 0, 0
	r.mu.Unlock()
}

// await polls cond (under run.mu) until it holds or ctx ends; false
// when ctx ended first. Jobs are goroutines of the interpreter, which
// offers no way to be told when one moves.
func (r *run) await(ctx context.Context, cond func() bool) bool {
	for spins := 0; ; spins++ {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if spins < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// Process substitutions are rewritten so that the interpreter makes no
// named pipe on this machine for a command that never runs. An input one,
// <(S), becomes $( ( S ) >P; echo P ), P a file of the run's overlay: the
// command is traced and what it prints is read back from P, as from the
// pipe (`mapfile -t HOSTS < <(scontrol show hostnames)`). An output one,
// >(S), becomes $( ( S ) >/dev/null; echo /dev/null ): S is traced, and
// what is written to it is dropped. Writes under psubDir are not steps.
const psubDir = "/dev/verdict-psub/"

// noFifos makes the rewrite on a parsed script; next numbers the
// substitutions of a run.
func noFifos(f *syntax.File, next func() int) {
	syntax.Walk(f, func(node syntax.Node) bool {
		w, ok := node.(*syntax.Word)
		if !ok {
			return true
		}
		for i, part := range w.Parts {
			ps, ok := part.(*syntax.ProcSubst)
			if !ok {
				continue
			}
			pos, target := ps.OpPos, psubTarget(ps, next)
			w.Parts[i] = &syntax.CmdSubst{Left: pos, Right: ps.Rparen, Stmts: []*syntax.Stmt{
				{Position: pos, Cmd: &syntax.Subshell{Lparen: pos, Rparen: ps.Rparen, Stmts: ps.Stmts},
					Redirs: []*syntax.Redirect{{OpPos: pos, Op: syntax.RdrOut, Word: word(pos, target)}}},
				{Position: pos, Cmd: &syntax.CallExpr{Args: []*syntax.Word{word(pos, "echo"), word(pos, target)}}},
			}}
		}
		return true
	})
}

// fifoEdits make noFifos' rewrite as edits of a file's text, for a
// sourced file, which the interpreter parses itself; lines stay put.
func fifoEdits(f *syntax.File, next func() int) []edit {
	var edits []edit
	syntax.Walk(f, func(node syntax.Node) bool {
		ps, ok := node.(*syntax.ProcSubst)
		if !ok {
			return true
		}
		target := psubTarget(ps, next)
		edits = append(edits, edit{at: int(ps.OpPos.Offset()), n: 2, with: "$( ( "},
			edit{at: int(ps.Rparen.Offset()), n: 1, with: " ) >" + target + "; echo " + target + " )"})
		return true
	})
	return edits
}

// psubTarget is the file a process substitution reads or writes through.
func psubTarget(ps *syntax.ProcSubst, next func() int) string {
	if ps.Op == syntax.CmdIn {
		return psubDir + strconv.Itoa(next())
	}
	return "/dev/null"
}

// sleepSeconds is how long sleep's arguments ask for, in whole seconds
// rounded up (GNU sleep adds its arguments; each may end in s, m, h or
// d); 0 when an argument is not a duration.
func sleepSeconds(args []string) int {
	total := 0.0
	for _, a := range args {
		unit := 1.0
		switch {
		case strings.HasSuffix(a, "s"):
			a = strings.TrimSuffix(a, "s")
		case strings.HasSuffix(a, "m"):
			a, unit = strings.TrimSuffix(a, "m"), 60
		case strings.HasSuffix(a, "h"):
			a, unit = strings.TrimSuffix(a, "h"), 3600
		case strings.HasSuffix(a, "d"):
			a, unit = strings.TrimSuffix(a, "d"), 86400
		}
		v, err := strconv.ParseFloat(a, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0
		}
		total += v * unit
	}
	if total > 1e9 {
		return 1e9
	}
	return int(math.Ceil(total))
}

// backgroundEdits make markBackground's rewrite as edits of a file's text,
// for a sourced file, which the interpreter parses itself: each `S &`
// becomes `__verdict_bg_started n; { __VERDICT_BG=n; __verdict_bg_begin n;
// ( S ); __verdict_bg_done n; } & __verdict_bg_pid n "$!";`, on the lines
// S was on, so that every step keeps its line.
func backgroundEdits(file *syntax.File, next func() int) []edit {
	var edits []edit
	syntax.Walk(file, func(node syntax.Node) bool {
		st, ok := node.(*syntax.Stmt)
		if !ok || !st.Background || st.Coprocess || !st.Semicolon.IsValid() {
			return true
		}
		n := strconv.Itoa(next())
		edits = append(edits,
			edit{at: int(st.Pos().Offset()), with: bgStarted + " " + n + "; { " + bgVar + "=" + n + "; " + bgBegin + " " + n + "; ( "},
			edit{at: int(st.Semicolon.Offset()), n: 1, with: "); " + bgDone + " " + n + "; } & " + bgPid + " " + n + ` "$!";`})
		return true
	})
	return edits
}
