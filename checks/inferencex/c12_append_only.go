package inferencex

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/perfchangelog"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// AppendOnly is row 12: an append-only changelog entry may only add
// benchmark points; every existing point stays exactly as it was (RULES.md,
// Check 12).
var AppendOnly = &checks.Check{
	Number:   12,
	Name:     checks.Text{EN: "Append-only", ZH: "仅追加"},
	Requires: []checks.Requirement{changeset.Fact},
	Run:      runAppendOnly,
}

func runAppendOnly(ctx context.Context, pr *checks.PR) checks.Result {
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		return changeset.Unavailable(err)
	}
	var ao []perfchangelog.Entry
	for _, e := range cs.ChangelogAdded {
		if e.AppendOnly {
			ao = append(ao, e)
		}
	}
	if len(ao) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		return checks.NAR(checks.T("No added changelog entry uses append-only: true.", "没有新增的变更日志条目使用 `append-only: true`。"))
	}
	// 1. No mixing, no eval selection.
	if len(ao) != len(cs.ChangelogAdded) {
		return checks.FailR(checks.T("append-only entries cannot share a sweep with regular changelog entries.", "append-only 条目不能与常规变更日志条目共用一次扫描。"))
	}
	for _, e := range ao {
		var bad []string
		if e.EvalsOnly {
			bad = append(bad, "evals-only")
		}
		if e.AllEvals {
			bad = append(bad, "all-evals")
		}
		if e.EvalMinPrefillEP > 0 {
			bad = append(bad, "eval-min-prefill-ep")
		}
		if len(bad) > 0 {
			return checks.FailR(checks.T(fmt.Sprintf("append-only entry at changelog line %d cannot carry %s.", e.Line, strings.Join(bad, ", ")),
				fmt.Sprintf("变更日志第 %d 行的 append-only 条目不能包含 %s。", e.Line, strings.Join(bad, ", "))))
		}
	}
	// Inputs the rule depends on must have been read: what an entry
	// selects is unknown without the master configs.
	unread := func(ps []repo.InputProblem) (checks.Result, bool) {
		if len(ps) == 0 {
			return checks.Result{}, false
		}
		p := ps[0]
		return checks.Unverified(p.Text()), true
	}
	if r, bad := unread(cs.MasterProblems()); bad {
		return r
	}
	for _, e := range ao {
		if len(e.Matched) == 0 {
			return checks.FailR(checks.T(fmt.Sprintf("append-only entry at changelog line %d selects no existing config (%s).", e.Line, strings.Join(e.ConfigKeys, ", ")),
				fmt.Sprintf("变更日志第 %d 行的 append-only 条目没有选中任何现有配置（%s）。", e.Line, strings.Join(e.ConfigKeys, ", "))))
		}
	}
	if r, bad := unread(cs.MasterAndChangelogProblems()); bad {
		return r
	}

	// 2. Selected configs exist at base.
	selected := map[string]perfchangelog.Entry{}
	var keys []string
	for _, e := range ao {
		for _, k := range e.Matched {
			if _, dup := selected[k]; !dup {
				keys = append(keys, k)
			}
			selected[k] = e
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if cs.MasterBase[k] == nil {
			return checks.FailR(checks.T(fmt.Sprintf("Selected config %s does not exist at base; append-only entries can only extend existing configs.", k),
				fmt.Sprintf("选中的配置 %s 在基线中不存在；append-only 条目只能扩展现有配置。", k)))
		}
		if cs.MasterHead[k] == nil {
			return checks.FailR(checks.T(fmt.Sprintf("Selected config %s is removed at head.", k), fmt.Sprintf("选中的配置 %s 在头部提交中被删除。", k)))
		}
	}
	// 3. No other master key differs.
	var others []string
	for _, list := range [][]string{cs.AddedKeys, cs.ChangedKeys, cs.RemovedKeys} {
		for _, k := range list {
			if _, ok := selected[k]; !ok {
				others = append(others, k)
			}
		}
	}
	if len(others) > 0 {
		sort.Strings(others)
		return checks.FailR(checks.T("changed configs not selected by its changelog entry: "+strings.Join(others, ", ")+".",
			"存在未被其变更日志条目选中的已变更配置："+strings.Join(others, ", ")+"。"))
	}

	// 3-4. Per selected config: top level, scenarios and points.
	var ev []checks.Evidence
	var summary, summaryZH []string
	basePoints := 0
	for _, k := range keys {
		b, h := cs.MasterBase[k], cs.MasterHead[k]
		if d := repo.TopLevelDiff(b, h); len(d) > 0 {
			return checks.FailR(checks.T(fmt.Sprintf("Existing points of %s modified: %s changed.", k, strings.Join(d, ", ")),
				fmt.Sprintf("%s 的现有点被修改：%s 已变更。", k, strings.Join(d, ", "))))
		}
		bt, ht := repo.ScenarioTypes(b), repo.ScenarioTypes(h)
		if strings.Join(bt, ",") != strings.Join(ht, ",") {
			return checks.FailR(checks.T(fmt.Sprintf("Scenarios of %s changed (%s → %s); append-only cannot add or remove scenarios.", k, strings.Join(bt, ","), strings.Join(ht, ",")),
				fmt.Sprintf("%s 的场景发生变化（%s → %s）；append-only 不能增删场景。", k, strings.Join(bt, ","), strings.Join(ht, ","))))
		}
		if st := selected[k].ScenarioType; len(st) > 0 {
			for _, t := range bt {
				if !slices.Contains(st, t) && repo.ScenarioContent(b, t) != repo.ScenarioContent(h, t) {
					return checks.FailR(checks.T(fmt.Sprintf("%s scenario %s changed but the entry selects only %s.", k, t, strings.Join(st, ", ")),
						fmt.Sprintf("%s 的场景 %s 已变更，但该条目只选中了 %s。", k, t, strings.Join(st, ", "))))
				}
			}
		}
		bp, hp := repo.ConfigPoints(b), repo.ConfigPoints(h)
		have := map[string]bool{}
		for _, p := range hp {
			have[p.ID()] = true
		}
		old := map[string]bool{}
		for _, p := range bp {
			old[p.ID()] = true
			if !have[p.ID()] {
				return checks.FailR(checks.T(fmt.Sprintf("Existing point %s removed from %s.", p.Desc, k),
					fmt.Sprintf("现有点 %s 已从 %s 中删除。", p.Desc, k)), checks.Evidence{Label: "base point", Value: p.Scenario + " " + p.Desc})
			}
		}
		var added []string
		for _, p := range hp {
			if !old[p.ID()] {
				added = append(added, fmt.Sprint(p.Conc))
				ev = append(ev, checks.Evidence{Label: "new point " + k, Value: p.Scenario + " " + p.Desc})
			}
		}
		basePoints += len(bp)
		if len(added) > 0 {
			summary = append(summary, fmt.Sprintf("conc %s to %s", strings.Join(uniq(added), ", "), k))
			summaryZH = append(summaryZH, fmt.Sprintf("为 %s 新增 conc %s", k, strings.Join(uniq(added), ", ")))
		}
	}
	if len(summary) == 0 {
		return checks.FailR(checks.T("Append-only entry adds no new point to "+strings.Join(keys, ", ")+".", "append-only 条目没有为 "+strings.Join(keys, ", ")+" 新增任何点。"))
	}

	// 6. The repository's own changelog validator.
	runs, err := pr.Source.CheckRuns(ctx, pr.HeadSHA)
	if err != nil {
		// Whether the repository's own validator failed is unknown.
		return checks.Unverified(checks.T(fmt.Sprintf("check runs of %s could not be read, so the check-changelog result is unknown: %v", checks.Short(pr.HeadSHA), err),
			fmt.Sprintf("无法读取 %s 的检查运行，check-changelog 的结论未知：%s", checks.Short(pr.HeadSHA), checks.Code(err.Error())))).WithEvidence(ev...)
	}
	for _, r := range runs {
		if r.Name == "check-changelog" && r.Status == "completed" && validatorFailed[r.Conclusion] {
			return checks.FailR(checks.T(fmt.Sprintf("check-changelog %s on %s.", r.Conclusion, checks.Short(pr.HeadSHA)),
				fmt.Sprintf("check-changelog 在 %s 上的结论为 %s。", checks.Short(pr.HeadSHA), r.Conclusion)), checks.Evidence{Label: "check-changelog", URL: r.HTMLURL})
		}
	}

	// 5. Behavioural isolation: changed shared files used by existing points.
	if shared := cs.SharedChanges(keys); len(shared) > 0 {
		for _, s := range shared {
			ev = append(ev, checks.Evidence{Label: "changed file used by existing points", Value: s})
		}
		return checks.ReviewR(checks.T("launcher change may affect existing points: "+strings.Join(shared, ", ")+".",
			"启动器变更可能影响现有点："+strings.Join(shared, ", ")+"。"), ev...)
	}
	return checks.PassR(checks.T(fmt.Sprintf("Adds %s; all %d base points unchanged; no shared files changed.", strings.Join(summary, "; "), basePoints),
		fmt.Sprintf("%s；全部 %d 个基线点未变；没有共享文件变更。", strings.Join(summaryZH, "；"), basePoints)), ev...)
}

// validatorFailed are the check-run conclusions that mean the validator failed
// (a cancelled or skipped run proves nothing either way).
var validatorFailed = map[string]bool{"failure": true, "timed_out": true, "action_required": true, "startup_failure": true}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
