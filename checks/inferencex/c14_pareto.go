package inferencex

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

// ParetoCoverage is row 14 (advisory): every curve the PR affects has enough
// Pareto-frontier points in the chosen run (RULES.md, Check 14).
var ParetoCoverage = &checks.Check{
	Number:    14,
	Escalates: true,
	Name:      checks.Text{EN: "Pareto coverage", ZH: "帕累托覆盖"},
	Advisory:  true,
	Requires:  []checks.Requirement{PassingSweep, sweep.SearchFact, changeset.Fact},
	Run:       runPareto,
}

// curveResult is one curve's frontier count, or why it cannot be counted.
type curveResult struct {
	Key          string
	Frontier     int
	Invalid      int
	Unverifiable checks.Text
	// AppendOnly marks a curve the PR extends through append-only changelog
	// entries: the run holds only the new points, so a short count says
	// nothing about the whole curve (RULES.md, Check 14).
	AppendOnly bool
}

func (c curveResult) pass(min int) bool {
	return c.Unverifiable.EN == "" && c.Invalid == 0 && c.Frontier >= min
}

func (c curveResult) text(min int) checks.Text {
	if c.Unverifiable.EN != "" {
		return checks.T(c.Key+": unverifiable: "+c.Unverifiable.EN, c.Key+"：无法验证："+c.Unverifiable.ZH)
	}
	en := fmt.Sprintf("%s: %d/%d frontier points", c.Key, c.Frontier, min)
	zh := fmt.Sprintf("%s：%d/%d 个前沿点", c.Key, c.Frontier, min)
	if c.AppendOnly && c.Frontier < min {
		en += " in this run alone; unverifiable (append-only; prior points not retrieved)"
		zh += "（仅本次运行）；无法验证（仅追加；未获取先前的点）"
	}
	if c.Invalid > 0 {
		en += fmt.Sprintf("; %d invalid measurements", c.Invalid)
		zh += fmt.Sprintf("；%d 个无效测量", c.Invalid)
	}
	return checks.T(en, zh)
}

func runPareto(ctx context.Context, pr *checks.PR) checks.Result {
	min := repo.SettingsParam.Get(pr).ParetoMinimum
	if min <= 0 {
		min = repo.Defaults().ParetoMinimum
	}
	cs, csErr := changeset.Fact.Of(ctx, pr)
	if csErr == nil && !cs.AffectsBenchmarks() {
		return checks.NAR(checks.T("No change in this PR can affect a benchmark curve.", "此 PR 的改动不会影响任何基准测试曲线。"))
	}

	sel, ok := chosenSweep(ctx, pr)
	if !ok {
		return coverageWarning(ctx, pr, nil, checks.T("unverifiable: no qualifying in-PR run (Check 1)", "无法验证：PR 内没有符合条件的运行（检查 1）"), nil)
	}
	run := sel.RunID
	runEv := checks.Evidence{Label: "run", URL: sel.RunURL, Value: strconv.FormatInt(run, 10)}
	arts, err := pr.Source.Artifacts(ctx, run)
	if err != nil {
		return coverageWarning(ctx, pr, sel, checks.T(
			fmt.Sprintf("unverifiable: could not list artifacts of run %d: %v", run, err),
			fmt.Sprintf("无法验证：无法列出运行 %d 的产物：%s", run, checks.Code(err.Error()))), nil, runEv)
	}
	ld := sweep.LoadBenchRows(ctx, pr.Source, run, arts)
	if ld.Unverifiable.EN != "" {
		return coverageWarning(ctx, pr, sel, checks.T("unverifiable: "+ld.Unverifiable.EN, "无法验证："+ld.Unverifiable.ZH), nil, runEv)
	}
	rows, outside := ld.Rows, 0
	if csErr == nil && len(cs.Affected) > 0 && len(cs.UnmappedFiles) == 0 {
		// A reused or wider run may hold curves this PR cannot move; only
		// the affected configs' series are assessed. A change to files that
		// map to no known config could move any curve, so then all count.
		rows, outside = sweep.OnSeriesOfAny(cs.Affected, ld.Rows)
	}
	counts, unkeyed := sweep.CountCurves(rows, run)
	curves := make([]curveResult, 0, len(counts))
	for _, c := range counts {
		curves = append(curves, curveResult{Key: c.Key, Frontier: c.Frontier, Invalid: c.Invalid})
	}
	if csErr == nil && cs.AllAppendOnly() {
		for i := range curves {
			curves[i].AppendOnly = true
		}
	}
	if csErr == nil {
		curves = append(curves, missingCurves(cs, ld.Rows, run)...)
	}
	sort.Slice(curves, func(i, j int) bool { return curves[i].Key < curves[j].Key })

	var failing, passing []curveResult
	for _, c := range curves {
		if c.pass(min) {
			passing = append(passing, c)
		} else {
			failing = append(failing, c)
		}
	}
	var problems []checks.Text
	if len(curves) == 0 {
		problems = append(problems, checks.T(
			fmt.Sprintf("unverifiable: run %d artifacts hold no benchmark points", run),
			fmt.Sprintf("无法验证：运行 %d 的产物中没有基准测试点", run)))
	}
	if unkeyed > 0 {
		problems = append(problems, checks.T(
			fmt.Sprintf("%d benchmark rows lack the fields of a curve key", unkeyed),
			fmt.Sprintf("%d 个基准测试行缺少曲线键所需字段", unkeyed)))
	}
	if csErr != nil {
		problems = append(problems, checks.T("affected curves unverifiable: change-set model unavailable ("+csErr.Error()+")",
			"受影响曲线无法验证：变更集模型不可用（"+checks.Code(csErr.Error())+"）"))
	} else if ps := cs.MasterProblems(); len(ps) > 0 {
		// Entries of an unparseable master config are missing from the
		// affected set, so a curve without points would go unnoticed.
		u := ps[0].Text()
		problems = append(problems, checks.T("affected curves unverifiable: "+u.EN, "受影响曲线无法验证："+u.ZH))
	}
	curveEv := make([]checks.Evidence, 0, len(curves))
	for _, c := range curves {
		curveEv = append(curveEv, checks.Evidence{Label: "curve", Value: c.text(min).EN})
	}
	if outside > 0 {
		curveEv = append(curveEv, checks.Evidence{Label: "not assessed", Value: fmt.Sprintf("%d points of series no affected config belongs to", outside)})
	}
	source, sourceZH := strings.Join(ld.Kinds, " and "), strings.Join(ld.Kinds, " 和 ")
	if len(failing) == 0 && len(problems) == 0 {
		parts := make([]string, len(passing))
		zh := make([]string, len(passing))
		for i, c := range passing {
			parts[i], zh[i] = c.text(min).EN, c.text(min).ZH
		}
		return checks.PassR(checks.T(
			fmt.Sprintf("%s (%s of run %d).", strings.Join(parts, "; "), source, run),
			fmt.Sprintf("%s（运行 %d 的 %s）。", strings.Join(zh, "；"), run, sourceZH)),
			append([]checks.Evidence{runEv}, curveEv...)...)
	}
	var en, zh []string
	for _, c := range failing {
		t := c.text(min)
		en, zh = append(en, t.EN), append(zh, t.ZH)
	}
	for _, p := range problems {
		en, zh = append(en, p.EN), append(zh, p.ZH)
	}
	if n := len(passing); n > 0 {
		en = append(en, fmt.Sprintf("%d other curve(s) pass", n))
		zh = append(zh, fmt.Sprintf("其余 %d 条曲线通过", n))
	}
	return coverageWarning(ctx, pr, sel, checks.T(strings.Join(en, "; "), strings.Join(zh, "；")), curveEv, runEv)
}

// coverageWarning finishes a WARN row: the findings, the admin-bypass state, the
// evidence and, unless a bypass verified, what an admin would paste.
func coverageWarning(ctx context.Context, pr *checks.PR, sel *sweep.Selection, what checks.Text, curveEv []checks.Evidence, ev ...checks.Evidence) checks.Result {
	b, err := commands.FindBypass(ctx, pr.Source, pr.HeadSHA, 14)
	state := b.Text()
	if err != nil {
		state = checks.T("admin bypass not verified (comments unreadable)", "管理员豁免未验证（无法读取评论）")
	}
	en, zh := what.EN+"; "+state.EN, what.ZH+"；"+state.ZH
	if sel != nil {
		en += fmt.Sprintf("; evidence: run %d artifacts.", sel.RunID)
		zh += fmt.Sprintf("；证据：运行 %d 的产物。", sel.RunID)
	} else {
		en += "."
		zh += "。"
	}
	if !b.Verified {
		cmd := checks.Code(fmt.Sprintf("/verdict bypass 14 %s <reason>", checks.Short(pr.HeadSHA)))
		en += " To record an admin bypass, an admin comments: " + cmd
		zh += " 如需记录管理员豁免，请管理员评论：" + cmd
	}
	out := append(ev, curveEv...)
	if b.Verified {
		out = append(out, checks.Evidence{Label: "admin bypass", URL: b.URL, Value: "@" + b.By + ": " + b.Reason})
	}
	for _, w := range b.Why {
		out = append(out, checks.Evidence{Label: "bypass not counted", URL: w.URL, Value: w.Why.EN})
	}
	return checks.WarnR(checks.T(en, zh), out...)
}

// missingCurves reports affected configs with no point at all in the run:
// their curve cannot be assessed.
func missingCurves(cs *changeset.Model, rows []sweep.BenchRow, run int64) []curveResult {
	var out []curveResult
	for _, c := range sweep.WithoutPoints(cs.Affected, rows) {
		out = append(out, curveResult{Key: c.Key, Unverifiable: checks.T(
			fmt.Sprintf("no benchmark points in run %d", run),
			fmt.Sprintf("运行 %d 中没有基准测试点", run))})
	}
	return out
}
