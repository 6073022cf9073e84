// Package benchjob says what the InferenceX sweep would run for a master
// config: one Job per search-space point (and runner launcher), with the
// environment the benchmark workflow gives the launcher, and its dry run
// (checks/format/shell/trace) from the launcher down to the server and
// the client.
//
// The environment follows the repository's benchmark workflows: the
// single-node template exports the point's TP, EP_SIZE, CONC, ... and the
// multi-node one the prefill and decode sizes plus every
// additional-settings entry; both run runners/launch_<machine>.sh, the
// machine being one of those the runner label names in
// configs/runners.yaml. Values the sweep generator computes and the
// config does not state (duration, CPU DRAM budget) take the generator's
// defaults, named in Defaults.
package benchjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/shell/trace"
	"github.com/verdict-bot/verdict/checks/format/yamlx"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Root is where the dry run puts the repository: the workflow's
// workspace, mounted at the same path in the containers the launchers
// start, so host and container paths agree.
const Root = "/workspace"

// Defaults are the values the sweep generator computes for a job when the
// config does not state them.
var Defaults = map[string]string{
	"DURATION":          "3600",
	"TOTAL_CPU_DRAM_GB": "0",
	"RUN_EVAL":          "false",
	"EVAL_ONLY":         "false",
	"RESULT_DIR":        "/workspace/results",
	"GITHUB_WORKSPACE":  Root,
	"HOME":              "/home/runner",
	"USER":              "runner",
	"PATH":              "/usr/local/bin:/usr/bin:/bin",
}

// maxAgenticDRAMMiB is the sweep generator's cap on an agentic job's CPU
// DRAM, 3 TB decimal in MiB, before its utilization is applied.
const maxAgenticDRAMMiB = 2_861_022

// Job is one benchmark job of a config.
type Job struct {
	Config string `json:"config"`
	// Scenario is the point's scenario as MODELS.md names it
	// ("Agentic coding", "Single-turn 8k1k").
	Scenario string `json:"scenario"`
	// Point says which search-space point, in the config's own words.
	Point string `json:"point"`
	// Launcher is the runner script the workflow starts; RunnerName the
	// machine it runs on.
	Launcher   string            `json:"launcher"`
	RunnerName string            `json:"runner_name"`
	Env        map[string]string `json:"env"`
}

// Runners reads configs/runners.yaml: runner label → machine names.
func Runners(data []byte) (map[string][]string, error) {
	if err := yamlx.CheckDepth(string(data)); err != nil {
		return nil, err
	}
	var doc struct {
		Labels map[string][]string `yaml:"labels"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading the runner labels: %w", err)
	}
	return doc.Labels, nil
}

// machines are the distinct launchers of a runner label: one machine of
// each launcher prefix (the workflow runs runners/launch_${name%%_*}.sh).
func machines(label string, labels map[string][]string) []string {
	names := labels[label]
	if len(names) == 0 {
		if _, after, ok := strings.Cut(label, ":"); ok {
			names = labels[after]
			if len(names) == 0 {
				names = []string{after + "_00"}
			}
		} else {
			names = []string{label + "_00"}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		prefix, _, _ := strings.Cut(n, "_")
		if !seen[prefix] {
			seen[prefix] = true
			out = append(out, n)
		}
	}
	return out
}

// resultFilename is the name the benchmark workflow gives a job's result
// (its launch step computes it from the job's values; a repository whose
// workflow does not is given the same): the scripts require it set.
func resultFilename(env map[string]string) string {
	v := func(k, def string) string {
		if x := env[k]; x != "" {
			return x
		}
		return def
	}
	return fmt.Sprintf("%s_%s_%s_tp%s-pp%s-dcp%s-pcp%s-ep%s-dpa%s_disagg-%s_spec-%s_conc%s_%s",
		v("EXP_NAME", "exp"), v("PRECISION", ""), v("FRAMEWORK", ""), v("TP", "1"), v("PP_SIZE", "1"), v("DCP_SIZE", "1"),
		v("PCP_SIZE", "1"), v("EP_SIZE", "1"), v("DP_ATTENTION", "false"), v("DISAGG", "false"), v("SPEC_DECODING", "none"),
		v("CONC", ""), v("RUNNER_NAME", ""))
}

// Jobs lists the jobs of a config: one per scenario, search-space element
// and (single-node) concurrency, for each launcher of its runner label.
func Jobs(e *repo.ConfigEntry, labels map[string][]string) []Job {
	var out []Job
	for _, sc := range e.Scenarios {
		for i, sp := range sc.Search {
			for _, base := range pointEnvs(e, sc, sp) {
				for _, m := range machines(e.Runner, labels) {
					prefix, _, _ := strings.Cut(m, "_")
					env := maps.Clone(base.env)
					env["RUNNER_NAME"], env["RUNNER_TYPE"] = m, e.Runner
					if _, set := env["RESULT_FILENAME"]; !set {
						env["RESULT_FILENAME"] = resultFilename(env)
					}
					out = append(out, Job{Config: e.Key, Scenario: repo.ScenarioName(sc), Point: fmt.Sprintf("%s #%d %s", sc.Type, i, base.desc),
						Launcher: "runners/launch_" + prefix + ".sh", RunnerName: m, Env: env})
				}
			}
		}
	}
	return out
}

type pointEnv struct {
	desc string
	env  map[string]string
}

// pointEnvs are the environments of one search-space element: one per
// concurrency on a single node, one for the whole list on several.
func pointEnvs(e *repo.ConfigEntry, sc repo.Scenario, sp repo.SearchSpace) []pointEnv {
	env := maps.Clone(Defaults)
	set := func(k string, v any) {
		if v != nil && fmt.Sprint(v) != "" {
			env[k] = fmt.Sprint(v)
		}
	}
	set("MODEL", e.Model)
	set("MODEL_PREFIX", e.ModelPrefix)
	set("IMAGE", e.Image)
	set("FRAMEWORK", e.Framework)
	set("PRECISION", e.Precision)
	set("DISAGG", strconv.FormatBool(e.Disagg))
	set("SCENARIO_TYPE", sc.Type)
	env["SCENARIO_SUBDIR"], env["IS_AGENTIC"] = "fixed_seq_len/", "0"
	if sc.Type == "agentic-coding" {
		env["SCENARIO_SUBDIR"], env["IS_AGENTIC"] = "agentic/", "1"
	}
	switch {
	case sc.ISL > 0:
		set("ISL", sc.ISL)
		set("OSL", sc.OSL)
		set("MAX_MODEL_LEN", sc.ISL+sc.OSL+256)
	case sc.Type == "agentic-coding":
		// The sweep hands agentic jobs, which replay traces, no
		// sequence lengths: "0" for both.
		set("ISL", 0)
		set("OSL", 0)
	}
	// The generator gives agentic jobs a CPU DRAM budget: the scenario's
	// dram-utilization of its 3 TB (decimal) cap.
	if u, ok := sc.Fields.Map()["dram-utilization"]; ok {
		if x, err := strconv.ParseFloat(fmt.Sprint(u), 64); err == nil && x > 0 {
			set("TOTAL_CPU_DRAM_GB", int(maxAgenticDRAMMiB*x*(1<<20)/1e9))
		}
	}
	f := sp.Fields.Map()
	get := func(k string) any { return f[k] }
	set("SPEC_DECODING", or(get("spec-decoding"), "none"))
	set("KV_OFFLOADING", or(get("kv-offloading"), "none"))
	set("DP_ATTENTION", or(get("dp-attn"), false))
	set("TP", get("tp"))
	set("EP_SIZE", or(get("ep"), 1))
	set("PP_SIZE", or(get("pp"), 1))
	set("DCP_SIZE", or(get("dcp-size"), 1))
	set("PCP_SIZE", or(get("pcp-size"), 1))
	// The offload backend and the router are objects: the workflow passes
	// the backend's name and each as JSON metadata.
	if kb, ok := get("kv-offload-backend").(map[string]any); ok {
		set("KV_OFFLOAD_BACKEND", kb["name"])
		set("KV_OFFLOAD_BACKEND_METADATA", jsonOf(kb))
	}
	if rt, ok := or(get("router"), f["router"]).(map[string]any); ok {
		set("ROUTER_METADATA", jsonOf(rt))
	}
	if r := sp.SrtRecipe; r != "" {
		set("SRT_RECIPE", r)
	}
	for _, side := range []string{"prefill", "decode"} {
		m, ok := f[side].(map[string]any)
		if !ok {
			continue
		}
		up := strings.ToUpper(side)
		set(up+"_NUM_WORKERS", m["num-worker"])
		set(up+"_TP", m["tp"])
		set(up+"_EP", m["ep"])
		set(up+"_DP_ATTN", or(m["dp-attn"], false))
		set(up+"_PP_SIZE", or(m["pp"], 1))
		set(up+"_DCP_SIZE", or(m["dcp-size"], 1))
		set(up+"_PCP_SIZE", or(m["pcp-size"], 1))
		// The multi-node workflow exports each entry as it is written.
		if list, ok := m["additional-settings"].([]any); ok {
			for _, it := range list {
				if k, v, ok := strings.Cut(fmt.Sprint(it), "="); ok {
					env[k] = strings.Trim(v, `"'`)
				}
			}
		}
	}
	// The sweep generator names a job's experiment after the model prefix
	// (what launchers read, through ${EXP_NAME%%_*}) and the sequence
	// lengths or, for agentic jobs, the point.
	expName := func(conc int) string {
		if sc.Type == "agentic-coding" {
			name := fmt.Sprintf("%s_tp%s_conc%d_kv%s", e.ModelPrefix, env["TP"], conc, env["KV_OFFLOADING"])
			if s := env["SPEC_DECODING"]; s != "none" {
				name += "_spec-" + s
			}
			return name
		}
		return e.ModelPrefix + "_" + seqLen(sc.ISL, sc.OSL)
	}
	if e.MultiNode {
		env["IS_MULTINODE"] = "true"
		var concs []string
		for _, c := range sp.Conc {
			concs = append(concs, strconv.Itoa(c))
		}
		env["CONC_LIST"] = strings.Join(concs, " ")
		if len(sp.Conc) > 0 {
			env["CONC"] = concs[0]
			env["EXP_NAME"] = expName(sp.Conc[0])
		}
		return []pointEnv{{desc: describe(f) + " conc=" + env["CONC_LIST"], env: env}}
	}
	var out []pointEnv
	for _, c := range sp.Conc {
		ce := maps.Clone(env)
		ce["CONC"] = strconv.Itoa(c)
		ce["EXP_NAME"] = expName(c)
		out = append(out, pointEnv{desc: describe(f) + " conc=" + strconv.Itoa(c), env: ce})
	}
	return out
}

// seqLen is the generator's short name of a sequence-length pair.
func seqLen(isl, osl int) string {
	k := func(n int) string {
		if n%1024 == 0 {
			return strconv.Itoa(n/1024) + "k"
		}
		return strconv.Itoa(n)
	}
	if isl%1024 == 0 && osl%1024 == 0 {
		return k(isl) + k(osl)
	}
	return fmt.Sprintf("%d_%d", isl, osl)
}

// jsonOf is v as the workflow's toJson writes it.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func or(v, def any) any {
	if v == nil {
		return def
	}
	return v
}

// describe is a search-space element in one line, its keys sorted.
func describe(f map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(f)) {
		switch k {
		case "conc-list", "conc-start", "conc-end", "prefill", "decode":
			continue
		}
		parts = append(parts, k+"="+fmt.Sprint(f[k]))
	}
	return strings.Join(parts, " ")
}

// Runner dry-runs the jobs of one repository at one commit, reading each
// of its benchmark workflows once however many jobs it runs (a change
// set's configs run up to a dozen each). Safe for concurrent use.
type Runner struct {
	files trace.Files
	mu    sync.Mutex
	read  map[string]workflow
}

// workflow is what a dry run takes from a benchmark workflow.
type workflow struct {
	env  map[string]string
	step launchStep
}

// NewRunner returns a Runner over files.
func NewRunner(files trace.Files) *Runner {
	return &Runner{files: files, read: map[string]workflow{}}
}

// Files is the repository r runs jobs of.
func (r *Runner) Files() trace.Files { return r.files }

// Run dry-runs a job from its launcher down, the repository at Root. The
// job runs with its workflow's own environment (WorkflowEnv) and its launch
// step's under the job's, starting at that step's script when the
// launcher it calls is there.
func Run(ctx context.Context, files trace.Files, j Job, opt trace.Options) *trace.Trace {
	return NewRunner(files).Run(ctx, j, opt)
}

// Run is the package's Run with r's files.
func (r *Runner) Run(ctx context.Context, j Job, opt trace.Options) *trace.Trace {
	wf, step := r.setUp(ctx, j, &opt)
	if exists, _ := r.files.Stat(ctx, path.Clean(j.Launcher)); step.run != "" && exists {
		// The job starts where the workflow starts it: the step's own
		// script (which may set what the launcher reads, RESULT_FILENAME)
		// calls the launcher. GitHub runs it with bash -e.
		text := strings.Repeat("\n", step.line) + "set -e\n" + expandExprs(step.run, opt.Env)
		return trace.Run(ctx, stepFiles{Files: r.files, path: wf, text: text}, wf, opt)
	}
	return trace.Run(ctx, r.files, path.Clean(j.Launcher), opt)
}

// RunScript dry-runs a job's benchmark script itself, with the
// environment Run gives the launcher: for a runner with no launcher in
// the repository (one that starts its scripts otherwise).
func (r *Runner) RunScript(ctx context.Context, j Job, script string, opt trace.Options) *trace.Trace {
	r.setUp(ctx, j, &opt)
	return trace.Run(ctx, r.files, script, opt)
}

// workflow reads and parses the workflow at p once. A read that fails for
// another reason than its absence (the context, the network) is not kept.
func (r *Runner) workflow(ctx context.Context, p string) workflow {
	r.mu.Lock()
	w, ok := r.read[p]
	r.mu.Unlock()
	if ok {
		return w
	}
	data, err := r.files.ReadFile(ctx, p)
	if err == nil {
		w.env, w.step = readWorkflow(data)
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		r.mu.Lock()
		r.read[p] = w
		r.mu.Unlock()
	}
	return w
}

// setUp gives opt the job's root and environment: its workflow's, the
// launch step's (resolved), the job's own, and what opt already held; it
// returns the workflow's path and its launch step.
func (r *Runner) setUp(ctx context.Context, j Job, opt *trace.Options) (string, launchStep) {
	opt.Root = Root
	p := singleNodeWorkflow
	if j.Env["IS_MULTINODE"] == "true" {
		p = multiNodeWorkflow
	}
	wf := r.workflow(ctx, p)
	env := maps.Clone(wf.env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, j.Env)
	for k, v := range wf.step.resolvedEnv(j.Env) {
		if _, set := j.Env[k]; !set {
			env[k] = v
		}
	}
	// The files through which a step sets variables for the next ones.
	for k, v := range map[string]string{"GITHUB_ENV": "/tmp/github_env", "GITHUB_OUTPUT": "/tmp/github_output", "GITHUB_PATH": "/tmp/github_path"} {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	maps.Copy(env, opt.Env)
	opt.Env = env
	if opt.Provided == nil {
		opt.Provided = modelStorage
	}
	if opt.Lasting == nil {
		opt.Lasting = Lasting
	}
	return p, wf.step
}

// launchStep is the workflow step that starts the launcher: its script and
// the line before the script's first, and its env.
type launchStep struct {
	run  string
	line int
	env  map[string]string
}

// readWorkflow reads a workflow once: the literal part of its top-level
// env (see WorkflowEnv) and the step of its jobs whose run names
// runners/launch_… (the zero launchStep when there is none). A workflow
// that does not read gives nothing; a part of the wrong shape is skipped.
func readWorkflow(data []byte) (map[string]string, launchStep) {
	if yamlx.CheckDepth(string(data)) != nil {
		return nil, launchStep{}
	}
	var doc struct {
		Env  map[string]any `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Run yaml.Node      `yaml:"run"`
				Env map[string]any `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	var typeErr *yaml.TypeError
	if err := yaml.Unmarshal(data, &doc); err != nil && !errors.As(err, &typeErr) {
		return nil, launchStep{}
	}
	env := map[string]string{}
	for k, v := range doc.Env {
		if s, ok := scalar(v); ok && !strings.Contains(s, "${{") {
			env[k] = s
		}
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Jobs)) {
		for _, st := range doc.Jobs[name].Steps {
			if st.Run.Kind != yaml.ScalarNode || !strings.Contains(st.Run.Value, "runners/launch_") {
				continue
			}
			ls := launchStep{run: st.Run.Value, line: st.Run.Line, env: map[string]string{}}
			if st.Run.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
				ls.line-- // a plain or quoted script starts on its key's line
			}
			for k, v := range st.Env {
				if s, ok := scalar(v); ok {
					ls.env[k] = s
				}
			}
			return env, ls
		}
	}
	return env, launchStep{}
}

// scalar is a YAML value that is a string, number or boolean, as text.
func scalar(v any) (string, bool) {
	switch v.(type) {
	case string, int, float64, bool:
		return fmt.Sprint(v), true
	}
	return "", false
}

// resolvedEnv is the step's env with its expressions resolved against job
// as in its script (see expandExprs). An expression that cannot be gives
// nothing: left as written, its spaces and quotes would split the words
// of every command the value is pasted into (a result file name in a
// docker command line).
func (s launchStep) resolvedEnv(job map[string]string) map[string]string {
	out := make(map[string]string, len(s.env))
	for k, v := range s.env {
		out[k] = expandExprs(v, job)
	}
	return out
}

// exprValue is the value of a workflow expression the job's environment
// gives: env.NAME, runner.name, and inputs.some-input (the workflow maps
// each input to the variable SOME_INPUT).
func exprValue(e string, job map[string]string) (string, bool) {
	if name, ok := strings.CutPrefix(e, "env."); ok {
		v, ok := job[name]
		return v, ok
	}
	if e == "runner.name" {
		v, ok := job["RUNNER_NAME"]
		return v, ok
	}
	if name, ok := strings.CutPrefix(e, "inputs."); ok {
		v, ok := job[strings.ToUpper(strings.ReplaceAll(name, "-", "_"))]
		return v, ok
	}
	return "", false
}

// expandExprs replaces the expressions of a step's script as the workflow
// does before bash reads it; one the job's environment cannot give
// (secrets, github.*, a computed condition) becomes empty.
func expandExprs(script string, job map[string]string) string {
	return ghExpr.ReplaceAllStringFunc(script, func(m string) string {
		v, _ := exprValue(ghExpr.FindStringSubmatch(m)[1], job)
		return v
	})
}

// stepFiles is the repository with the launch step's script read in place
// of its workflow, so each of its commands is cited at its workflow line.
type stepFiles struct {
	trace.Files
	path, text string
}

func (f stepFiles) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if name == f.path {
		return []byte(f.text), nil
	}
	return f.Files.ReadFile(ctx, name)
}

// modelStorage names the variables through which a launcher points a job
// at the model weights its cluster provides (MODEL_PATH, MODEL_DIR): a job
// checks that the weights are there before it starts its servers. Caches
// and environments (HF_HOME, a virtualenv) are not taken as present: a
// script that installs what is missing must be seen installing it.
var modelStorage = regexp.MustCompile(`^MODEL(_[A-Z]+)*_(PATH|DIR)$`)

// The workflows that run a config's benchmark jobs, single-node and
// multi-node.
const (
	singleNodeWorkflow = ".github/workflows/benchmark-tmpl.yml"
	multiNodeWorkflow  = ".github/workflows/benchmark-multinode-tmpl.yml"
)

// WorkflowEnv is the literal part of a workflow's top-level env: the
// variables every job step sees whatever the inputs (RANDOM_RANGE_RATIO: 0.8,
// a cache path). Values computed by the workflow (${{ ... }}: inputs,
// secrets) are left out: the job's own environment, built like the sweep
// generator's inputs, supplies those it can know. An unreadable workflow
// gives nothing.
func WorkflowEnv(data []byte) map[string]string {
	env, _ := readWorkflow(data)
	return env
}

// ghExpr is one ${{ … }} expression of a workflow.
var ghExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
