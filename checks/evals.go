package checks

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// EvalsCheck is row 2 of the InferenceX preset: the evals of the run Check 1
// chose actually pass, on the image the PR ships.
func EvalsCheck() Check { return row(2, runEvals, 1) }

func runEvals(ctx context.Context, pr *PR) Result {
	sel, ok := PriorSweep(pr)
	if !ok {
		return FailR(T("No qualifying in-PR run; eval results cannot be verified.",
			"PR 内没有符合条件的运行；无法验证评测结果。"))
	}
	run := sel.RunID
	runEv := Evidence{Label: "run", URL: sel.RunURL, Value: strconv.FormatInt(run, 10)}

	executed := 0
	for _, c := range sel.Eval {
		if !c.Executed() {
			continue
		}
		executed++
		if c.Conclusion != "success" {
			return FailR(T(
				fmt.Sprintf("Evals failed: %s concluded %s in run %d.", c.Name, c.Conclusion, run),
				fmt.Sprintf("评测未通过：运行 %d 中 %s 的结论为 %s。", run, c.Name, c.Conclusion)), runEv)
		}
	}
	if executed == 0 {
		return FailR(T(
			fmt.Sprintf("Evals skipped: run %d executed no eval job.", run),
			fmt.Sprintf("评测被跳过：运行 %d 没有执行任何评测作业。", run)), runEv)
	}

	arts, err := pr.Source.Artifacts(ctx, run)
	if err != nil {
		return withEvidence(Unverified(T(
			fmt.Sprintf("could not list artifacts of run %d: %v", run, err),
			fmt.Sprintf("无法列出运行 %d 的产物：%v", run, err))), runEv)
	}
	ld := loadEvalRows(ctx, pr, run, arts)
	if ld.Problem != nil {
		return withEvidence(*ld.Problem, runEv)
	}
	artEv := Evidence{Label: "eval artifacts", Value: strings.Join(ld.Artifacts, ", ")}
	if len(ld.Rows) == 0 {
		return FailR(T(
			fmt.Sprintf("Evals empty: %s of run %d holds no eval result rows.", strings.Join(ld.Artifacts, ", "), run),
			fmt.Sprintf("评测结果为空：运行 %d 的 %s 没有任何评测结果行。", run, strings.Join(ld.Artifacts, ", "))), runEv, artEv)
	}
	rows := ld.Rows
	sortEvalRows(rows)
	for _, r := range rows {
		if r.Invalid != "" {
			return FailR(T(
				fmt.Sprintf("Invalid eval result: %s %s %s in run %d.", r.label(), r.Task, r.Invalid, run),
				fmt.Sprintf("评测结果无效：运行 %d 中 %s %s %s。", run, r.label(), r.Task, r.Invalid)), runEv, artEv)
		}
	}

	th, thEv, res := loadThresholds(ctx, pr)
	if res != nil {
		return withEvidence(*res, runEv)
	}
	var worst, below []scored
	for _, r := range rows {
		bar, from := th.For(r.ModelPrefix, r.Task)
		for _, m := range r.Metrics {
			s := scored{row: r, m: m, bar: bar, from: from}
			if m.Value < bar {
				below = append(below, s)
			}
			worst = append(worst, s)
		}
	}
	byMargin := func(ss []scored) {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].m.Value-ss[i].bar < ss[j].m.Value-ss[j].bar })
	}
	if len(below) > 0 {
		byMargin(below)
		b := below[0]
		more, moreZH := "", ""
		if n := len(below) - 1; n > 0 {
			more, moreZH = fmt.Sprintf(" %d more score(s) below bar.", n), fmt.Sprintf(" 另有 %d 项分数低于门槛。", n)
		}
		return FailR(T(
			fmt.Sprintf("Below bar: %s %s < %s (run %d).%s", b.row.label(), b.text(), fmtFloat(b.bar), run, more),
			fmt.Sprintf("低于门槛：%s %s < %s（运行 %d）。%s", b.row.label(), b.text(), fmtFloat(b.bar), run, moreZH)),
			runEv, artEv, thEv, Evidence{Label: "threshold source", Value: b.from})
	}

	img, imgZH, res := sameImage(ctx, pr, sel)
	if res != nil {
		return withEvidence(*res, runEv, artEv)
	}
	byMargin(worst)
	w := worst[0]
	ev := []Evidence{runEv, artEv, thEv}
	for _, n := range ld.Notes {
		ev = append(ev, Evidence{Label: "batched evals not cross-checked", Value: n})
	}
	return PassR(T(
		fmt.Sprintf("%s %s ≥ %s in run %d (lowest of %d scores); %s.", w.row.label(), w.text(), fmtFloat(w.bar), run, len(worst), img),
		fmt.Sprintf("运行 %d 中 %s %s ≥ %s（%d 项分数中最低）；%s。", run, w.row.label(), w.text(), fmtFloat(w.bar), len(worst), imgZH)),
		ev...)
}

// scored is one metric of one row against its threshold.
type scored struct {
	row  EvalRow
	m    EvalMetric
	bar  float64
	from string
}

// text renders `gsm8k em_strict 0.953 ± 0.006 (n=1319)`, with enough digits
// that the printed value compares with the printed threshold as the real
// value does.
func (s scored) text() string {
	v := fmtScore(s.m.Value, s.bar)
	if s.m.HasSE {
		v += " ± " + strconv.FormatFloat(s.m.SE, 'f', 3, 64)
	}
	if s.row.N > 0 {
		v += fmt.Sprintf(" (n=%d)", s.row.N)
	}
	return s.row.Task + " " + s.m.Name + " " + v
}

func fmtScore(v, bar float64) string {
	for d := 3; d < 10; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		p, _ := strconv.ParseFloat(s, 64)
		if (p < bar) == (v < bar) && (p == bar) == (v == bar) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// label names the row's config: model prefix, then hardware, framework,
// precision and concurrency when known.
func (r EvalRow) label() string {
	parts := []string{r.ModelPrefix}
	if r.ModelPrefix == "" {
		parts[0] = r.Model
	}
	for _, p := range []string{strings.ToLower(r.HW), r.Framework, r.Precision} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if r.Conc != "" {
		parts = append(parts, "c"+r.Conc)
	}
	return strings.Join(parts, " ")
}

func sortEvalRows(rows []EvalRow) {
	key := func(r EvalRow) string {
		return strings.Join([]string{r.ModelPrefix, r.Task, r.HW, r.Framework, r.Precision, fmt.Sprintf("%012s", r.Conc), r.Source}, "\x00")
	}
	sort.SliceStable(rows, func(i, j int) bool { return key(rows[i]) < key(rows[j]) })
}

// loadThresholds reads the thresholds file of the default branch. A missing
// file leaves every task on the configured fallback, as the validator's
// --min-score does; an unreadable or malformed one cannot be trusted.
func loadThresholds(ctx context.Context, pr *PR) (Thresholds, Evidence, *Result) {
	fallback := pr.Settings.DefaultEvalThreshold
	if fallback <= 0 {
		fallback = Defaults().DefaultEvalThreshold
	}
	p := pr.Layout.Thresholds
	data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, p)
	if errors.Is(err, ErrNotFound) {
		th, _ := ParseThresholds([]byte("{}"), fallback)
		return th, Evidence{Label: "thresholds", Value: fmt.Sprintf("%s absent at %s; fallback %s", p, Short(pr.DefaultSHA), fmtFloat(fallback))}, nil
	}
	if err != nil {
		r := Unverified(T(fmt.Sprintf("could not read %s at %s: %v", p, Short(pr.DefaultSHA), err),
			fmt.Sprintf("无法读取 %s（%s）：%v", p, Short(pr.DefaultSHA), err)))
		return Thresholds{}, Evidence{}, &r
	}
	th, err := ParseThresholds(data, fallback)
	if err != nil {
		r := Unverified(T(fmt.Sprintf("%s at %s: %v", p, Short(pr.DefaultSHA), err),
			fmt.Sprintf("%s（%s）：%v", p, Short(pr.DefaultSHA), err)))
		return Thresholds{}, Evidence{}, &r
	}
	return th, Evidence{Label: "thresholds", Value: p + "@" + Short(pr.DefaultSHA)}, nil
}

// sameImage proves that the run executed the images the PR ships: every
// affected config's image in the master configs at the run's commit equals
// its image at H. Eval rows carry no image, so the master configs are the
// evidence.
func sameImage(ctx context.Context, pr *PR, sel *SweepSelection) (en, zh string, res *Result) {
	fail := func(r Result) (string, string, *Result) { return "", "", &r }
	cs, err := pr.ChangeSet(ctx)
	if err != nil {
		return fail(Unverified(T("could not compare images: change-set model unavailable: "+err.Error(),
			"无法比较镜像：变更集模型不可用："+err.Error())))
	}
	// A master config that does not parse at H hides its entries from
	// the affected set: "no affected config" would then pass by default.
	if ps := csMasterProblems(pr, cs); len(ps) > 0 {
		return fail(csUnreadable(ps))
	}
	if len(cs.Affected) == 0 {
		return "no affected config to compare images for", "没有需要比较镜像的受影响配置", nil
	}
	at, probs, err := LoadMasterConfigs(ctx, pr, sel.HeadSHA)
	if err != nil {
		return fail(Unverified(T(fmt.Sprintf("could not read master configs at run commit %s: %v", Short(sel.HeadSHA), err),
			fmt.Sprintf("无法读取运行提交 %s 的 master 配置：%v", Short(sel.HeadSHA), err))))
	}
	for _, c := range cs.Affected {
		old, ok := at[c.Key]
		if !ok {
			for _, p := range probs {
				return fail(Unverified(T(fmt.Sprintf("master config %s at run commit %s is unreadable (%s), so the image of %s cannot be compared", p.Path, Short(sel.HeadSHA), p.Err, c.Key),
					fmt.Sprintf("运行提交 %s 的 master 配置 %s 无法读取（%s），无法比较 %s 的镜像", Short(sel.HeadSHA), p.Path, p.Err, c.Key))))
			}
			return fail(FailR(T(
				fmt.Sprintf("Evals used a different image: %s did not exist at run %d's commit %s (H %s uses %s).", c.Key, sel.RunID, Short(sel.HeadSHA), Short(pr.HeadSHA), c.Image),
				fmt.Sprintf("评测使用了不同的镜像：运行 %d 的提交 %s 中不存在 %s（H %s 使用 %s）。", sel.RunID, Short(sel.HeadSHA), c.Key, Short(pr.HeadSHA), c.Image))))
		}
		if old.Image != c.Image {
			return fail(FailR(T(
				fmt.Sprintf("Evals used a different image (%s vs %s) for %s: run %d ran commit %s, H is %s.", old.Image, c.Image, c.Key, sel.RunID, Short(sel.HeadSHA), Short(pr.HeadSHA)),
				fmt.Sprintf("评测使用了不同的镜像（%s 对比 %s），配置 %s：运行 %d 运行的是提交 %s，H 为 %s。", old.Image, c.Image, c.Key, sel.RunID, Short(sel.HeadSHA), Short(pr.HeadSHA)))))
		}
	}
	n := len(cs.Affected)
	return fmt.Sprintf("same image for %d affected config(s)", n), fmt.Sprintf("%d 个受影响配置的镜像相同", n), nil
}

// withEvidence appends evidence to a result.
func withEvidence(r Result, ev ...Evidence) Result {
	r.Evidence = append(r.Evidence, ev...)
	return r
}
