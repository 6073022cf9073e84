// Package trace runs a bash script dry and records what it would do: every
// command with its resolved arguments and exported environment, every file
// it writes (with the content, where known), every file it sources and
// every script it starts. It is mvdan.cc/sh/v3's interpreter with handlers
// that record instead of executing: nothing a script names is ever run,
// no file outside the trace's own overlay is ever written, and the
// repository is read through Files only.
//
// Values resolve as bash resolves them (defaults, substitutions, arrays,
// functions, conditionals, sourced files, heredocs), so a rule reading the
// trace sees the value the benchmark would use, however the script spells
// it. What cannot be known on this machine (a GPU probe, a cluster query)
// answers from a documented stub table (see Stubs); a value that depends
// on what a real command would print stays whatever the stub printed,
// usually nothing, and the steps that used it say so through their argv.
//
// Every trace is bounded: in steps (commands and builtins), nesting of
// scripts, bytes written, and wall time. A trace that hits a bound stops
// and says which (Trace.Stopped); what it recorded until then stays.
package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Files is the repository a trace reads, by slash-separated paths relative
// to its root.
type Files interface {
	// ReadFile returns a file's content; a missing file is an error
	// wrapping fs.ErrNotExist.
	ReadFile(ctx context.Context, name string) ([]byte, error)
	// Stat reports whether name is a file or a directory of the
	// repository.
	Stat(ctx context.Context, name string) (exists, dir bool)
}

// MapFiles is a repository held in memory, path → content: for tests, and
// for tools that trace a script they were handed.
type MapFiles map[string]string

// ReadFile implements Files.
func (f MapFiles) ReadFile(_ context.Context, name string) ([]byte, error) {
	s, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return []byte(s), nil
}

// Stat implements Files: a path is a directory when a file lies under it.
func (f MapFiles) Stat(_ context.Context, name string) (bool, bool) {
	if _, ok := f[name]; ok {
		return true, false
	}
	for p := range f {
		if strings.HasPrefix(p, name+"/") {
			return true, true
		}
	}
	return false, false
}

// Kind is what a step did.
type Kind string

// The kinds of step.
const (
	// Exec is a command that is not a shell builtin or function: its
	// argv as resolved, and the variables exported to it.
	Exec Kind = "exec"
	// Script is a repository script started as a command (bash x.sh,
	// ./x.sh, bash -c "..."); its steps follow, one level deeper.
	Script Kind = "script"
	// Source is a file read by source or ".".
	Source Kind = "source"
	// Write is a file written or appended to (a redirection, tee).
	Write Kind = "write"
)

// Step is one thing the script would do.
type Step struct {
	Kind Kind     `json:"kind"`
	Argv []string `json:"argv,omitempty"`
	// Env holds the exported variables that differ from the environment
	// the trace started with (Exec and Script steps).
	Env map[string]string `json:"env,omitempty"`
	// Path is the file written or sourced, or the script started, as the
	// script named it (absolute).
	Path string `json:"path,omitempty"`
	// Content is what was written, cut at MaxWrite bytes (Truncated).
	Content   string `json:"content,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Append    bool   `json:"append,omitempty"`
	// File and Line say where in the repository the step is written
	// (File relative to the root; "" for a script given as text).
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Depth int    `json:"depth,omitempty"`
}

// Trace is what a dry run recorded.
type Trace struct {
	Steps []Step `json:"steps"`
	// Unread lists repository files the script read (sourced, started,
	// read from) that do not exist or could not be read, in order.
	Unread []string `json:"unread,omitempty"`
	// Stopped says why the trace ended before the script did: a bound
	// (naming it), a script that does not parse, or a script error the
	// interpreter cannot go past. "" when the script ran to its end.
	Stopped string `json:"stopped,omitempty"`
	// Bounded says Stopped names one of the trace's own bounds (steps,
	// nesting, bytes, time) rather than the script's end or error: what
	// the script would have done after it is unknown.
	Bounded bool `json:"bounded,omitempty"`
	// Exit is the script's exit status (0 when it ran to its end).
	Exit int `json:"exit"`
	// Stderr is the end of what the scripts wrote to standard error (at
	// most 4 KiB): why a script gave up, in its own words.
	Stderr string `json:"stderr,omitempty"`
}

// Options bound and shape a dry run. The zero value has every default.
type Options struct {
	// Root is where the repository appears to the script (/repo).
	Root string
	// Env is the environment the script starts with.
	Env map[string]string
	// Args are the script's positional parameters.
	Args []string
	// Stubs answer commands that probe what this machine is not (GPUs,
	// the cluster, the network); they add to and override DefaultStubs.
	Stubs map[string]Stub
	// Provided names the variables through which the job is pointed at
	// storage its machine provides outside the checkout (model weights):
	// paths under their values exist, as they do where the job runs.
	// Nil: nothing outside the checkout exists but what the script made.
	Provided *regexp.Regexp
	// Lasting reports whether a command runs until it is stopped (a
	// server): a background job that ran one stays alive to kill -0
	// after its trace is done. Nil: no job is known to end, and kill -0
	// always succeeds.
	Lasting func(argv []string) bool
	// MaxSteps bounds the commands and builtins run (20,000); MaxDepth
	// the nesting of scripts (16); MaxWrite the bytes kept of one write
	// (64 KiB) and MaxWritten of all writes (8 MiB); Timeout the wall
	// time (10 s).
	MaxSteps, MaxDepth   int
	MaxWrite, MaxWritten int
	Timeout              time.Duration
}

func (o Options) withDefaults() Options {
	if o.Root == "" {
		o.Root = "/repo"
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 20000
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 16
	}
	if o.MaxWrite <= 0 {
		o.MaxWrite = 64 << 10
	}
	if o.MaxWritten <= 0 {
		o.MaxWritten = 8 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return o
}

// MaxScript bounds the size of one script the trace parses.
const MaxScript = 1 << 20

// errLimit stops a trace at a bound.
type errLimit struct{ what string }

func (e *errLimit) Error() string { return e.what }

// run is the state one dry run shares across its nested scripts.
type run struct {
	files   Files
	opt     Options
	env0    map[string]string
	mu      sync.Mutex
	tr      Trace
	steps   int
	written int
	overlay map[string][]byte // files the script wrote, by absolute path
	// dirs are directories the script made; fetched are places a
	// download or clone filled, whose content the trace cannot know but
	// which exist (a model checkpoint, a cloned project).
	dirs    map[string]bool
	fetched map[string]bool
	squeued bool // a squeue query was answered
	nodes   int  // nodes of the last allocation (salloc, sbatch); 0: none
	psubs   int  // process substitutions numbered so far
	clock   int  // seconds the run's sleeps asked for, all scripts together
	// installs counts package installs; looked holds, per program a
	// script looked up, the count at its first lookup (see lookup).
	installs int
	looked   map[string]int
	// sourcing is the file a source builtin is about to read: it is
	// read with subshellFuncs applied.
	sourcing string
	// sourced are the files read by source, in order: the k-th has the
	// line numbers of block k.
	sourced []string
	stop    error
	stderr  tail
	bg      background
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf) - 4<<10; n > 0 {
		t.buf = append(t.buf[:0], t.buf[n:]...)
	}
	return len(p), nil
}

// Run traces the repository script name (relative to the root).
func Run(ctx context.Context, files Files, name string, opt Options) *Trace {
	opt = opt.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	r := newRun(files, opt)
	abs := path.Join(opt.Root, name)
	data, err := r.read(ctx, abs)
	if err != nil {
		r.tr.Stopped = fmt.Sprintf("the script %s cannot be read: %v", name, err)
		return &r.tr
	}
	exit, err := r.script(ctx, abs, string(data), opt.Args, envList(r.env0), opt.Root, io.Discard, 0)
	r.finish(ctx, exit, err)
	return &r.tr
}

// RunText traces a script given as text, as if it were the repository file
// name (which need not exist).
func RunText(ctx context.Context, files Files, name, text string, opt Options) *Trace {
	opt = opt.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	r := newRun(files, opt)
	exit, err := r.script(ctx, path.Join(opt.Root, name), text, opt.Args, envList(r.env0), opt.Root, io.Discard, 0)
	r.finish(ctx, exit, err)
	return &r.tr
}

func newRun(files Files, opt Options) *run {
	env := maps.Clone(opt.Env)
	if env == nil {
		env = map[string]string{}
	}
	// Bash's own clock; the interpreter does not keep it, and scripts
	// compute deadlines from it under set -u.
	if _, ok := env["SECONDS"]; !ok {
		env["SECONDS"] = "0"
	}
	return &run{files: files, opt: opt, env0: env, overlay: map[string][]byte{}, dirs: map[string]bool{}, fetched: map[string]bool{}}
}

func (r *run) finish(ctx context.Context, exit int, err error) {
	r.tr.Exit = exit
	r.tr.Stderr = string(r.stderr.buf)
	var lim *errLimit
	switch {
	case r.stop != nil && errors.As(r.stop, &lim):
		r.tr.Stopped, r.tr.Bounded = lim.what, true
	case ctx.Err() != nil:
		r.tr.Stopped, r.tr.Bounded = fmt.Sprintf("the trace took longer than %v", r.opt.Timeout), true
	case err != nil:
		r.tr.Stopped = err.Error()
	}
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// script runs one script's text; its exit status is returned, and an error
// only when the trace must stop.
func (r *run) script(ctx context.Context, abs, text string, args, env []string, dir string, stdout io.Writer, depth int) (int, error) {
	if depth > r.opt.MaxDepth {
		return 0, r.halt(&errLimit{fmt.Sprintf("scripts nest deeper than %d (at %s)", r.opt.MaxDepth, r.rel(abs))})
	}
	if len(text) > MaxScript {
		return 0, r.halt(&errLimit{fmt.Sprintf("%s is larger than %d bytes", r.rel(abs), MaxScript)})
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(prepare(bashSource(text, abs))), abs)
	if err != nil {
		return 0, r.halt(fmt.Errorf("%s does not parse: %w", r.rel(abs), err))
	}
	noFifos(file, r.nextPsub)
	clocked(file)
	markBackground(file, r.nextJob)
	runner, err := interp.New(
		interp.Env(expand.ListEnviron(env...)),
		interp.Params(append([]string{"--"}, args...)...),
		interp.StdIO(strings.NewReader(""), stdout, &r.stderr),
		interp.CallHandler(r.call(abs)),
		interp.ExecHandlers(r.exec(abs, depth)),
		interp.OpenHandler(r.open(abs)),
		interp.StatHandler(r.stat),
		interp.AccessHandler(r.access),
		interp.ReadDirHandler2(r.readDir),
	)
	if err != nil {
		return 0, r.halt(fmt.Errorf("starting the interpreter for %s: %w", r.rel(abs), err))
	}
	// The directory is the repository's as the script sees it, which
	// need not exist here (interp.Dir would stat it on this machine).
	runner.Dir = dir
	err = runner.Run(ctx, file)
	// Background commands (a server started with &) run on; a dry run
	// waits for them, so what they do is recorded before the trace ends.
	if wait, perr := syntax.NewParser().Parse(strings.NewReader("wait\n"), abs); perr == nil {
		runner.Run(ctx, wait)
	}
	if r.stop != nil {
		return 0, r.stop
	}
	var status interp.ExitStatus
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &status):
		return int(status), nil
	case ctx.Err() != nil:
		return 0, ctx.Err()
	}
	return 1, r.halt(fmt.Errorf("%s: %w", r.rel(abs), err))
}

// edit replaces n bytes of a script's text at offset at.
type edit struct {
	at, n int
	with  string
}

// applyEdits makes edits (from one parse of text, not overlapping). Of
// edits at one offset, a replacement is made before an insertion, which so
// lands in front of it.
func applyEdits(text string, edits []edit) string {
	slices.SortStableFunc(edits, func(a, b edit) int {
		if a.at != b.at {
			return b.at - a.at
		}
		return b.n - a.n
	})
	for _, e := range edits {
		if e.at+e.n <= len(text) {
			text = text[:e.at] + e.with + text[e.at+e.n:]
		}
	}
	return text
}

// subshellFuncs is subshellEdits made on text (as it is when it does not
// parse).
func subshellFuncs(text string) string {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return text
	}
	return applyEdits(text, subshellEdits(text, file))
}

// subshellEdits rewrite functions whose body is a subshell, f() ( ... ),
// into ones whose body is a block, their own exits becoming returns: the
// interpreter loses track of being in a function inside the subshell and
// refuses their local declarations. A dry run loses only the isolation of
// the function's variables, which it does not need. Every line keeps its
// number.
func subshellEdits(text string, file *syntax.File) []edit {
	var edits []edit
	syntax.Walk(file, func(n syntax.Node) bool {
		fd, ok := n.(*syntax.FuncDecl)
		if !ok || fd.Body == nil {
			return true
		}
		sub, ok := fd.Body.Cmd.(*syntax.Subshell)
		if !ok {
			return true
		}
		end := ";}"
		if i := strings.LastIndexFunc(text[:sub.Rparen.Offset()], func(c rune) bool { return c != ' ' && c != '\t' }); i >= 0 && strings.ContainsRune("\n;&", rune(text[i])) {
			end = "}"
		}
		edits = append(edits, edit{int(sub.Lparen.Offset()), 1, "{ "}, edit{int(sub.Rparen.Offset()), 1, end})
		for _, st := range sub.Stmts {
			syntax.Walk(st, func(n syntax.Node) bool {
				switch x := n.(type) {
				case *syntax.FuncDecl, *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
					return false
				case *syntax.CallExpr:
					if len(x.Args) > 0 && len(x.Args[0].Parts) == 1 {
						if lit, ok := x.Args[0].Parts[0].(*syntax.Lit); ok && lit.Value == "exit" {
							edits = append(edits, edit{int(lit.Pos().Offset()), 4, "return"})
						}
					}
				}
				return true
			})
		}
		return true
	})
	return edits
}

// prepare edits a script's text for the interpreter, keeping every line
// where it is: associative keys quoted (assocKeys), then, from one parse,
// functions with subshell bodies run as blocks and redirects of file
// descriptors past 2 gone; and PIPESTATUS, which the interpreter does not
// keep, set ahead for a script that reads it. A text that does not parse
// keeps its functions and redirects, and the interpreter says why.
func prepare(text string) string {
	text = assocKeys(text)
	if file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), ""); err == nil {
		text = applyEdits(text, append(subshellEdits(text, file), highFDEdits(text, file)...))
	}
	if strings.Contains(text, "PIPESTATUS") {
		// Every command of a dry run succeeds, so every pipeline's
		// statuses are zeros; set -u would otherwise stop the script.
		text = "PIPESTATUS=(0 0 0 0 0 0 0 0); " + text
	}
	return text
}

// bashSourceRE is a script's reference to its own file: ${BASH_SOURCE[0]},
// ${BASH_SOURCE} or $BASH_SOURCE, which the interpreter does not set.
var bashSourceRE = regexp.MustCompile(`\$\{BASH_SOURCE(\[0\])?\}|\$BASH_SOURCE([^A-Za-z0-9_\[]|$)`)

// bashSource writes a file's own path (abs) where it names itself through
// BASH_SOURCE: in bash that is the file a line is written in, at its top
// level or in a function it defines, called from anywhere. Lines stay put.
func bashSource(text, abs string) string {
	if !strings.Contains(text, "BASH_SOURCE") || abs == "" || strings.HasSuffix(abs, "(bash -c)") {
		return text
	}
	return bashSourceRE.ReplaceAllStringFunc(text, func(m string) string {
		if strings.HasPrefix(m, "${") {
			return abs
		}
		return abs + m[len("$BASH_SOURCE"):]
	})
}

var (
	// assocDecl starts the compound assignment of an associative array,
	// or declares one (its name is the submatch).
	assocDecl = regexp.MustCompile(`\b(?:declare|local|typeset|readonly)\s+-[A-Za-z]*A[A-Za-z]*\s+([A-Za-z_][A-Za-z0-9_]*)=\(`)
	assocName = regexp.MustCompile(`\b(?:declare|local|typeset|readonly)\s+-[A-Za-z]*A[A-Za-z]*\s+([A-Za-z_][A-Za-z0-9_]*)`)
	// arithKey is an index arithmetic can read: a number, a name, or an
	// expansion of one.
	arithKey = regexp.MustCompile(`^[A-Za-z0-9_$@*{}]+$`)
	// bareKey is an element's key written without quotes.
	bareKey  = regexp.MustCompile(`\[([^\]"'\s$\x60]+)\]=`)
	plainKey = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

// assocKeys quotes the keys of associative array literals that bash reads
// as strings but the parser, not knowing the array is associative, reads
// as arithmetic and refuses (declare -A M=([1024:8:false]=4) is "ternary
// operator missing ?"). Each key gains two quotes on its own line, so every
// line keeps its number.
func assocKeys(text string) string {
	if !strings.Contains(text, "-A") {
		return text
	}
	text = assocIndexes(text)
	var b strings.Builder
	rest := text
	for {
		loc := assocDecl.FindStringIndex(rest)
		if loc == nil {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:loc[1]])
		rest = rest[loc[1]:]
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			end = len(rest)
		}
		b.WriteString(bareKey.ReplaceAllStringFunc(rest[:end], func(m string) string {
			key := m[1 : len(m)-2]
			if plainKey.MatchString(key) {
				return m
			}
			return `["` + key + `"]=`
		}))
		rest = rest[end:]
	}
}

// assocIndexes quotes the indexes of the associative arrays text declares
// where they are read or set (${M[$A:$B]}, M[$A:$B]=1) when arithmetic
// could not read them, as assocKeys does for their literals.
func assocIndexes(text string) string {
	for _, m := range assocName.FindAllStringSubmatch(text, -1) {
		ref := regexp.MustCompile(`(\$\{` + m[1] + `|\b` + m[1] + `)\[([^\]"'\s]+)\]`)
		text = ref.ReplaceAllStringFunc(text, func(s string) string {
			sm := ref.FindStringSubmatch(s)
			if arithKey.MatchString(sm[2]) {
				return s
			}
			return sm[1] + `["` + sm[2] + `"]`
		})
	}
	return text
}

// highFDEdits blank the redirects of file descriptors past 2 (exec
// 9>lock, { …; } 9>lock, flock's >&9, bash's {fd}>file), which the
// interpreter refuses ("unsupported redirect fd"), so a script taking a
// lock runs on. A dry run loses only the descriptor: the lock it guards is
// uncontended, and flock answers from the stubs. Each redirect becomes as
// many spaces; one that spans lines is left.
func highFDEdits(text string, file *syntax.File) []edit {
	high := func(s string) bool {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			return true // {fd}>file: bash picks a descriptor past 9
		}
		n, err := strconv.Atoi(s)
		return err == nil && n > 2
	}
	var edits []edit
	syntax.Walk(file, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || r.Word == nil {
			return true
		}
		dup := r.Op == syntax.DplOut || r.Op == syntax.DplIn
		if (r.N != nil && high(r.N.Value)) || (dup && high(r.Word.Lit())) {
			start := r.OpPos
			if r.N != nil {
				start = r.N.Pos()
			}
			from, to := int(start.Offset()), int(r.Word.End().Offset())
			if from < to && to <= len(text) && !strings.ContainsRune(text[from:to], '\n') {
				edits = append(edits, edit{from, to - from, strings.Repeat(" ", to-from)})
			}
		}
		return true
	})
	return edits
}

// halt records the first reason to stop and returns it.
func (r *run) halt(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop == nil {
		r.stop = err
	}
	return r.stop
}

// rel is abs relative to the root, or abs itself outside it.
func (r *run) rel(abs string) string {
	if rel, ok := strings.CutPrefix(path.Clean(abs), r.opt.Root+"/"); ok {
		return rel
	}
	return abs
}

func (r *run) inRepo(abs string) bool {
	return strings.HasPrefix(path.Clean(abs), r.opt.Root+"/")
}

// read reads abs from the overlay or the repository, noting a repository
// file that cannot be read.
func (r *run) read(ctx context.Context, abs string) ([]byte, error) {
	abs = path.Clean(abs)
	r.mu.Lock()
	data, ok := r.overlay[abs]
	r.mu.Unlock()
	if ok {
		return data, nil
	}
	if !r.inRepo(abs) {
		if m, ok := machine(abs); ok && !m.dir {
			return []byte(m.content), nil
		}
		return nil, &fs.PathError{Op: "open", Path: abs, Err: fs.ErrNotExist}
	}
	data, err := r.files.ReadFile(ctx, r.rel(abs))
	if err == nil && r.takeSourcing(abs) {
		// A sourced file's lines are numbered from its own block, so that a
		// command of a function it defines, run later from anywhere, is
		// cited at its own file and line (see where).
		r.mu.Lock()
		k := 0
		if i := slices.Index(r.sourced, r.rel(abs)); i >= 0 {
			k = i + 1 // sourced again: the same block
		} else if len(r.sourced) < maxSourcedBlocks {
			r.sourced = append(r.sourced, r.rel(abs))
			k = len(r.sourced)
		}
		r.mu.Unlock()
		text := prepare(bashSource(string(data), abs))
		if file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), ""); err == nil {
			// Its background jobs are counted as a script's are, its
			// process substitutions make no pipe, its sleeps move the
			// clock.
			text = applyEdits(text, slices.Concat(backgroundEdits(file, r.nextJob), fifoEdits(file, r.nextPsub), clockEdits(file, text)))
		}
		data = []byte(strings.Repeat("\n", k*lineBlock) + text)
	}
	if err != nil {
		r.mu.Lock()
		if !slices.Contains(r.tr.Unread, r.rel(abs)) {
			r.tr.Unread = append(r.tr.Unread, r.rel(abs))
		}
		r.mu.Unlock()
		return nil, err
	}
	return data, nil
}

// nextPsub numbers a process substitution of the run.
func (r *run) nextPsub() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.psubs++
	return r.psubs
}

// takeSourcing reports whether abs is the file a source builtin is about
// to read, forgetting it.
func (r *run) takeSourcing(abs string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sourcing == abs {
		r.sourcing = ""
		return true
	}
	return false
}

// record appends a step, counting it against MaxSteps.
func (r *run) record(s Step) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tr.Steps = append(r.tr.Steps, s)
	return nil
}

// tick counts one command or builtin against MaxSteps.
func (r *run) tick() error {
	r.mu.Lock()
	r.steps++
	over := r.steps > r.opt.MaxSteps
	r.mu.Unlock()
	if over {
		return r.halt(&errLimit{fmt.Sprintf("the script ran more than %d commands (a loop that waits on a real system?)", r.opt.MaxSteps)})
	}
	return nil
}

// exported is the environment exported to a command, as a map.
func exported(env expand.Environ) map[string]string {
	out := map[string]string{}
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.Kind == expand.String && name != bgVar {
			out[name] = vr.Str
		}
		return true
	})
	return out
}

// changed is the part of env that differs from the start.
func (r *run) changed(env map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		if k == "SECONDS" {
			continue // the dry run's clock, not a setting
		}
		if old, ok := r.env0[k]; !ok || old != v {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (r *run) where(abs string, pos syntax.Pos) (string, int) {
	if !pos.IsValid() {
		return r.rel(abs), 0
	}
	line := int(pos.Line())
	if k := line / lineBlock; k > 0 {
		r.mu.Lock()
		defer r.mu.Unlock()
		if k <= len(r.sourced) {
			return r.sourced[k-1], line % lineBlock
		}
	}
	return r.rel(abs), line
}

// lineBlock is the span of line numbers each sourced file is given; a
// file longer than that is cited at the script that sourced it.
const lineBlock = 10000

// maxSourcedBlocks bounds the files given blocks of their own (the padding
// costs a byte a line); later ones are cited at the script.
const maxSourcedBlocks = 16
