package repo

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/shell"
	"github.com/verdict-bot/verdict/checks/format/udiff"
)

// ChangeSetFact is the PR's change-set model, read with the master-config
// loader's layout and reader. It fails only when the PR's file list cannot
// be read; every other unreadable input is an InputProblem, so each check
// can say what it could not verify while the others carry on.
var ChangeSetFact = checks.NewFact("change set", []checks.Requirement{MastersFact},
	func(ctx context.Context, pr *checks.PR) (*ChangeSet, error) {
		ms, err := MastersFact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		return buildChangeSet(ctx, pr, ms)
	})

// ChangeSet is what the pull request changes in the benchmark repository
// (RULES.md, "The change-set model"), computed once per verification and
// shared by every check through ChangeSetFact. Checks never re-read or
// re-parse what it already holds.
type ChangeSet struct {
	// Layout is the layout the model was built with.
	Layout Layout
	Files  []checks.ChangedFile
	// Added and Removed hold the added and removed lines of each file's patch.
	// Removed lines are never runtime settings.
	AddedLines   map[string][]udiff.Line
	RemovedLines map[string][]udiff.Line

	// Master configs (all *-master.yaml, excluding deprecated/) at the PR
	// base, at H, and at the default branch.
	MasterBase    map[string]*ConfigEntry
	MasterHead    map[string]*ConfigEntry
	MasterDefault map[string]*ConfigEntry
	// AddedKeys, ChangedKeys, RemovedKeys are sorted master keys.
	AddedKeys   []string
	ChangedKeys []string
	RemovedKeys []string

	// ChangelogAdded are the changelog entries at H that the base does not
	// hold (ChangelogDelta), in file order.
	ChangelogAdded []ChangelogEntry
	// Selected are master keys at H matched by the added entries' globs.
	Selected []string
	// Affected are the configs (at H) the PR affects, sorted by key.
	Affected []*ConfigEntry
	// UnmappedFiles are changed benchmark/runner files that map to no
	// known config: they "affect unknown configs".
	UnmappedFiles []string
	// Effective holds, per affected config key, the files that define how it
	// runs (recipes, scripts, sourced helpers), parsed at H.
	Effective map[string][]*EffectiveFile
	// Extra are the changed benchmark/runner files (present at H) that are
	// not an effective file of any affected config, parsed at H, so scans of
	// runtime settings also see files that map to no known config.
	Extra []*EffectiveFile

	// NotText are changed files with no patch whose content is not text (a
	// NUL byte, as git decides): they have no lines to scan, so no row needs
	// their text and they are not input problems.
	NotText []string

	// Problems are inputs that could not be read or parsed, in path order
	// (a path's problems in the order they were found). A check that needs
	// one of them reports it instead of passing.
	Problems []InputProblem
}

// InputProblem is an input the change-set model could not use.
type InputProblem struct {
	Path string
	Err  string
	// Kind is empty for an input that could not be read or parsed, or
	// names a rule the input was read and found to break
	// (ProblemChangelogSchema, ProblemChangelogEdit). Checks treat both
	// alike: the rows that need the input cannot pass.
	Kind string
	// Ref is the commit the input was read at when it is not H (the base
	// or the default branch), so that whether it exists is asked there.
	Ref string
}

// Kinds of InputProblem that are findings on a file read in full.
const (
	// ProblemChangelogSchema: an added entry breaks the changelog schema,
	// or its config-keys select nothing.
	ProblemChangelogSchema = "changelog-schema"
	// ProblemChangelogEdit: base entries were removed or edited.
	ProblemChangelogEdit = "changelog-edit"
)

// ConfigEntry is one master-config entry with its classifications.
type ConfigEntry struct {
	Key         string
	File        string // master file path
	Line        int
	Image       string
	Model       string
	ModelPrefix string
	Runner      string
	Precision   string
	Framework   string
	MultiNode   bool
	Disagg      bool
	Scenarios   []Scenario
	// Raw is the decoded entry, for deep comparison and fields the typed
	// view does not name.
	Raw Fields

	SKU        string // normalized runner
	Agentic    bool
	SpecDecode bool
	OpenSource bool // open-source engine framework
}

// Scenario is one scenario block of an entry.
type Scenario struct {
	Type   string // fixed-seq-len or agentic-coding
	ISL    int
	OSL    int
	Fields Fields
	Search []SearchSpace
}

// SearchSpace is one search-space element.
type SearchSpace struct {
	Fields       Fields
	TP, EP, PP   int
	SpecDecoding string
	Conc         []int // expanded concurrency points
	SrtRecipe    string
	KVOffloading string
	// ConfigFiles are CONFIG_FILE= values of prefill/decode additional settings.
	ConfigFiles []string
}

// ChangelogEntry is one perf-changelog entry.
type ChangelogEntry struct {
	ConfigKeys       []string
	Description      []string
	PRLink           string
	ScenarioType     []string
	EvalsOnly        bool
	AllEvals         bool
	AppendOnly       bool
	EvalMinPrefillEP int
	Line             int
	// Matched are the master keys at H its config-keys select.
	Matched []string
	// Problems are the entry's schema violations.
	Problems []string
	// value is the canonical text of the entry's parsed YAML value.
	value string
}

// EffectiveFile is one file that defines how a config runs, parsed at H.
type EffectiveFile struct {
	Path    string
	Kind    string // "recipe", "script", "helper", "launcher"
	Changed bool   // changed by this PR
	// Settings are environment variables, engine args and flags the file
	// sets at runtime (comments excluded), with role and line.
	Settings []Setting
	// Commands are the simple commands of a script, continuations joined.
	Commands []Command
	// Script is the parsed script (nil for recipes and unreadable files),
	// for questions the flat views do not answer: what a variable holds at
	// a command, the directory it runs in, the files it sources.
	Script *shell.Script
	// Lines is the file's text split into lines (capped), for scans that
	// report a file and line.
	Lines []string
	// Err is set when the file could not be read or parsed.
	Err string
}

// Setting is one runtime setting found in an effective file.
type Setting struct {
	Name  string
	Value string
	File  string
	Line  int
	Role  string // agg, prefill, decode, benchmark, frontend or "" for scripts
	Kind  string // env, arg, flag
	// Variant is the recipe variant block the setting belongs to
	// ("override_<name>", "zip_override_<name>[i]"); "" for the base
	// recipe and for scripts.
	Variant string
	// Null is set for a YAML null value, which in a variant block deletes
	// the key the base sets.
	Null bool
	// Run is RunEvalOnly for a script setting that only the eval-only run
	// makes (the EVAL_ONLY=true branch), RunThroughput for one only the
	// throughput run makes, "" for both.
	Run string
}

// Command is one shell command.
type Command struct {
	Line    int
	Words   []string
	Raw     string
	Heredoc string
}

func (cs *ChangeSet) problem(p, msg string) {
	cs.Problems = append(cs.Problems, InputProblem{Path: p, Err: msg})
}

// finding records a rule that a file read in full breaks.
func (cs *ChangeSet) finding(p, kind, msg string) {
	cs.Problems = append(cs.Problems, InputProblem{Path: p, Err: msg, Kind: kind})
}

// ProblemsFor returns the problems whose path is one of paths or lies under
// one of them (a directory).
func (cs *ChangeSet) ProblemsFor(paths ...string) []InputProblem {
	var out []InputProblem
	for _, p := range cs.Problems {
		for _, q := range paths {
			if p.Path == q || strings.HasPrefix(p.Path, strings.TrimSuffix(q, "/")+"/") {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// IsChanged reports whether the PR changes path.
func (cs *ChangeSet) IsChanged(p string) bool {
	for _, f := range cs.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// Touched returns added ∪ changed master keys, sorted.
func (cs *ChangeSet) Touched() []string {
	out := append(append([]string(nil), cs.AddedKeys...), cs.ChangedKeys...)
	sort.Strings(out)
	return out
}

// MasterProblems are the problems of the master configs.
func (cs *ChangeSet) MasterProblems() []InputProblem {
	return cs.ProblemsFor(cs.Layout.ConfigsDir)
}

// MasterAndChangelogProblems are the problems of the inputs that select
// configs: the master configs and the perf changelog.
func (cs *ChangeSet) MasterAndChangelogProblems() []InputProblem {
	return cs.ProblemsFor(cs.Layout.ConfigsDir, cs.Layout.Changelog)
}

// IsRuntimePath reports whether p lies under the benchmark, runner or
// configs directory (and, with workflows, .github/workflows).
func (cs *ChangeSet) IsRuntimePath(p string, workflows bool) bool {
	l := cs.Layout
	dirs := []string{l.BenchmarksDir, l.RunnersDir, l.ConfigsDir}
	if workflows {
		dirs = append(dirs, ".github/workflows")
	}
	for _, d := range dirs {
		if d != "" && strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// AddedLine is one added line of a changed file.
type AddedLine struct {
	Path string
	Line int
	Text string
}

// RuntimeAdded returns the added lines of changed runtime files (see
// IsRuntimePath; documentation excluded), comments dropped, in path order.
func (cs *ChangeSet) RuntimeAdded(workflows bool) []AddedLine {
	var out []AddedLine
	paths := make([]string, 0, len(cs.AddedLines))
	for p := range cs.AddedLines {
		if !IsDocFile(p) && cs.IsRuntimePath(p, workflows) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, d := range cs.AddedLines[p] {
			if IsComment(d.Text) {
				continue
			}
			out = append(out, AddedLine{Path: p, Line: d.Line, Text: d.Text})
		}
	}
	return out
}

// Unscanned returns the problems of changed runtime files whose added lines
// are unknown, as GitHub omitted their patch, except those skip names as read
// whole. A check that scans added lines must not pass on such a file's
// silence.
func (cs *ChangeSet) Unscanned(workflows bool, skip map[string]bool) []InputProblem {
	var out []InputProblem
	for _, p := range cs.Problems {
		if _, ok := cs.AddedLines[p.Path]; ok || skip[p.Path] || IsDocFile(p.Path) || !cs.IsChanged(p.Path) {
			continue
		}
		if cs.IsRuntimePath(p.Path, workflows) {
			out = append(out, p)
		}
	}
	return out
}

// AllEffective returns the distinct effective files of the affected configs
// plus the extra changed runtime files, in path order.
func (cs *ChangeSet) AllEffective() []*EffectiveFile {
	seen := map[string]bool{}
	var out []*EffectiveFile
	add := func(f *EffectiveFile) {
		if f != nil && !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	for _, e := range cs.Affected {
		for _, f := range cs.Effective[e.Key] {
			add(f)
		}
	}
	for _, f := range cs.Extra {
		add(f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// AddedLineSet reports which line numbers of p this PR added.
func (cs *ChangeSet) AddedLineSet(p string) map[int]bool {
	m := map[int]bool{}
	for _, d := range cs.AddedLines[p] {
		m[d.Line] = true
	}
	return m
}

// IsComment reports whether a diff or file line is a shell/YAML comment.
func IsComment(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "#")
}

// Loc is "path:line", or the path alone for an unknown line.
func Loc(p string, line int) string {
	if line <= 0 {
		return p
	}
	return fmt.Sprintf("%s:%d", p, line)
}
