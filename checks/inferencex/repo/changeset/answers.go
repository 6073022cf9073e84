package changeset

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The fail-closed answers of the rows that read the change set when an
// input is missing (RULES.md, "Fail-closed policy"): the row says what it
// could not read, never PASS.

// Of returns the change-set model, or the row's answer when it could not
// be built. A row calling it requires Fact.
func Of(ctx context.Context, pr *checks.PR) (*Model, *checks.Result) {
	cs, err := Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		msg := "change-set model could not be built"
		if err != nil {
			msg = err.Error()
		}
		r := checks.Unverified(checks.T(msg, "无法构建变更集模型："+checks.Code(msg)))
		return nil, &r
	}
	return cs, nil
}

// Readable is Of for rows that need the master configs: it also fails
// closed when they could not be read.
func Readable(ctx context.Context, pr *checks.PR) (*Model, *checks.Result) {
	cs, bad := Of(ctx, pr)
	if bad != nil {
		return nil, bad
	}
	if ps := cs.MasterProblems(); len(ps) > 0 {
		r := Unreadable(ps)
		return nil, &r
	}
	return cs, nil
}

// Unavailable is the answer of the rows about speculative decoding,
// recipes and append-only entries when the change set is missing.
func Unavailable(err error) checks.Result {
	msg := "unknown error"
	if err != nil {
		msg = err.Error()
	}
	return checks.Unverified(checks.T("change set unavailable: "+msg, "变更集不可用："+checks.Code(msg)))
}

// Unreadable is the answer for inputs the change-set model could not read:
// the first named with its reason, the others counted, all in evidence.
func Unreadable(ps []repo.InputProblem) checks.Result {
	r := checks.Unverified(ps[0].Text().AndMore(len(ps) - 1))
	for _, p := range ps {
		r.Evidence = append(r.Evidence, checks.Evidence{Label: p.Path, Value: p.Err})
	}
	return r
}

// SelectionUnread is the answer of a row about to say N/A: when a master
// config or the changelog could not be read, "nothing affected" is not
// known. A config key that selects nothing is known to.
func (cs *Model) SelectionUnread() (checks.Result, bool) {
	ps := slices.DeleteFunc(cs.MasterAndChangelogProblems(), func(p repo.InputProblem) bool { return p.Kind == ProblemChangelogNoMatch })
	if len(ps) == 0 {
		return checks.Result{}, false
	}
	return checks.Unverified(repo.InputProblem{Path: ps[0].Path, Err: checks.Quote(ps[0].Err, 160)}.Text()), true
}

// MastersUnread is the answer of a row that scans what the PR reaches
// through the master configs (the effective files of the configs it
// affects) when they could not be read: which configs a changed file or
// changelog entry reaches is then unknown, so no scan can show it clean.
func (cs *Model) MastersUnread() (checks.Result, bool) {
	ps := cs.MasterProblems()
	if len(ps) == 0 {
		return checks.Result{}, false
	}
	return Unreadable(ps), true
}

// UnreadEffective names the effective files that could not be read or
// parsed, the first with its reason and the others counted: a row that
// reads them must not pass on what it could not see.
func UnreadEffective(files []*repo.EffectiveFile) (checks.Text, []checks.Evidence, bool) {
	var bad []*repo.EffectiveFile
	seen := map[string]bool{}
	for _, f := range files {
		if f != nil && f.Err != "" && !seen[f.Path] {
			seen[f.Path] = true
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return checks.Text{}, nil, false
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i].Path < bad[j].Path })
	var ev []checks.Evidence
	for _, f := range bad {
		ev = append(ev, checks.Evidence{Label: f.Path, Value: f.Err})
	}
	why := checks.Quote(strings.TrimPrefix(strings.TrimPrefix(bad[0].Err, "parsing recipe "+bad[0].Path+": "), bad[0].Path+": "), 160)
	t := checks.Text{EN: fmt.Sprintf("%s could not be read (%s)", bad[0].Path, why), ZH: fmt.Sprintf("无法读取 %s（%s）", bad[0].Path, checks.Code(why))}
	return t.AndMore(len(bad) - 1), ev, true
}

// DryRunsIncomplete names the affected configs whose dry runs were not
// made or stopped at a bound (Model.DryRunGaps), the first with its reason
// and the others counted: a row that passes on what the jobs would run
// says that for these configs the static reading alone decided.
func (cs *Model) DryRunsIncomplete() (checks.Text, []checks.Evidence, bool) {
	if len(cs.DryRunGaps) == 0 {
		return checks.Text{}, nil, false
	}
	var ev []checks.Evidence
	configs := map[string]bool{}
	var gaps []DryRunGap
	for _, g := range cs.DryRunGaps {
		// A variable the dry run's environment lacks is its own gap, kept
		// in the trace, not a reason a row gives.
		if !g.EnvGap {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) == 0 {
		return checks.Text{}, nil, false
	}
	for _, g := range gaps {
		configs[g.Config] = true
		label := g.Config
		if g.Point != "" {
			label += " (" + g.Point + ")"
		}
		ev = append(ev, checks.Evidence{Label: label, Value: g.Why})
	}
	first := gaps[0]
	t := checks.T(
		fmt.Sprintf("dry runs incomplete for %d config(s) (%s: %s); for them the static reading decided", len(configs), first.Config, first.Why),
		fmt.Sprintf("%d 个配置的试运行不完整（%s：%s）；这些配置仅依据静态读取判断", len(configs), first.Config, checks.Code(first.Why)))
	return t, ev, true
}

// DryRunsCutShort names the affected configs whose dry run ended before
// starting a server (the script gave up at a probe a dry run cannot
// answer) while files the config runs hold lines this PR added that
// install or patch something (mayPatch): what the job runs after the point
// where the dry run stopped was never seen, and such a line may reach the
// engine through a helper the static reading does not know, so a row
// judging what the job runs cannot pass on it.
func (cs *Model) DryRunsCutShort() (checks.Text, []checks.Evidence, bool) {
	var ev []checks.Evidence
	var first DryRunGap
	seen := map[string]bool{}
	for _, g := range cs.DryRunGaps {
		if !g.NoServer || g.EnvGap || seen[g.Config] || !cs.changesRunOf(g.Config) {
			continue
		}
		seen[g.Config] = true
		if len(ev) == 0 {
			first = g
		}
		ev = append(ev, checks.Evidence{Label: g.Config + " (" + g.Point + ")", Value: g.Why})
	}
	if len(ev) == 0 {
		return checks.Text{}, nil, false
	}
	t := checks.T(
		fmt.Sprintf("%s: %s, so what the job runs after that, in files this PR changed, was not seen", first.Config, first.Why),
		fmt.Sprintf("%s：%s，因此作业此后运行的内容（位于本 PR 改动的文件中）未能检查", first.Config, checks.Code(first.Why)))
	return t.AndMore(len(ev) - 1), ev, true
}

// mayPatch is an added line that installs or patches something, however
// it is wrapped (agentic_pip_install --force-reinstall …, apply_patches).
var mayPatch = regexp.MustCompile(`(?i)install|patch|--force-reinstall|sed\s+-i|git\+|\.whl\b`)

// changesRunOf reports whether the PR added a line that may install or
// patch to a file config runs.
func (cs *Model) changesRunOf(config string) bool {
	for _, f := range cs.Effective[config] {
		if f == nil {
			continue
		}
		for _, l := range cs.AddedLines[f.Path] {
			if t := strings.TrimSpace(l.Text); !strings.HasPrefix(t, "#") && mayPatch.MatchString(t) {
				return true
			}
		}
	}
	return false
}
