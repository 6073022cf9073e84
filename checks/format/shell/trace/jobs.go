package trace

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Scripts watch their background jobs: `while kill -0 "$pid"; do …; sleep
// 5; done` waits for a job to end, and `kill -0 "$server" || exit 1` gives
// up when the server died. Nothing runs in a dry run, so whether a job is
// alive is the trace's own account: a job is alive until it is done (its
// wrapper said so) or killed, and a job that started a command that lasts
// until it is stopped (a server, Options.Lasting) stays alive after its
// trace is done, as the server would. Without Options.Lasting every job
// counts as alive, as nothing is known to end.

// jobTable is the run's account of its jobs, under run.mu.
type jobTable struct {
	pids map[string]int // pidScope → job
	jobs map[int]*jobState
}

// jobState is what the run knows of one job.
type jobState struct {
	ended   bool // its trace is done
	killed  bool // a kill with a signal other than 0 named it
	lasting bool // it started a lasting command
}

// name records that scope's process ID is job.
func (t *jobTable) name(scope string, job int) {
	if t.pids == nil {
		t.pids = map[string]int{}
	}
	t.pids[scope] = job
}

// of is job's state, made on first use.
func (t *jobTable) of(job int) *jobState {
	if t.jobs == nil {
		t.jobs = map[int]*jobState{}
	}
	if t.jobs[job] == nil {
		t.jobs[job] = &jobState{}
	}
	return t.jobs[job]
}

// alive reports whether a job is alive.
func (s *jobState) alive() bool { return !s.killed && (!s.ended || s.lasting) }

// pidForm is what kill takes: a process ID (negative: a group), one the
// interpreter handed out (g1), or a job spec (%1).
var pidForm = regexp.MustCompile(`^(-?[0-9]+|g[0-9]+|%.+)$`)

// pidScope names a process ID where it is valid: the interpreter numbers
// the background jobs of each shell from 1 ("g1", "g2", …), so the same
// ID means another job in another script, or in a background job of the
// same script.
func pidScope(ctx context.Context, abs, pid string) string {
	return abs + "\x00" + interp.HandlerCtx(ctx).Env.Get(bgVar).String() + "\x00" + pid
}

// pidMarker is `__verdict_bg_pid n "$!"`, run in the foreground right
// after job n is started.
func pidMarker(pos syntax.Pos, n int) *syntax.Stmt {
	bang := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: pos, Right: pos, Parts: []syntax.WordPart{
		&syntax.ParamExp{Dollar: pos, Short: true, Param: &syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: "!"}},
	}}}}
	st := marker(pos, bgPid, strconv.Itoa(n))
	call := st.Cmd.(*syntax.CallExpr)
	call.Args = append(call.Args, bang)
	return st
}

// noteLasting marks the background job a command runs in as lasting when
// the command is one that runs until it is stopped.
func (r *run) noteLasting(ctx context.Context, argv []string) {
	if r.opt.Lasting == nil || !r.opt.Lasting(argv) {
		return
	}
	job, _ := strconv.Atoi(interp.HandlerCtx(ctx).Env.Get(bgVar).String())
	if job <= 0 {
		return
	}
	r.mu.Lock()
	r.bg.table.of(job).lasting = true
	r.mu.Unlock()
}

// kill answers the kill builtin (its arguments after the name) with the
// command the interpreter runs instead: true, or false when kill -0 names
// a job that is not alive. A signal other than 0 kills the jobs it names.
// An ID the trace did not hand out (a number read from a file) is a
// process the trace knows nothing of: it counts as alive.
func (r *run) kill(ctx context.Context, abs string, args []string) []string {
	probe := false
	var pids []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-l" || a == "-L":
			return []string{"true"}
		case a == "-s" || a == "-n":
			if i+1 < len(args) {
				probe = args[i+1] == "0"
				i++
			}
		case a == "-0" || a == "-s0" || a == "-n0":
			probe = true
		case strings.HasPrefix(a, "-") && len(a) > 1 && pids == nil:
			// -9, -TERM, -SIGKILL: a signal that ends the job.
		case a == "--":
		default:
			pids = append(pids, a)
		}
	}
	for _, p := range pids {
		if !pidForm.MatchString(p) {
			// kill: : arguments must be process or job IDs
			return []string{"false"}
		}
	}
	if r.opt.Lasting == nil {
		return []string{"true"}
	}
	inBg := inBackground(ctx)
	for _, p := range pids {
		r.mu.Lock()
		job, ok := r.bg.table.pids[pidScope(ctx, abs, p)]
		r.mu.Unlock()
		if !ok {
			continue
		}
		if !probe {
			r.mu.Lock()
			r.bg.table.of(job).killed = true
			r.mu.Unlock()
			continue
		}
		if !inBg {
			// Once the foreground waited for its jobs they run on
			// their own: whether this one is done yet must not depend
			// on the scheduler, so it is let finish first.
			r.await(ctx, func() bool { st := r.bg.table.of(job); return !r.bg.ending || st.ended || st.killed })
		}
		r.mu.Lock()
		alive := r.bg.table.of(job).alive()
		r.mu.Unlock()
		if !alive {
			return []string{"false"}
		}
	}
	return []string{"true"}
}

// A script that needs a tool looks it up (`command -v ibv_devinfo`),
// installs what provides it when it is missing, and looks again. The
// machine a dry run answers for starts without the tool (so the install
// is traced), and once a package install ran after the first lookup of a
// name, the name is found: the install provided it. Package names need
// not be the commands' (ibverbs-utils gives ibv_devinfo).

// lookup answers `command -v NAME` or `command -V NAME` for a program:
// the command the interpreter runs instead, or nil to let it look.
func (r *run) lookup(args []string) []string {
	if len(args) < 3 || (args[1] != "-v" && args[1] != "-V") || strings.Contains(args[2], "/") {
		return nil
	}
	name := args[2]
	r.mu.Lock()
	defer r.mu.Unlock()
	at, seen := r.looked[name]
	if !seen {
		if r.looked == nil {
			r.looked = map[string]int{}
		}
		r.looked[name] = r.installs
		return nil
	}
	if r.installs > at {
		return []string{"echo", "/usr/bin/" + name}
	}
	return nil
}

// noteInstall counts a package install (apt-get, yum, dnf, apk, pip, uv
// pip, conda install).
func (r *run) noteInstall(argv []string) {
	if !packageInstall(argv) {
		return
	}
	r.mu.Lock()
	r.installs++
	r.mu.Unlock()
}

func packageInstall(argv []string) bool {
	if len(argv) < 2 {
		return false
	}
	w := argv
	if p := path.Base(w[0]); strings.HasPrefix(p, "python") && len(w) > 2 && w[1] == "-m" {
		w = w[2:]
	} else if p == "uv" && w[1] == "pip" {
		w = w[1:]
	}
	switch path.Base(w[0]) {
	case "apt-get", "apt", "yum", "dnf", "apk", "pip", "pip3", "conda", "mamba", "micromamba":
		return slices.Contains(w[1:], "install") || slices.Contains(w[1:], "add")
	}
	return false
}
