package changeset

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/yamlx"

	"github.com/verdict-bot/verdict/checks/format/shell/trace"
	"github.com/verdict-bot/verdict/checks/inferencex/benchjob"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The dry runs a change set makes are bounded: the first configs in key
// order, and per config the first job of each search-space element and
// launcher, each trace within its own step and time bounds.
const (
	maxTracedConfigs = 32
	maxTracedJobs    = 6
	traceSteps       = 5000
	traceTimeout     = 3 * time.Second
	// dryRunBudget bounds all the dry runs of one change set: past it the
	// remaining configs keep their statically read settings only.
	dryRunBudget = 20 * time.Second
)

// traced adds to each affected config the settings its server launches
// have in a dry run of its benchmark job (benchjob): the flags and
// environment with every value resolved as bash resolves it, in the role
// each server serves. They come after the statically read settings, so a
// value the static reading could not resolve
// (SPEC_NUM_TOKENS="${SPEC_NUM_TOKENS:-2}", an array built in a helper
// function) is decided by what the job would pass. A multi-node job is
// kept only when its dry run reaches a server: one that hands a recipe to
// a cluster tool has nothing the static reading lacks.
func (b *builder) traced() {
	files := readerFiles{reader: b.reader, ref: b.head, root: b.layout.Root}
	var labels map[string][]string
	if data, err := files.ReadFile(b.ctx, b.runnerLabels()); err == nil {
		labels, _ = benchjob.Runners(data)
	}
	type target struct {
		e      *repo.ConfigEntry
		script string // the script the config names, for a runner without a launcher
	}
	var targets []target
	for _, e := range b.cs.Affected {
		if e.MultiNode {
			if settings := exportedSettings(e); len(settings) > 0 {
				b.cs.Effective[e.Key] = append(b.cs.Effective[e.Key], &repo.EffectiveFile{Path: e.File, Kind: "config", Settings: settings})
			}
		}
		switch {
		case len(targets) < maxTracedConfigs:
			targets = append(targets, target{e, b.scriptPath(e)})
		case !e.MultiNode:
			b.cs.DryRunGaps = append(b.cs.DryRunGaps, DryRunGap{Config: e.Key, Why: fmt.Sprintf("not run dry: the change set affects more than %d configs", maxTracedConfigs)})
		}
	}
	// One runner per commit: each reads its benchmark workflows once.
	head := benchjob.NewRunner(files)
	base := benchjob.NewRunner(readerFiles{reader: b.reader, ref: b.base, root: b.layout.Root})
	// Configs are run side by side: a dry run waits on reads of files the
	// static reading did not need (the base's launcher and scripts).
	deadline := time.Now().Add(dryRunBudget)
	settings := make([][]repo.Setting, len(targets))
	runs := make([]DryRun, len(targets))
	gaps := make([][]DryRunGap, len(targets))
	repo.Parallel(dryRunsAtOnce, len(targets), func(i int) {
		if time.Now().After(deadline) {
			gaps[i] = []DryRunGap{{Config: targets[i].e.Key, Why: fmt.Sprintf("not run dry: the change set's %v of dry runs were spent", dryRunBudget)}}
			return
		}
		settings[i], runs[i], gaps[i] = b.dryRunConfig(head, base, targets[i].e, targets[i].script, labels)
	})
	for i, t := range targets {
		b.cs.DryRunGaps = append(b.cs.DryRunGaps, gaps[i]...)
		if len(settings[i]) > 0 {
			// A multi-node job's servers' environment is the dry run's
			// only when every job of it ran to its end: one stopped at a
			// bound may not have reached a role's server.
			b.cs.Effective[t.e.Key] = append(b.cs.Effective[t.e.Key], &repo.EffectiveFile{Path: "(dry run of " + t.e.Key + ")", Kind: "trace", Settings: settings[i],
				Servers: t.e.MultiNode && len(gaps[i]) == 0})
		}
		if len(runs[i].Head) > 0 {
			if b.cs.DryRuns == nil {
				b.cs.DryRuns = map[string]DryRun{}
			}
			b.cs.DryRuns[t.e.Key] = runs[i]
		}
	}
}

// dryRunsAtOnce bounds the configs run dry side by side.
const dryRunsAtOnce = 4

// dryRunConfig runs a config's jobs dry at H (and, where the config was
// there, at the base) and returns its servers' settings and its commands.
func (b *builder) dryRunConfig(head, base *benchjob.Runner, e *repo.ConfigEntry, script string, labels map[string][]string) ([]repo.Setting, DryRun, []DryRunGap) {
	files := head.Files()
	var settings []repo.Setting
	var dr DryRun
	var gaps []DryRunGap
	bounded := func(tr *trace.Trace, j benchjob.Job, where string) {
		if tr.Bounded {
			gaps = append(gaps, DryRunGap{Config: e.Key, Point: j.Point, Why: "the dry run" + where + " stopped: " + tr.Stopped})
		}
	}
	picked, isLast := pickJobs(benchjob.Jobs(e, labels))
	for i, j := range picked {
		ctx, cancel := context.WithTimeout(b.ctx, traceTimeout)
		opt := trace.Options{MaxSteps: traceSteps, Timeout: traceTimeout}
		var tr *trace.Trace
		if exists, _ := files.Stat(ctx, j.Launcher); exists {
			tr = head.Run(ctx, j, opt)
		} else if script != "" {
			// No launcher for the runner (a repository that starts its
			// scripts otherwise): the script the config names, with the
			// job's environment.
			tr = head.RunScript(ctx, j, strings.TrimPrefix(script, b.layout.Root), opt)
		}
		if tr != nil && e.MultiNode && !launched(tr) {
			// A multi-node job whose servers the dry run does not reach
			// (a launcher that hands a recipe to a cluster tool) keeps
			// its statically read settings, with no gap to report.
			tr = nil
		}
		if tr != nil {
			bounded(tr, j, "")
			if !tr.Bounded && !launched(tr) {
				why := gaveUp(tr)
				gaps = append(gaps, DryRunGap{Config: e.Key, Point: j.Point, NoServer: true, EnvGap: envGap.MatchString(why),
					Why: "the dry run ended before starting a server" + why})
			}
			dr.Head = append(dr.Head, b.commands(tr, b.head)...)
			if baseEntry, ok := b.cs.MasterBase[e.Key]; ok && b.base != "" {
				if btr := b.runAtBase(ctx, base, baseEntry, j, labels); btr != nil {
					bounded(btr, j, " at the base")
					dr.Base, dr.Based = append(dr.Base, b.commands(btr, "")...), true
				}
			}
			ss := serverSettings(tr, b.layout.Root)
			if launched(tr) && !drafts(ss) {
				dr.NoDraft = append(dr.NoDraft, DryPoint{Scenario: j.Scenario, Point: j.Point})
			}
			// The settings are the elements' first points': a last point's
			// values (another draft length for its concurrency) would
			// override them for every point.
			if !isLast[i] {
				settings = append(settings, ss...)
			}
		}
		cancel()
	}
	return settings, dr, gaps
}

// pickJobs chooses the jobs run dry: for each launcher and search-space
// element its first point, then (room permitting) its last, since a script
// may serve its highest concurrencies differently; at most maxTracedJobs.
// last marks the jobs that are an element's last point.
func pickJobs(jobs []benchjob.Job) (picked []benchjob.Job, last []bool) {
	type group struct{ first, last int }
	var order []string
	groups := map[string]*group{}
	for i, j := range jobs {
		element, _, _ := strings.Cut(j.Point, " conc=")
		k := j.Launcher + "\x00" + element
		if g, ok := groups[k]; ok {
			g.last = i
			continue
		}
		groups[k] = &group{i, i}
		order = append(order, k)
	}
	for _, k := range order {
		picked, last = append(picked, jobs[groups[k].first]), append(last, false)
	}
	for _, k := range order {
		if g := groups[k]; g.last != g.first {
			picked, last = append(picked, jobs[g.last]), append(last, true)
		}
	}
	if len(picked) > maxTracedJobs {
		picked, last = picked[:maxTracedJobs], last[:maxTracedJobs]
	}
	return picked, last
}

// envGap is how a script says a variable it needs is not set.
var envGap = regexp.MustCompile(`(?i)unbound variable|required environment variable|must be set|is not set|are not set`)

// gaveUp is what a script said last on standard error, quoted (the reason
// it gave up), or "".
func gaveUp(tr *trace.Trace) string {
	lines := strings.Split(tr.Stderr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		// set -x echoes (+ cmd) and the continuation lines of a
		// multi-line command are not the script's own words.
		// Nor is the workflow's own complaint, after the launcher returned,
		// that the job left no result.
		l := lines[i]
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(l, "+") && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") &&
			!strings.HasPrefix(t, "Run failed: ") {
			return " (" + checks.Quote(t, 120) + ")"
		}
	}
	return ""
}

// launched reports whether a trace starts an inference server.
func launched(tr *trace.Trace) bool {
	for _, s := range tr.Steps {
		if s.Kind == trace.Exec && benchjob.Serves(s.Argv) {
			return true
		}
	}
	return false
}

// drafts reports whether server settings turn speculative decoding on.
func drafts(ss []repo.Setting) bool {
	for _, s := range ss {
		n := strings.ToLower(strings.TrimLeft(s.Name, "-"))
		if strings.Contains(n, "speculative") || strings.Contains(n, "draft") || strings.Contains(n, "spec_decode") || strings.Contains(n, "spec-decode") {
			return true
		}
	}
	return false
}

// commands are a trace's commands, where they are written, with the
// source lines they are written on at ref ("": not read).
func (b *builder) commands(tr *trace.Trace, ref string) []DryCommand {
	var out []DryCommand
	lines := map[string][]string{}
	files := readerFiles{reader: b.reader, ref: ref, root: b.layout.Root}
	for _, s := range tr.Steps {
		if s.Kind != trace.Exec || len(s.Argv) == 0 {
			continue
		}
		c := DryCommand{Text: strings.Join(s.Argv, " "), File: b.layout.Root + s.File, Line: s.Line}
		ls, read := lines[c.File]
		if !read && s.File != "" && ref != "" {
			// The reader keeps what it read: the trace read these. A
			// command string's pseudo-file ((bash -c)) is not asked for:
			// its directory's listing says it is not there.
			if data, err := files.ReadFile(b.ctx, s.File); err == nil {
				ls = strings.Split(string(data), "\n")
			}
			lines[c.File] = ls
		}
		if first := c.Line - 1; first >= 0 && first < len(ls) {
			last := min(first+strings.Count(c.Text, "\n")+1, len(ls))
			c.Source = strings.Join(ls[first:last], "\n")
		}
		out = append(out, c)
	}
	return out
}

// runAtBase runs the job of the base's entry of the config, its launcher
// read at the base: the same point, else the first point of the same
// search-space element (a PR that edits a multi-node element's
// concurrency list changes every one of its points).
func (b *builder) runAtBase(ctx context.Context, run *benchjob.Runner, e *repo.ConfigEntry, headJob benchjob.Job, labels map[string][]string) *trace.Trace {
	files := run.Files()
	element := func(p string) string { el, _, _ := strings.Cut(p, " conc="); return el }
	var same *benchjob.Job
	for _, j := range benchjob.Jobs(e, labels) {
		if j.Launcher != headJob.Launcher {
			continue
		}
		if j.Point == headJob.Point {
			same = &j
			break
		}
		if same == nil && element(j.Point) == element(headJob.Point) {
			same = &j
		}
	}
	if same == nil {
		return nil
	}
	if exists, _ := files.Stat(ctx, same.Launcher); !exists {
		return nil
	}
	return run.Run(ctx, *same, trace.Options{MaxSteps: traceSteps, Timeout: traceTimeout})
}

// runnerLabels is the file of runner labels, relative to the layout's
// root.
func (b *builder) runnerLabels() string {
	return strings.TrimPrefix(path.Join(b.layout.ConfigsDir, "runners.yaml"), b.layout.Root)
}

// prefetchTraced starts the reads the dry runs begin with, beside the
// effective files', so that they add no round trip of their own.
func (b *builder) prefetchTraced() {
	files := readerFiles{reader: b.reader, ref: b.head, root: b.layout.Root}
	go files.ReadFile(b.ctx, b.runnerLabels())
}

// exportedSettings are the additional-settings of a multi-node config's
// search space, which the multi-node workflow exports into the job's
// environment before it starts the launcher (the launchers hand them to
// the recipe: SYNTHETIC_ACCEPTANCE=true with SYNTHETIC_ACCEPTANCE_LENGTH
// pins the acceptance). CONFIG_FILE names a recipe, read as one. They are
// environment settings of every role.
func exportedSettings(e *repo.ConfigEntry) []repo.Setting {
	var out []repo.Setting
	seen := map[string]bool{}
	for _, sc := range e.Scenarios {
		for _, sp := range sc.Search {
			f := sp.Fields.Map()
			for _, side := range []string{"prefill", "decode", "worker"} {
				m, ok := f[side].(map[string]any)
				if !ok {
					continue
				}
				list, _ := m["additional-settings"].([]any)
				for _, it := range list {
					k, v, ok := strings.Cut(fmt.Sprint(it), "=")
					k = strings.TrimSpace(k)
					if !ok || k == "" || strings.HasPrefix(k, "CONFIG_FILE") || seen[k+"="+v] {
						continue
					}
					seen[k+"="+v] = true
					out = append(out, repo.Setting{Name: k, Value: strings.Trim(v, `"'`), File: e.File, Line: e.Line, Kind: "env"})
				}
			}
		}
	}
	return out
}

// serverSettings are the flags and exported environment of the server
// launches in a trace.
func serverSettings(tr *trace.Trace, root string) []repo.Setting {
	var out []repo.Setting
	written := map[string]string{}
	for _, s := range tr.Steps {
		if s.Kind == trace.Write {
			written[s.Path] = s.Content
		}
		if s.Kind != trace.Exec || !benchjob.Serves(s.Argv) {
			continue
		}
		file := root + s.File
		role := serverRole(s.Argv)
		for i := 1; i < len(s.Argv); i++ {
			a := s.Argv[i]
			if !strings.HasPrefix(a, "--") || a == "--" {
				continue
			}
			name, val, ok := strings.Cut(a, "=")
			if !ok {
				val = "true"
				if i+1 < len(s.Argv) && !strings.HasPrefix(s.Argv[i+1], "--") {
					val = s.Argv[i+1]
					i++
				}
			}
			out = append(out, repo.Setting{Name: name, Value: val, File: file, Line: s.Line, Kind: "flag", Role: role})
			// A configuration file the script wrote and passes to the
			// server (trtllm-serve --config, --extra_llm_api_options):
			// its keys are the server's settings too.
			if content, ok := writtenFile(written, val); ok {
				out = append(out, fileSettings(content, file, s.Line, role)...)
			}
		}
		for k, v := range s.Env {
			out = append(out, repo.Setting{Name: k, Value: v, File: file, Line: s.Line, Kind: "env", Role: role})
		}
	}
	return out
}

// serverRole is the role a disaggregated server launch serves (its
// --disaggregation-mode, prefill or decode), or "" for a server that does
// every role.
func serverRole(argv []string) string {
	for i, a := range argv {
		v, ok := strings.CutPrefix(a, "--disaggregation-mode=")
		if !ok && a == "--disaggregation-mode" && i+1 < len(argv) {
			v, ok = argv[i+1], true
		}
		if ok && (v == "prefill" || v == "decode") {
			return v
		}
	}
	return ""
}

// writtenFile finds the content a trace wrote to the file a flag names
// (relative to wherever the server runs, so matched by its path's end).
func writtenFile(written map[string]string, name string) (string, bool) {
	if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".json") {
		return "", false
	}
	if c, ok := written[name]; ok {
		return c, true
	}
	for p, c := range written {
		if strings.HasSuffix(p, "/"+strings.TrimPrefix(name, "./")) {
			return c, true
		}
	}
	return "", false
}

// fileSettings are a YAML or JSON configuration's scalar keys, nested keys
// joined by dots (speculative_config.decoding_type).
func fileSettings(content, file string, line int, role string) []repo.Setting {
	if yamlx.CheckDepth(content) != nil {
		return nil
	}
	var m map[string]any
	if yaml.Unmarshal([]byte(content), &m) != nil {
		return nil
	}
	var out []repo.Setting
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		if mm, ok := v.(map[string]any); ok && depth < 8 {
			for _, k := range slices.Sorted(maps.Keys(mm)) {
				name := k
				if prefix != "" {
					name = prefix + "." + k
				}
				walk(name, mm[k], depth+1)
			}
			return
		}
		if prefix != "" && v != nil {
			out = append(out, repo.Setting{Name: prefix, Value: fmt.Sprint(v), File: file, Line: line, Kind: "arg", Role: role})
		}
	}
	walk("", m, 0)
	return out
}

// readerFiles is the repository at one commit as a trace reads it, the
// layout's root being the workspace's.
type readerFiles struct {
	reader *repo.Reader
	ref    string
	root   string
}

func (f readerFiles) ReadFile(ctx context.Context, name string) ([]byte, error) {
	// Whether it exists is asked of its directory's listing (one read
	// per directory, most already made), not of a read that fails.
	if exists, dir := f.Stat(ctx, name); !exists || dir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	b, err := f.reader.Read(ctx, f.ref, f.root+name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return b, nil
}

// Stat lists the parent directory (once per directory, cached by the
// reader) rather than reading the file.
func (f readerFiles) Stat(ctx context.Context, name string) (bool, bool) {
	full := f.root + name
	dir := path.Dir(full)
	if dir == "." {
		dir = ""
	}
	es, err := f.reader.List(ctx, f.ref, dir)
	if err != nil {
		return false, false
	}
	for _, e := range es {
		if e.Name == path.Base(full) {
			return true, e.Type == "dir"
		}
	}
	return false, false
}
