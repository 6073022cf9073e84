// Package changeset is the change-set model of a pull request on an
// InferenceX repository: what it changes (files, added lines, master keys,
// changelog entries), the configs it affects, and the files that define how
// each of them runs, parsed. It is built once per verification from the
// repository model (package repo) and shared by every check as a Fact.
package changeset

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/perfchangelog"
	"github.com/verdict-bot/verdict/checks/format/udiff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Fact is the PR's change-set model, read with the master-config
// loader's layout and reader. It fails only when the PR's file list cannot
// be read; every other unreadable input is a repo.InputProblem, so each check
// can say what it could not verify while the others carry on.
var Fact = checks.NewFact("change set", []checks.Requirement{repo.MastersFact},
	func(ctx context.Context, pr *checks.PR) (*Model, error) {
		ms, err := repo.MastersFact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		return buildChangeSet(ctx, pr, ms)
	})

// DryRun is what one config's jobs would run, at H and at the base.
type DryRun struct {
	Head, Base []DryCommand
	// Based says the base was run too (the config exists there).
	Based bool
	// NoDraft are the points (by scenario, as MODELS.md names it) whose
	// dry run at H starts a server with no speculative decoding.
	NoDraft []DryPoint
}

// DryRunGap is a config, or one point of it, with no complete dry run.
type DryRunGap struct {
	Config, Point string
	Why           string
	// NoServer says the dry run at H ran to its end without starting a
	// server: the script gave up first (a probe a dry run cannot answer),
	// so what it runs after that point was never seen.
	NoServer bool
	// EnvGap says it gave up for a variable the job's environment, as the
	// dry run builds it, lacks (the runner's would have it): the dry run's
	// gap, not the script's, so only the static reading decides.
	EnvGap bool
}

// DryPoint is one point of a config's dry runs.
type DryPoint struct {
	Scenario, Point string
}

// DryCommand is one command of a dry run and where it is written.
type DryCommand struct {
	Text string // the argv joined by spaces
	File string
	Line int
	// Source is the text of the lines the command is written on at H (as
	// many as its argv has), "" when the file could not be read: whether
	// the file spells out what the command does, or a caller passed it.
	Source string
}

// Model is what the pull request changes in the benchmark repository
// (RULES.md, "The change-set model"), computed once per verification and
// shared by every check through Fact. Checks never re-read or
// re-parse what it already holds.
type Model struct {
	// Layout is the layout the model was built with.
	Layout repo.Layout
	Files  []checks.ChangedFile
	// Added and Removed hold the added and removed lines of each file's patch.
	// Removed lines are never runtime settings.
	AddedLines   map[string][]udiff.Line
	RemovedLines map[string][]udiff.Line

	// Master configs (all *-master.yaml, excluding deprecated/) at the PR
	// base, at H, and at the default branch.
	MasterBase    map[string]*repo.ConfigEntry
	MasterHead    map[string]*repo.ConfigEntry
	MasterDefault map[string]*repo.ConfigEntry
	// AddedKeys, ChangedKeys, RemovedKeys are sorted master keys.
	AddedKeys   []string
	ChangedKeys []string
	RemovedKeys []string

	// ChangelogAdded are the changelog entries at H that the base does not
	// hold (perfchangelog.Delta), in file order.
	ChangelogAdded []perfchangelog.Entry
	// Selected are master keys at H matched by the added entries' globs.
	Selected []string
	// Affected are the configs (at H) the PR affects, sorted by key.
	Affected []*repo.ConfigEntry
	// UnmappedFiles are changed benchmark/runner files that map to no
	// known config: they "affect unknown configs".
	UnmappedFiles []string
	// Effective holds, per affected config key, the files that define how it
	// runs (recipes, scripts, sourced helpers), parsed at H.
	Effective map[string][]*repo.EffectiveFile
	// DryRuns hold, per affected config run dry, the commands its
	// benchmark job's dry runs would run at H and at the PR's base (the
	// same jobs, where the config exists there): what only H runs is
	// what the PR introduces, however the script spells it.
	DryRuns map[string]DryRun
	// DryRunGaps are the affected configs (or points of them) whose dry
	// run was not made or stopped at one of its bounds: for them the rows
	// have the static reading only, and say so.
	DryRunGaps []DryRunGap
	// Extra are the changed benchmark/runner files (present at H) that are
	// not an effective file of any affected config, parsed at H, so scans of
	// runtime settings also see files that map to no known config.
	Extra []*repo.EffectiveFile

	// NotText are changed files with no patch whose content is not text (a
	// NUL byte, as git decides): they have no lines to scan, so no row needs
	// their text and they are not input problems.
	NotText []string

	// Problems are inputs that could not be read or parsed, in path order
	// (a path's problems in the order they were found). A check that needs
	// one of them reports it instead of passing.
	Problems []repo.InputProblem

	// files is the build's parse cache, which SharedUsersFact reuses.
	files *fileCache
	// runLines holds, per changed workflow read at H, the line ranges of
	// its run: scripts (see workflowruns.go).
	runLines map[string][][2]int
}

// Kinds of repo.InputProblem that are findings on a file read in full.
const (
	// ProblemChangelogSchema: an added entry breaks the changelog schema,
	// or its config-keys select nothing.
	ProblemChangelogSchema = "changelog-schema"
	// ProblemChangelogEdit: base entries were removed or edited.
	ProblemChangelogEdit = "changelog-edit"
	// ProblemChangelogNoMatch: an added entry's config key selects no
	// master config (the sweep tool refuses it). What the entry selects
	// is known, nothing, so a row about to say nothing is affected still
	// can.
	ProblemChangelogNoMatch = "changelog-no-match"
)

func (cs *Model) problem(p, msg string) {
	cs.Problems = append(cs.Problems, repo.InputProblem{Path: p, Err: msg})
}

// finding records a rule that a file read in full breaks.
func (cs *Model) finding(p, kind, msg string) {
	cs.Problems = append(cs.Problems, repo.InputProblem{Path: p, Err: msg, Kind: kind})
}

// ProblemsFor returns the problems whose path is one of paths or lies under
// one of them (a directory).
func (cs *Model) ProblemsFor(paths ...string) []repo.InputProblem {
	var out []repo.InputProblem
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
func (cs *Model) IsChanged(p string) bool {
	for _, f := range cs.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// Touched returns added ∪ changed master keys, sorted.
func (cs *Model) Touched() []string {
	out := append(append([]string(nil), cs.AddedKeys...), cs.ChangedKeys...)
	sort.Strings(out)
	return out
}

// MasterProblems are the problems of the master configs.
func (cs *Model) MasterProblems() []repo.InputProblem {
	return cs.ProblemsFor(cs.configDirs()...)
}

// MasterAndChangelogProblems are the problems of the inputs that select
// configs: the master configs and the perf changelog.
func (cs *Model) MasterAndChangelogProblems() []repo.InputProblem {
	return cs.ProblemsFor(append(cs.configDirs(), cs.Layout.Changelog)...)
}

// configDirs is where master configs are read from: the configs directory
// and, for a commit from before they moved, where they were.
func (cs *Model) configDirs() []string {
	if d := cs.Layout.EarlierConfigsDir; d != "" {
		return []string{cs.Layout.ConfigsDir, d}
	}
	return []string{cs.Layout.ConfigsDir}
}

// IsRuntimePath reports whether p lies under the benchmark, runner or
// configs directory (and, with workflows, .github/workflows).
func (cs *Model) IsRuntimePath(p string, workflows bool) bool {
	l := cs.Layout
	if l.UnderConfigs(p) {
		return true
	}
	dirs := []string{l.BenchmarksDir, l.RunnersDir}
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
// IsRuntimePath; documentation and the runner labels excluded), comments
// dropped, in path order; of a workflow, those of its run: scripts.
func (cs *Model) RuntimeAdded(workflows bool) []AddedLine {
	var out []AddedLine
	paths := make([]string, 0, len(cs.AddedLines))
	// The runner labels name the machines a config may run on, not how
	// its job runs.
	labels := path.Join(cs.Layout.ConfigsDir, "runners.yaml")
	for p := range cs.AddedLines {
		if !repo.IsDocFile(p) && cs.IsRuntimePath(p, workflows) && p != labels {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, d := range cs.AddedLines[p] {
			if repo.IsComment(d.Text) || (isWorkflow(p) && !cs.inRunScript(p, d.Line)) {
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
func (cs *Model) Unscanned(workflows bool, skip map[string]bool) []repo.InputProblem {
	var out []repo.InputProblem
	for _, p := range cs.Problems {
		if _, ok := cs.AddedLines[p.Path]; ok || skip[p.Path] || repo.IsDocFile(p.Path) || !cs.IsChanged(p.Path) {
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
func (cs *Model) AllEffective() []*repo.EffectiveFile {
	seen := map[string]bool{}
	var out []*repo.EffectiveFile
	add := func(f *repo.EffectiveFile) {
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
func (cs *Model) AddedLineSet(p string) map[int]bool {
	m := map[int]bool{}
	for _, d := range cs.AddedLines[p] {
		m[d.Line] = true
	}
	return m
}
