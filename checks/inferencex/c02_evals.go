package inferencex

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

// Evals is row 2: the evals of the run Check 1 chose actually pass, on the
// image the PR ships (RULES.md, Check 2).
var Evals = &checks.Check{
	Number:   2,
	Name:     checks.Text{EN: "Evals", ZH: "评测"},
	Requires: []checks.Requirement{PassingSweep, sweep.SearchFact, repo.LayoutFact, changeset.Fact, repo.MastersFact},
	Run:      runEvals,
}

func runEvals(ctx context.Context, pr *checks.PR) checks.Result {
	sel, ok := chosenSweep(ctx, pr)
	if !ok {
		return checks.FailR(checks.T("No qualifying in-PR run; eval results cannot be verified.",
			"PR 内没有符合条件的运行；无法验证评测结果。"))
	}
	run := sel.RunID
	runEv := checks.Evidence{Label: "run", URL: sel.RunURL, Value: strconv.FormatInt(run, 10)}

	executed := 0
	for _, c := range sel.Eval {
		if !sweep.Executed(c) {
			continue
		}
		executed++
		if c.Conclusion != "success" {
			return checks.FailR(checks.T(
				fmt.Sprintf("Evals failed: %s concluded %s in run %d.", c.Name, c.Conclusion, run),
				fmt.Sprintf("评测未通过：运行 %d 中 %s 的结论为 %s。", run, c.Name, c.Conclusion)), runEv)
		}
	}
	if executed == 0 {
		return checks.FailR(checks.T(
			fmt.Sprintf("Evals skipped: run %d executed no eval job.", run),
			fmt.Sprintf("评测被跳过：运行 %d 没有执行任何评测作业。", run)), runEv)
	}

	arts, err := pr.Source.Artifacts(ctx, run)
	if err != nil {
		return checks.Unverified(checks.T(
			fmt.Sprintf("could not list artifacts of run %d: %v", run, err),
			fmt.Sprintf("无法列出运行 %d 的产物：%s", run, checks.Code(err.Error())))).WithEvidence(runEv)
	}
	// The thresholds do not depend on the rows: read them meanwhile.
	type thresholds struct {
		th  sweep.Thresholds
		ev  checks.Evidence
		res *checks.Result
	}
	thc := make(chan thresholds, 1)
	go func() {
		l, bad := layoutOf(ctx, pr)
		if bad != nil {
			thc <- thresholds{res: bad}
			return
		}
		th, ev, res := sweep.LoadThresholds(ctx, pr, l)
		thc <- thresholds{th, ev, res}
	}()
	ld := sweep.LoadEvalRows(ctx, pr.Source, run, arts)
	if ld.Problem != nil {
		return ld.Problem.WithEvidence(runEv)
	}
	artEv := checks.Evidence{Label: "eval artifacts", Value: strings.Join(ld.Artifacts, ", ")}
	if len(ld.Rows) == 0 {
		return checks.FailR(checks.T(
			fmt.Sprintf("Evals empty: %s of run %d holds no eval result rows.", strings.Join(ld.Artifacts, ", "), run),
			fmt.Sprintf("评测结果为空：运行 %d 的 %s 没有任何评测结果行。", run, strings.Join(ld.Artifacts, ", "))), runEv, artEv)
	}
	rows := ld.Rows
	sweep.SortEvalRows(rows)
	for _, r := range rows {
		if r.Invalid != "" {
			return checks.FailR(checks.T(
				fmt.Sprintf("Invalid eval result: %s %s %s in run %d.", r.Label(), r.Task, r.Invalid, run),
				fmt.Sprintf("评测结果无效：运行 %d 中 %s %s %s。", run, r.Label(), r.Task, r.Invalid)), runEv, artEv)
		}
	}

	t := <-thc
	th, thEv, res := t.th, t.ev, t.res
	if res != nil {
		return res.WithEvidence(runEv)
	}
	worst := th.Score(rows)
	var below []sweep.Score
	for _, s := range worst {
		if s.Metric.Value < s.Bar {
			below = append(below, s)
		}
	}
	byMargin := func(ss []sweep.Score) {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].Margin() < ss[j].Margin() })
	}
	if len(below) > 0 {
		byMargin(below)
		b := below[0]
		more, moreZH := "", ""
		if n := len(below) - 1; n > 0 {
			more, moreZH = fmt.Sprintf(" %d more score(s) below bar.", n), fmt.Sprintf(" 另有 %d 项分数低于门槛。", n)
		}
		return checks.FailR(checks.T(
			fmt.Sprintf("Below bar: %s %s < %s (run %d).%s", b.Row.Label(), b.Text(), sweep.FormatNumber(b.Bar), run, more),
			fmt.Sprintf("低于门槛：%s %s < %s（运行 %d）。%s", b.Row.Label(), b.Text(), sweep.FormatNumber(b.Bar), run, moreZH)),
			runEv, artEv, thEv, checks.Evidence{Label: "threshold source", Value: b.From})
	}

	if res := ownEvals(ctx, pr, run, rows); res != nil {
		return res.WithEvidence(runEv, artEv)
	}
	img, imgZH, res := sameImage(ctx, pr, sel)
	if res != nil {
		return res.WithEvidence(runEv, artEv)
	}
	byMargin(worst)
	w := worst[0]
	ev := []checks.Evidence{runEv, artEv, thEv}
	for _, n := range ld.Notes {
		ev = append(ev, checks.Evidence{Label: "batched evals not cross-checked", Value: n})
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("%s %s ≥ %s in run %d (lowest of %d scores); %s.", w.Row.Label(), w.Text(), sweep.FormatNumber(w.Bar), run, len(worst), img),
		fmt.Sprintf("运行 %d 中 %s %s ≥ %s（%d 项分数中最低）；%s。", run, w.Row.Label(), w.Text(), sweep.FormatNumber(w.Bar), len(worst), imgZH)),
		ev...)
}

// ownEvals requires every affected config to be covered by eval rows of
// its own model prefix, hardware, framework, precision and spec-decoding
// method in the chosen run: the evals of another model say nothing about it.
// The change-set problems that hide configs are sameImage's to report.
func ownEvals(ctx context.Context, pr *checks.PR, run int64, rows []sweep.EvalRow) *checks.Result {
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || len(cs.MasterProblems()) > 0 {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, r := range rows {
		if id := sweep.RowIdentity(r); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, c := range cs.Affected {
		cov := sweep.Cover(rows, c)
		switch {
		case cov.Covered():
		case cov.UnknownSpec > 0:
			r := checks.Unverified(checks.T(
				fmt.Sprintf("%d eval row(s) of run %d match %s but do not record their spec-decoding, so they cannot be taken as its evals (%s)", cov.UnknownSpec, run, c.Key, cov.Identity()),
				fmt.Sprintf("运行 %d 中有 %d 行评测结果与 %s 相符，但未记录其投机解码方式，无法视为它的评测（%s）", run, cov.UnknownSpec, c.Key, checks.Code(cov.Identity()))))
			return &r
		default:
			r := checks.FailR(checks.T(
				fmt.Sprintf("Evals do not cover %s: run %d has no eval row of %s (its rows are of %s).", c.Key, run, cov.Identity(), strings.Join(ids, "; ")),
				fmt.Sprintf("评测未覆盖 %s：运行 %d 没有 %s 的评测结果行（其结果行属于 %s）。", c.Key, run, checks.Code(cov.Identity()), codeEach(ids, "；"))))
			return &r
		}
	}
	return nil
}

// sameImage proves that the run executed the images the PR ships: every
// affected config's image in the master configs at the run's commit equals
// its image at H. Eval rows carry no image, so the master configs are the
// evidence.
func sameImage(ctx context.Context, pr *checks.PR, sel *sweep.Selection) (en, zh string, res *checks.Result) {
	fail := func(r checks.Result) (string, string, *checks.Result) { return "", "", &r }
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil {
		return fail(checks.Unverified(checks.T("could not compare images: change-set model unavailable: "+err.Error(),
			"无法比较镜像：变更集模型不可用："+checks.Code(err.Error()))))
	}
	// A master config that does not parse at H hides its entries from
	// the affected set: "no affected config" would then pass by default.
	if ps := cs.MasterProblems(); len(ps) > 0 {
		return fail(changeset.Unreadable(ps))
	}
	if len(cs.Affected) == 0 {
		return "no affected config to compare images for", "没有需要比较镜像的受影响配置", nil
	}
	ms, err := repo.MastersFact.Of(ctx, pr)
	var at map[string]*repo.ConfigEntry
	var probs []repo.InputProblem
	if err == nil {
		at, probs, err = ms.At(ctx, sel.HeadSHA)
	}
	if err != nil {
		return fail(checks.Unverified(checks.T(fmt.Sprintf("could not read master configs at run commit %s: %v", checks.Short(sel.HeadSHA), err),
			fmt.Sprintf("无法读取运行提交 %s 的 master 配置：%s", checks.Short(sel.HeadSHA), checks.Code(err.Error())))))
	}
	for _, c := range cs.Affected {
		old, ok := at[c.Key]
		if !ok {
			for _, p := range probs {
				return fail(checks.Unverified(checks.T(fmt.Sprintf("master config %s at run commit %s is unreadable (%s), so the image of %s cannot be compared", p.Path, checks.Short(sel.HeadSHA), p.Err, c.Key),
					fmt.Sprintf("运行提交 %s 的 master 配置 %s 无法读取（%s），无法比较 %s 的镜像", checks.Short(sel.HeadSHA), p.Path, checks.Code(p.Err), c.Key))))
			}
			return fail(checks.FailR(checks.T(
				fmt.Sprintf("Evals used a different image: %s did not exist at run %d's commit %s (H %s uses %s).", c.Key, sel.RunID, checks.Short(sel.HeadSHA), checks.Short(pr.HeadSHA), c.Image),
				fmt.Sprintf("评测使用了不同的镜像：运行 %d 的提交 %s 中不存在 %s（H %s 使用 %s）。", sel.RunID, checks.Short(sel.HeadSHA), c.Key, checks.Short(pr.HeadSHA), c.Image))))
		}
		if old.Image != c.Image {
			return fail(checks.FailR(checks.T(
				fmt.Sprintf("Evals used a different image (%s vs %s) for %s: run %d ran commit %s, H is %s.", old.Image, c.Image, c.Key, sel.RunID, checks.Short(sel.HeadSHA), checks.Short(pr.HeadSHA)),
				fmt.Sprintf("评测使用了不同的镜像（%s 对比 %s），配置 %s：运行 %d 运行的是提交 %s，H 为 %s。", old.Image, c.Image, c.Key, sel.RunID, checks.Short(sel.HeadSHA), checks.Short(pr.HeadSHA)))))
		}
	}
	n := len(cs.Affected)
	return fmt.Sprintf("own evals and same image for %d affected config(s)", n), fmt.Sprintf("%d 个受影响配置均有自己的评测且镜像相同", n), nil
}

// codeEach shows each identity as written, joined by sep.
func codeEach(ids []string, sep string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = checks.Code(id)
	}
	return strings.Join(out, sep)
}
