package trace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"mvdan.cc/sh/v3/expand"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// call runs before every simple command, builtins and functions included:
// it counts steps (so a loop of builtins is bounded too) and adapts the
// few builtins mvdan.cc/sh does not take as bash does.
func (r *run) call(abs string) interp.CallHandlerFunc {
	return func(ctx context.Context, args []string) ([]string, error) {
		if err := r.tick(); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return args, nil
		}
		if r.marked(ctx, abs, args) {
			return []string{"true"}, nil
		}
		switch args[0] {
		case "sleep":
			r.mu.Lock()
			r.clock += sleepSeconds(args[1:])
			r.mu.Unlock()
			if !r.sleep(ctx) {
				return []string{"exit", "0"}, nil
			}
		case clockName:
			now, _ := strconv.Atoi(interp.HandlerCtx(ctx).Env.Get("SECONDS").String())
			return []string{"echo", strconv.Itoa(now + sleepSeconds(args[1:]))}, nil
		case "wait":
			r.waitJobs(ctx)
		case "set":
			return setArgs(args), nil
		case "kill":
			return r.kill(ctx, abs, args[1:]), nil
		case "command":
			if found := r.lookup(args); found != nil {
				return found, nil
			}
		case "trap":
			return trapArgs(args), nil
		case "printf":
			return printfArgs(args), nil
		case "source", ".":
			if len(args) > 1 {
				hc := interp.HandlerCtx(ctx)
				p := absPath(hc.Dir, args[1])
				file, line := r.where(abs, hc.Pos)
				r.record(Step{Kind: Source, Path: p, File: file, Line: line})
				r.mu.Lock()
				r.sourcing = p
				r.mu.Unlock()
			}
		}
		return args, nil
	}
}

// setArgs drops errexit: a probe whose real output the trace cannot know
// may fail here where it would not on the runner, and the trace must go
// on to what the script does next. An explicit exit still ends it.
func setArgs(args []string) []string {
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-o" || a == "+o") && i+1 < len(args) && args[i+1] == "errexit":
			i++
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a[1] != '-' && a != "-o" && a != "+o":
			if f := strings.ReplaceAll(a, "e", ""); len(f) > 1 {
				out = append(out, f)
			}
		default:
			out = append(out, a)
		}
	}
	if len(out) == 1 && len(args) > 1 {
		return []string{"true"}
	}
	return out
}

// trapArgs keeps the conditions the interpreter knows (EXIT, ERR): a
// signal handler never runs in a dry run, and naming one would stop it.
func trapArgs(args []string) []string {
	if len(args) < 3 {
		return args
	}
	out := args[:2:2]
	for _, sig := range args[2:] {
		switch strings.TrimPrefix(strings.ToUpper(sig), "SIG") {
		case "EXIT", "ERR", "0":
			out = append(out, sig)
		}
	}
	if len(out) == 2 {
		return []string{"true"}
	}
	return out
}

// printfArgs formats a printf call as bash would (the interpreter's
// printf lacks %q and precision: %.2f) and hands the interpreter the
// result to print with %s.
func printfArgs(args []string) []string {
	i := 1
	if i < len(args) && args[i] == "-v" {
		i += 2
	}
	if i >= len(args) || i > len(args)-1 {
		return args
	}
	if i < len(args) && args[i] == "--" {
		i++
	}
	if i >= len(args) {
		return args
	}
	out := append([]string(nil), args[:i]...)
	return append(out, "%s", bashPrintf(args[i], args[i+1:]))
}

func absPath(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

// exec records a command and answers it without running it: a repository
// script is traced in turn, a few pure commands are computed, probes
// answer from the stubs, and everything else succeeds and prints nothing.
func (r *run) exec(abs string, depth int) func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			hc := interp.HandlerCtx(ctx)
			env := exported(hc.Env)
			file, line := r.where(abs, hc.Pos)
			at := Step{Kind: Exec, Argv: args, Env: r.changed(env), File: file, Line: line, Depth: depth}
			r.record(at)
			r.noteLasting(ctx, args)
			r.noteInstall(args)
			return r.answer(ctx, hc, args, env, depth, at)
		}
	}
}

// wrappers run the command that follows their own options.
var wrappers = map[string]bool{"sudo": true, "nohup": true, "time": true, "stdbuf": true, "setsid": true, "exec": true}

func (r *run) answer(ctx context.Context, hc interp.HandlerContext, args []string, env map[string]string, depth int, at Step) error {
	name := path.Base(args[0])
	switch {
	case wrappers[name]:
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return nil
		}
		return r.inner(ctx, hc, rest, env, depth, at)
	case name == "env":
		rest := args[1:]
		for len(rest) > 0 && (strings.HasPrefix(rest[0], "-") || strings.Contains(rest[0], "=")) {
			if k, v, ok := strings.Cut(rest[0], "="); ok && !strings.HasPrefix(rest[0], "-") {
				env[k] = v
			}
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return nil
		}
		return r.inner(ctx, hc, rest, env, depth, at)
	case name == "timeout":
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
		}
		if len(rest) > 1 {
			return r.inner(ctx, hc, rest[1:], env, depth, at)
		}
		return nil
	case name == "bash" || name == "sh":
		return r.shell(ctx, hc, args, env, depth)
	case launchers[name] != nil:
		if name == "salloc" {
			// What salloc says on standard error once it has the
			// allocation: launchers read the job's ID from it.
			fmt.Fprintf(hc.Stderr, "salloc: Granted job allocation %s\n", batchJobID)
		}
		inner, extra := launchers[name](args[1:])
		if name == "salloc" || name == "sbatch" {
			r.allocate(extra)
		}
		if len(inner) == 0 {
			return nil
		}
		if name == "srun" {
			return r.srun(ctx, hc, inner, env, extra, depth, at)
		}
		if pass, own := containerEnv(args[1:]); own && (name == "docker" || name == "podman") {
			host := env
			env = map[string]string{}
			for _, k := range pass {
				if v, ok := host[k]; ok {
					env[k] = v
				}
			}
		}
		for k, v := range extra {
			env[k] = v
		}
		if name == "sbatch" {
			// sbatch's argument is the batch script's path, with or
			// without a directory.
			if !strings.Contains(inner[0], "/") && r.isScript(ctx, absPath(hc.Dir, inner[0])) {
				inner[0] = "./" + inner[0]
			}
			// A batch job's output goes to its log, not to whoever
			// submitted it; sbatch prints the job's ID (the one squeue
			// then reports).
			quiet := hc
			quiet.Stdout = io.Discard
			err := r.inner(ctx, quiet, inner, env, depth, at)
			if slices.Contains(args, "--parsable") {
				io.WriteString(hc.Stdout, batchJobID+"\n")
			} else {
				io.WriteString(hc.Stdout, "Submitted batch job "+batchJobID+"\n")
			}
			var st interp.ExitStatus
			if errors.As(err, &st) {
				return nil // the job's own exit is not sbatch's
			}
			return err
		}
		return r.inner(ctx, hc, inner, env, depth, at)
	case strings.Contains(args[0], "/") && r.isScript(ctx, absPath(hc.Dir, args[0])):
		return r.start(ctx, hc, absPath(hc.Dir, args[0]), "", args[1:], env, depth)
	}
	return r.builtinTool(ctx, hc, name, args)
}

// srun runs a step's command once per task it follows (taskRanks), each
// with its rank; its status is the highest of theirs, as srun's is.
func (r *run) srun(ctx context.Context, hc interp.HandlerContext, cmd []string, env, step map[string]string, depth int, at Step) error {
	var status interp.ExitStatus
	for _, rank := range taskRanks(step, env) {
		task := maps.Clone(env)
		maps.Copy(task, step)
		for _, k := range []string{"SLURM_PROCID", "SLURM_NODEID"} {
			task[k] = strconv.Itoa(rank)
		}
		task["SLURMD_NODENAME"] = nodeName(rank)
		err := r.inner(ctx, hc, slices.Clone(cmd), task, depth, at)
		var st interp.ExitStatus
		switch {
		case errors.As(err, &st):
			status = max(status, st)
		case err != nil:
			return err
		}
	}
	if status != 0 {
		return status
	}
	return nil
}

// inner records the command a wrapper or launcher runs as a step of its
// own, where the outer command is written, and answers it: a server
// started through srun, mpirun or docker is found by its own argv.
func (r *run) inner(ctx context.Context, hc interp.HandlerContext, args []string, env map[string]string, depth int, at Step) error {
	r.record(Step{Kind: Exec, Argv: args, Env: r.changed(env), File: at.File, Line: at.Line, Depth: depth})
	r.noteLasting(ctx, args)
	r.noteInstall(args)
	return r.answer(ctx, hc, args, env, depth, at)
}

// isScript reports whether p is a file the trace can read (the repository
// or the overlay).
func (r *run) isScript(ctx context.Context, p string) bool {
	r.mu.Lock()
	_, ok := r.overlay[p]
	r.mu.Unlock()
	if ok {
		return true
	}
	if !r.inRepo(p) {
		return false
	}
	exists, dir := r.files.Stat(ctx, r.rel(p))
	return exists && !dir
}

// shell handles bash/sh: a script file, or -c with a command string.
func (r *run) shell(ctx context.Context, hc interp.HandlerContext, args []string, env map[string]string, depth int) error {
	rest := args[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		// -c alone or in a cluster of short options (-lc, -ec, -xc).
		if f := rest[0]; !strings.HasPrefix(f, "--") && strings.ContainsRune(f, 'c') && len(rest) > 1 {
			return r.start(ctx, hc, "", rest[1], rest[2:], env, depth)
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		// A script read from standard input: an installer piped in
		// (curl … | INSTALL_DIR=d sh). Its script is not the repository's;
		// on a healthy machine it fills the directory it is told to.
		for k, v := range env {
			if strings.HasSuffix(k, "INSTALL_DIR") && path.IsAbs(v) {
				r.mark(r.fetched, path.Clean(v))
			}
		}
		return nil
	}
	p := absPath(hc.Dir, rest[0])
	return r.start(ctx, hc, p, "", rest[1:], env, depth)
}

// start traces a nested script (file p, or text when p is ""), its
// output going where the command's would.
func (r *run) start(ctx context.Context, hc interp.HandlerContext, p, text string, args []string, env map[string]string, depth int) error {
	name := p
	if p == "" {
		name = path.Join(hc.Dir, "(bash -c)")
	} else {
		data, err := r.read(ctx, p)
		if err != nil {
			fmt.Fprintf(hc.Stderr, "bash: %s: No such file or directory\n", p)
			return interp.ExitStatus(127)
		}
		text = string(data)
	}
	r.record(Step{Kind: Script, Path: name, Argv: args, Env: r.changed(env), Depth: depth + 1})
	if job := hc.Env.Get(bgVar).String(); job != "" {
		// A script a background job starts is that job: its sleeps are
		// the job's.
		env = maps.Clone(env)
		env[bgVar] = job
	}
	exit, err := r.script(ctx, name, text, args, envList(env), hc.Dir, hc.Stdout, depth+1)
	if err != nil {
		return err
	}
	if exit != 0 {
		return interp.ExitStatus(uint8(exit))
	}
	return nil
}

// open serves reads from the overlay and the repository and records
// writes, which go to the overlay only.
func (r *run) open(abs string) interp.OpenHandlerFunc {
	return func(ctx context.Context, p string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
		hc := interp.HandlerCtx(ctx)
		p = absPath(hc.Dir, p)
		if p == "/dev/null" {
			return nopCloser{io.Discard}, nil
		}
		if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
			data, err := r.read(ctx, p)
			if err != nil {
				return nil, err
			}
			return nopCloser{bytes.NewReader(data)}, nil
		}
		file, line := r.where(abs, hc.Pos)
		// The file exists from the moment it is opened, as on a real disk:
		// a script waits for a background server's log to appear.
		r.mu.Lock()
		if _, ok := r.overlay[p]; !ok || flag&os.O_APPEND == 0 {
			r.overlay[p] = nil
		}
		r.mu.Unlock()
		return &writer{r: r, path: p, appendTo: flag&os.O_APPEND != 0, file: file, line: line}, nil
	}
}

// writer collects a write and records it on Close.
type writer struct {
	r          *run
	path       string
	appendTo   bool
	buf        bytes.Buffer
	truncated  bool
	file       string
	line       int
	closedOnce bool
}

func (w *writer) Read([]byte) (int, error) { return 0, io.EOF }

func (w *writer) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	w.r.written += len(p)
	over := w.r.written > w.r.opt.MaxWritten
	w.r.mu.Unlock()
	if over {
		return 0, w.r.halt(&errLimit{fmt.Sprintf("the script wrote more than %d bytes", w.r.opt.MaxWritten)})
	}
	if room := w.r.opt.MaxWrite - w.buf.Len(); room < len(p) {
		w.buf.Write(p[:max(room, 0)])
		w.truncated = true
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

func (w *writer) Close() error {
	if w.closedOnce {
		return nil
	}
	w.closedOnce = true
	w.r.mu.Lock()
	prev := w.r.overlay[w.path]
	if w.appendTo {
		w.r.overlay[w.path] = append(append([]byte(nil), prev...), w.buf.Bytes()...)
	} else {
		w.r.overlay[w.path] = append([]byte(nil), w.buf.Bytes()...)
	}
	w.r.mu.Unlock()
	if strings.HasPrefix(w.path, psubDir) {
		return nil // a process substitution's output, read back
	}
	return w.r.record(Step{Kind: Write, Path: w.path, Content: w.buf.String(), Truncated: w.truncated, Append: w.appendTo,
		File: w.file, Line: w.line})
}

type nopCloser struct{ rw any }

func (n nopCloser) Read(p []byte) (int, error) {
	if rd, ok := n.rw.(io.Reader); ok {
		return rd.Read(p)
	}
	return 0, io.EOF
}

func (n nopCloser) Write(p []byte) (int, error) {
	if w, ok := n.rw.(io.Writer); ok {
		return w.Write(p)
	}
	return len(p), nil
}

func (nopCloser) Close() error { return nil }

// access answers the permission checks (cd's, test -r/-w/-x) on the same
// files stat sees: the job's checkout and what the script made, all of it
// the job's own. The interpreter's default would ask this machine, where
// the job's directories do not exist, so every cd would be refused.
func (r *run) access(ctx context.Context, name string, _ interp.AccessMode) error {
	_, err := r.stat(ctx, name, true)
	return err
}

// stat answers for the overlay and the repository; nothing else exists.
func (r *run) stat(ctx context.Context, name string, _ bool) (fs.FileInfo, error) {
	name = path.Clean(name)
	r.mu.Lock()
	data, ok := r.overlay[name]
	r.mu.Unlock()
	if ok {
		return fileInfo{name: path.Base(name), size: int64(len(data))}, nil
	}
	if name == r.opt.Root {
		return fileInfo{name: path.Base(name), dir: true}, nil
	}
	if dir, ok := r.made(name); ok {
		return fileInfo{name: path.Base(name), dir: dir}, nil
	}
	if r.inRepo(name) {
		if exists, dir := r.files.Stat(ctx, r.rel(name)); exists {
			return fileInfo{name: path.Base(name), dir: dir}, nil
		}
	} else if r.provided(ctx, name) {
		return fileInfo{name: path.Base(name), dir: true}, nil
	} else if m, ok := machine(name); ok {
		return fileInfo{name: path.Base(name), size: int64(len(m.content)), dir: m.dir}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// provided reports whether name lies, outside the checkout, in storage
// the machine provides: under the directory a variable Options.Provided
// names points at in the script's environment now (stat is only ever
// called by the interpreter, with its handler context).
func (r *run) provided(ctx context.Context, name string) (found bool) {
	if r.opt.Provided == nil {
		return false
	}
	interp.HandlerCtx(ctx).Env.Each(func(k string, v expand.Variable) bool {
		dir := path.Clean(v.String())
		if r.opt.Provided.MatchString(k) && path.IsAbs(dir) && dir != "/" && (name == dir || strings.HasPrefix(name, dir+"/")) {
			found = true
			return false
		}
		return true
	})
	return found
}

// made reports whether name is a directory the script made, or lies in a
// place a download filled (a file there exists; its content is unknown).
func (r *run) made(name string) (dir, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirs[name] || r.fetched[name] {
		return true, true
	}
	for p := path.Dir(name); p != "/" && p != "."; p = path.Dir(p) {
		if r.fetched[p] {
			return false, true
		}
	}
	return false, false
}

// readDir lists nothing: globs over directories match nothing rather than
// guess at what a runner's disk holds.
func (r *run) readDir(context.Context, string) ([]fs.DirEntry, error) { return nil, nil }

type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return f.size }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o755
	}
	return 0o755
}
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }
