package inferencex

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/claims"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// Description is row 15 (advisory): the PR description's technical claims
// must match what the PR actually does (RULES.md, Check 15). Check 11's
// golden values are read for AL claims.
var Description = &checks.Check{
	Number:   15,
	Name:     checks.Text{EN: "PR description", ZH: "PR 描述"},
	Advisory: true,
	Requires: []checks.Requirement{changeset.Fact, GoldenAcceptance, GoldenEvaluation},
	Run:      runDescription,
}

// claimFinding is one contradicted or unverifiable claim.
type claimFinding struct {
	en, zh string
	ev     checks.Evidence
}

func runDescription(ctx context.Context, pr *checks.PR) checks.Result {
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		return checks.WarnR(checks.T("PR description could not be verified: change set unavailable: "+errText(err),
			"无法验证 PR 描述：变更集不可用："+checks.Code(errText(err))))
	}
	isKey := func(k string) bool { return cs.MasterHead[k] != nil || cs.MasterBase[k] != nil }
	found := claims.Extract(pr.Body, isKey)
	if len(found) == 0 {
		return checks.NAR(checks.T("PR body makes no configuration or validation claims.", "PR 正文没有关于配置或验证的声明。"))
	}
	inPR := map[string]bool{}
	for _, c := range cs.Affected {
		if c != nil {
			inPR[c.Key] = true
		}
	}
	for _, lst := range [][]string{cs.Selected, cs.RemovedKeys, cs.AddedKeys, cs.ChangedKeys} {
		for _, k := range lst {
			inPR[k] = true
		}
	}
	at := checks.Short(pr.HeadSHA)
	// Without a readable master config, "no affected config" would hide
	// the cause; name the file instead.
	noCfg, noCfgZH := "no affected config", "没有受影响的配置"
	if ps := cs.MasterProblems(); len(ps) > 0 {
		noCfg, noCfgZH = ps[0].Path+" unreadable", ps[0].Path+" 无法读取"
	}
	// Golden values exist only when Check 11 ran: a disabled row selected
	// nothing.
	var golden GoldenOutcome
	var haveGolden bool
	if r, ok := pr.ResultOf(ctx, GoldenAcceptance); ok && r.Status != checks.NA {
		g, err := GoldenEvaluation.Of(ctx, pr)
		golden, haveGolden = g, err == nil
	}
	var commits checks.CommitList
	var commitsErr error
	var commitsRead bool

	var contra, unver []claimFinding
	verified := map[string]int{}
	for _, cl := range found {
		q := checks.Quote(cl.Label(), 80)
		switch cl.Kind {
		case claims.Config:
			if cl.Old {
				continue
			}
			if inPR[cl.Token] {
				verified["config keys"]++
				continue
			}
			contra = append(contra, claimFinding{
				en: fmt.Sprintf("Body names %s but this PR neither changes nor selects it at %s; please correct the description.", cl.Token, at),
				zh: fmt.Sprintf("正文提到了 %s，但本 PR 在 %s 既未修改也未选中该配置；请更正描述。", cl.Token, at),
				ev: checks.Evidence{Label: "body line " + fmt.Sprint(cl.Line), Value: q}})
		case claims.Image:
			if cl.Old {
				continue
			}
			targets := cs.Targets(cl.Keys)
			if len(targets) == 0 {
				unver = append(unver, claimFinding{en: "image " + cl.Token + " (" + noCfg + ")", zh: "镜像 " + cl.Token + "（" + noCfgZH + "）"})
				continue
			}
			match := false
			for _, t := range targets {
				if strings.EqualFold(t.Image, cl.Token) {
					match = true
				}
			}
			if match {
				verified["images"]++
				continue
			}
			t := bestImage(targets, cl.Token)
			actual := t.Image
			if imageName(actual) == imageName(cl.Token) {
				actual = actual[strings.LastIndex(actual, ":")+1:]
			}
			contra = append(contra, claimFinding{
				en: fmt.Sprintf("Body says %q but %s uses %s at %s; please correct the description.", q, t.Key, actual, at),
				zh: fmt.Sprintf("正文称 %q，但 %s 在 %s 使用的是 %s；请更正描述。", q, t.Key, at, actual),
				ev: checks.Evidence{Label: "image of " + t.Key, Value: t.Image}})
		case claims.Conc, claims.TP:
			if cl.Old {
				continue
			}
			targets := cs.Targets(cl.Keys)
			if len(targets) == 0 {
				unver = append(unver, claimFinding{en: q + " (" + noCfg + ")", zh: q + "（" + noCfgZH + "）"})
				continue
			}
			have := map[int]bool{}
			for _, t := range targets {
				for _, sc := range t.Scenarios {
					for _, ss := range sc.Search {
						if cl.Kind == claims.TP {
							for _, tp := range ss.TPs() {
								have[tp] = true
							}
						} else {
							for _, c := range ss.Conc {
								have[c] = true
							}
						}
					}
				}
			}
			var miss []int
			for _, n := range cl.Ints {
				if !have[n] {
					miss = append(miss, n)
				}
			}
			if len(miss) == 0 {
				verified["search space"]++
				continue
			}
			what := "conc"
			if cl.Kind == claims.TP {
				what = "TP"
			}
			name := targets[0].Key
			if len(targets) > 1 {
				name = fmt.Sprintf("%d affected configs", len(targets))
			}
			contra = append(contra, claimFinding{
				en: fmt.Sprintf("Body says %q but %s has no %s %s at %s; please correct the description.", q, name, what, claims.JoinInts(miss), at),
				zh: fmt.Sprintf("正文称 %q，但 %s 在 %s 没有 %s %s；请更正描述。", q, name, at, what, claims.JoinInts(miss)),
				ev: checks.Evidence{Label: "body line " + fmt.Sprint(cl.Line), Value: q}})
		case claims.Run:
			if cl.RunRepo != "" && !strings.EqualFold(cl.RunRepo, pr.FullName()) {
				contra = append(contra, claimFinding{
					en: fmt.Sprintf("Body cites run %d of %s, not of %s; please correct the description.", cl.RunID, cl.RunRepo, pr.FullName()),
					zh: fmt.Sprintf("正文引用的运行 %d 属于 %s，而不是 %s；请更正描述。", cl.RunID, cl.RunRepo, pr.FullName())})
				continue
			}
			run, err := pr.Source.WorkflowRun(ctx, cl.RunID)
			if err != nil {
				msg := checks.Quote(err.Error(), 80)
				unver = append(unver, claimFinding{en: fmt.Sprintf("run %d (%s)", cl.RunID, msg), zh: fmt.Sprintf("运行 %d（%s）", cl.RunID, msg)})
				continue
			}
			if !commitsRead {
				commits, commitsErr = pr.Source.Commits(ctx)
				commitsRead = true
			}
			ev := checks.Evidence{Label: fmt.Sprintf("run %d", cl.RunID), URL: run.HTMLURL, Value: run.Conclusion + " @ " + checks.Short(run.HeadSHA)}
			switch {
			case commitsErr != nil:
				unver = append(unver, claimFinding{en: fmt.Sprintf("run %d (PR commits unreadable)", cl.RunID), zh: fmt.Sprintf("运行 %d（无法读取 PR 提交）", cl.RunID)})
			case !commits.Has(run.HeadSHA) && commits.Truncated:
				unver = append(unver, claimFinding{en: fmt.Sprintf("run %d (commit list truncated)", cl.RunID), zh: fmt.Sprintf("运行 %d（提交列表被截断）", cl.RunID)})
			case !commits.Has(run.HeadSHA):
				contra = append(contra, claimFinding{
					en: fmt.Sprintf("Body cites run %d but its head %s is not a commit of this PR; please correct the description.", cl.RunID, checks.Short(run.HeadSHA)),
					zh: fmt.Sprintf("正文引用了运行 %d，但其头提交 %s 不是本 PR 的提交；请更正描述。", cl.RunID, checks.Short(run.HeadSHA)), ev: ev})
			case cl.SaysPass && run.Conclusion != "success":
				concl := run.Conclusion
				if concl == "" {
					concl = run.Status
				}
				contra = append(contra, claimFinding{
					en: fmt.Sprintf("Body says run %d passed but its conclusion is %s; please correct the description.", cl.RunID, concl),
					zh: fmt.Sprintf("正文称运行 %d 已通过，但其结论为 %s；请更正描述。", cl.RunID, concl), ev: ev})
			default:
				verified["runs"]++
			}
		case claims.AL:
			if cl.Old {
				continue
			}
			if !haveGolden || len(golden.Values) == 0 {
				unver = append(unver, claimFinding{en: "AL " + cl.Token + " (no golden value selected by Check 11)", zh: "接受长度 " + cl.Token + "（检查 11 未选出黄金值）"})
				continue
			}
			if golden.Has(cl.AL) {
				verified["AL"]++
				continue
			}
			g := golden.Values[0]
			contra = append(contra, claimFinding{
				en: fmt.Sprintf("Body says %q but golden %s %s[%d] is %.2f; please correct the description.", q, g.Stem, g.Mode, g.N, g.AL),
				zh: fmt.Sprintf("正文称 %q，但黄金曲线 %s %s[%d] 为 %.2f；请更正描述。", q, g.Stem, g.Mode, g.N, g.AL),
				ev: checks.Evidence{Label: "golden AL", Value: fmt.Sprintf("%s %s[%d] = %.2f", g.Stem, g.Mode, g.N, g.AL)}})
		}
	}
	var ev []checks.Evidence
	for _, f := range append(append([]claimFinding(nil), contra...), unver...) {
		if f.ev.Label != "" {
			ev = append(ev, f.ev)
		}
	}
	switch {
	case len(contra) > 0:
		return checks.WarnR(checks.Text{EN: contra[0].en, ZH: contra[0].zh}.AndMore(len(contra)-1), ev...)
	case len(unver) > 0:
		en := make([]string, len(unver))
		zh := make([]string, len(unver))
		for i, f := range unver {
			en[i], zh[i] = f.en, f.zh
		}
		return checks.WarnR(checks.T("could not verify "+listFew(en)+".", "无法核实 "+listFew(zh)+"。"), ev...)
	}
	kinds := make([]string, 0, len(verified))
	total := 0
	for k, n := range verified {
		kinds = append(kinds, k)
		total += n
	}
	sort.Strings(kinds)
	kindsZH := make([]string, len(kinds))
	for i, k := range kinds {
		kindsZH[i] = k // the scenario runner's Chinese scan flags a kind with no entry
		if zh, ok := claimKindZH[k]; ok {
			kindsZH[i] = zh
		}
	}
	if total == 0 {
		// Every claim was labelled as a previous value.
		return checks.NAR(checks.T("PR body makes no configuration or validation claims.", "PR 正文没有关于配置或验证的声明。"))
	}
	return checks.PassR(checks.T(fmt.Sprintf("All %d description claims match the PR at %s (%s).", total, at, strings.Join(kinds, ", ")),
		fmt.Sprintf("描述中的全部 %d 项声明与 %s 的 PR 一致（%s）。", total, at, strings.Join(kindsZH, "、"))))
}

// claimKindZH names the kinds of claims counted in verified.
var claimKindZH = map[string]string{
	"config keys":  "配置键",
	"images":       "镜像",
	"search space": "搜索空间",
	"runs":         "运行",
	"AL":           "接受长度",
}

// bestImage picks the target whose image repository matches the claim,
// else the first.
func bestImage(targets []*repo.ConfigEntry, img string) *repo.ConfigEntry {
	for _, t := range targets {
		if imageName(t.Image) == imageName(img) {
			return t
		}
	}
	return targets[0]
}

// imageName is an image reference without its tag, lowercased, as claims
// and configs are compared.
func imageName(img string) string {
	img = strings.ToLower(img)
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		return img[:i]
	}
	return img
}

// listFew joins at most three items and counts the rest.
func listFew(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:3], "; ") + fmt.Sprintf("; +%d more", len(items)-3)
}

// errText prints an error for a reason, "unknown error" for nil.
func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
