package checks

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// DescriptionCheck is row 15 of the InferenceX preset (advisory): the PR
// description's technical claims must match what the PR actually does.
// Check 11's golden values are read for AL claims.
func DescriptionCheck() Check { return row(15, runDescription, 11) }

// dcFinding is one contradicted or unverifiable claim.
type dcFinding struct {
	en, zh string
	ev     Evidence
}

func runDescription(ctx context.Context, pr *PR) Result {
	cs, err := pr.ChangeSet(ctx)
	if err != nil || cs == nil {
		return WarnR(T("PR description could not be verified: change set unavailable: "+specErrText(err),
			"无法验证 PR 描述：变更集不可用："+specErrText(err)))
	}
	isKey := func(k string) bool { return cs.MasterHead[k] != nil || cs.MasterBase[k] != nil }
	claims := ExtractClaims(pr.Body, isKey)
	if len(claims) == 0 {
		return NAR(T("PR body makes no configuration or validation claims.", "PR 正文没有关于配置或验证的声明。"))
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
	at := Short(pr.HeadSHA)
	// Without a readable master config, "no affected config" would hide
	// the cause; name the file instead.
	noCfg, noCfgZH := "no affected config", "没有受影响的配置"
	if ps := csMasterProblems(pr, cs); len(ps) > 0 {
		noCfg, noCfgZH = ps[0].Path+" unreadable", ps[0].Path+" 无法读取"
	}
	var golden GoldenALData
	var haveGolden bool
	if r, ok := pr.Prior(11); ok {
		golden, haveGolden = r.Data.(GoldenALData)
	}
	var commits CommitList
	var commitsErr error
	var commitsRead bool

	var contra, unver []dcFinding
	verified := map[string]int{}
	for _, cl := range claims {
		q := dcQuote(dcClaimLabel(cl), 80)
		switch cl.Kind {
		case ClaimConfig:
			if cl.Old {
				continue
			}
			if inPR[cl.Token] {
				verified["config keys"]++
				continue
			}
			contra = append(contra, dcFinding{
				en: fmt.Sprintf("Body names %s but this PR neither changes nor selects it at %s; please correct the description.", cl.Token, at),
				zh: fmt.Sprintf("正文提到了 %s，但本 PR 在 %s 既未修改也未选中该配置；请更正描述。", cl.Token, at),
				ev: Evidence{Label: "body line " + fmt.Sprint(cl.Line), Value: q}})
		case ClaimImage:
			if cl.Old {
				continue
			}
			targets := dcTargets(cs, cl.Keys)
			if len(targets) == 0 {
				unver = append(unver, dcFinding{en: "image " + cl.Token + " (" + noCfg + ")", zh: "镜像 " + cl.Token + "（" + noCfgZH + "）"})
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
			t := dcBestImage(targets, cl.Token)
			actual := t.Image
			if dcRepo(actual) == dcRepo(cl.Token) {
				actual = actual[strings.LastIndex(actual, ":")+1:]
			}
			contra = append(contra, dcFinding{
				en: fmt.Sprintf("Body says %q but %s uses %s at %s; please correct the description.", q, t.Key, actual, at),
				zh: fmt.Sprintf("正文称 %q，但 %s 在 %s 使用的是 %s；请更正描述。", q, t.Key, at, actual),
				ev: Evidence{Label: "image of " + t.Key, Value: t.Image}})
		case ClaimConc, ClaimTP:
			if cl.Old {
				continue
			}
			targets := dcTargets(cs, cl.Keys)
			if len(targets) == 0 {
				unver = append(unver, dcFinding{en: q + " (" + noCfg + ")", zh: q + "（" + noCfgZH + "）"})
				continue
			}
			have := map[int]bool{}
			for _, t := range targets {
				for _, sc := range t.Scenarios {
					for _, ss := range sc.Search {
						if cl.Kind == ClaimTP {
							for _, tp := range dcSearchTPs(ss) {
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
			if cl.Kind == ClaimTP {
				what = "TP"
			}
			name := targets[0].Key
			if len(targets) > 1 {
				name = fmt.Sprintf("%d affected configs", len(targets))
			}
			contra = append(contra, dcFinding{
				en: fmt.Sprintf("Body says %q but %s has no %s %s at %s; please correct the description.", q, name, what, clJoin(miss), at),
				zh: fmt.Sprintf("正文称 %q，但 %s 在 %s 没有 %s %s；请更正描述。", q, name, at, what, clJoin(miss)),
				ev: Evidence{Label: "body line " + fmt.Sprint(cl.Line), Value: q}})
		case ClaimRun:
			if cl.RunRepo != "" && !strings.EqualFold(cl.RunRepo, pr.FullName()) {
				contra = append(contra, dcFinding{
					en: fmt.Sprintf("Body cites run %d of %s, not of %s; please correct the description.", cl.RunID, cl.RunRepo, pr.FullName()),
					zh: fmt.Sprintf("正文引用的运行 %d 属于 %s，而不是 %s；请更正描述。", cl.RunID, cl.RunRepo, pr.FullName())})
				continue
			}
			run, err := pr.Source.WorkflowRun(ctx, cl.RunID)
			if err != nil {
				msg := dcQuote(err.Error(), 80)
				unver = append(unver, dcFinding{en: fmt.Sprintf("run %d (%s)", cl.RunID, msg), zh: fmt.Sprintf("运行 %d（%s）", cl.RunID, msg)})
				continue
			}
			if !commitsRead {
				commits, commitsErr = pr.Source.Commits(ctx)
				commitsRead = true
			}
			ev := Evidence{Label: fmt.Sprintf("run %d", cl.RunID), URL: run.HTMLURL, Value: run.Conclusion + " @ " + Short(run.HeadSHA)}
			switch {
			case commitsErr != nil:
				unver = append(unver, dcFinding{en: fmt.Sprintf("run %d (PR commits unreadable)", cl.RunID), zh: fmt.Sprintf("运行 %d（无法读取 PR 提交）", cl.RunID)})
			case !commits.Has(run.HeadSHA) && commits.Truncated:
				unver = append(unver, dcFinding{en: fmt.Sprintf("run %d (commit list truncated)", cl.RunID), zh: fmt.Sprintf("运行 %d（提交列表被截断）", cl.RunID)})
			case !commits.Has(run.HeadSHA):
				contra = append(contra, dcFinding{
					en: fmt.Sprintf("Body cites run %d but its head %s is not a commit of this PR; please correct the description.", cl.RunID, Short(run.HeadSHA)),
					zh: fmt.Sprintf("正文引用了运行 %d，但其 head %s 不是本 PR 的提交；请更正描述。", cl.RunID, Short(run.HeadSHA)), ev: ev})
			case cl.SaysPass && run.Conclusion != "success":
				concl := run.Conclusion
				if concl == "" {
					concl = run.Status
				}
				contra = append(contra, dcFinding{
					en: fmt.Sprintf("Body says run %d passed but its conclusion is %s; please correct the description.", cl.RunID, concl),
					zh: fmt.Sprintf("正文称运行 %d 已通过，但其结论为 %s；请更正描述。", cl.RunID, concl), ev: ev})
			default:
				verified["runs"]++
			}
		case ClaimAL:
			if cl.Old {
				continue
			}
			if !haveGolden || len(golden.Values) == 0 {
				unver = append(unver, dcFinding{en: "AL " + cl.Token + " (no golden value selected by Check 11)", zh: "接受长度 " + cl.Token + "（检查 11 未选出黄金值）"})
				continue
			}
			if golden.Has(cl.AL) {
				verified["AL"]++
				continue
			}
			g := golden.Values[0]
			contra = append(contra, dcFinding{
				en: fmt.Sprintf("Body says %q but golden %s %s[%d] is %.2f; please correct the description.", q, g.Stem, g.Mode, g.N, g.AL),
				zh: fmt.Sprintf("正文称 %q，但黄金曲线 %s %s[%d] 为 %.2f；请更正描述。", q, g.Stem, g.Mode, g.N, g.AL),
				ev: Evidence{Label: "golden AL", Value: fmt.Sprintf("%s %s[%d] = %.2f", g.Stem, g.Mode, g.N, g.AL)}})
		}
	}
	var ev []Evidence
	for _, f := range append(append([]dcFinding(nil), contra...), unver...) {
		if f.ev.Label != "" {
			ev = append(ev, f.ev)
		}
	}
	switch {
	case len(contra) > 0:
		t := Text{EN: contra[0].en, ZH: contra[0].zh}
		if len(contra) > 1 {
			t.EN += fmt.Sprintf(" (+%d more)", len(contra)-1)
			t.ZH += fmt.Sprintf("（另有 %d 项）", len(contra)-1)
		}
		return WarnR(t, ev...)
	case len(unver) > 0:
		en := make([]string, len(unver))
		zh := make([]string, len(unver))
		for i, f := range unver {
			en[i], zh[i] = f.en, f.zh
		}
		return WarnR(T("could not verify "+dcList(en)+".", "无法核实 "+dcList(zh)+"。"), ev...)
	}
	kinds := make([]string, 0, len(verified))
	total := 0
	for k, n := range verified {
		kinds = append(kinds, k)
		total += n
	}
	sort.Strings(kinds)
	if total == 0 {
		// Every claim was labelled as a previous value.
		return NAR(T("PR body makes no configuration or validation claims.", "PR 正文没有关于配置或验证的声明。"))
	}
	return PassR(T(fmt.Sprintf("All %d description claims match the PR at %s (%s).", total, at, strings.Join(kinds, ", ")),
		fmt.Sprintf("描述中的全部 %d 项声明与 %s 的 PR 一致（%s）。", total, at, strings.Join(kinds, ", "))))
}

// dcTargets are the configs a claim is about: the keys named on its line
// that exist at head, else every affected config.
func dcTargets(cs *ChangeSet, keys []string) []*ConfigEntry {
	var out []*ConfigEntry
	for _, k := range keys {
		if c := cs.MasterHead[k]; c != nil {
			out = append(out, c)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, c := range cs.Affected {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// dcBestImage picks the target whose image repository matches the claim,
// else the first.
func dcBestImage(targets []*ConfigEntry, img string) *ConfigEntry {
	for _, t := range targets {
		if dcRepo(t.Image) == dcRepo(img) {
			return t
		}
	}
	return targets[0]
}

func dcRepo(img string) string {
	img = strings.ToLower(img)
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		return img[:i]
	}
	return img
}

func dcClaimLabel(c Claim) string {
	switch c.Kind {
	case ClaimImage:
		return "image " + c.Token
	case ClaimConc:
		return "conc " + c.Token
	case ClaimTP:
		return "TP" + c.Token
	case ClaimRun:
		return "run " + c.Token
	case ClaimAL:
		return "AL " + c.Token
	}
	return c.Token
}

// dcList joins at most three items and counts the rest.
func dcList(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:3], "; ") + fmt.Sprintf("; +%d more", len(items)-3)
}

// dcSearchTPs lists the tensor-parallel sizes of one search-space element:
// its own tp and, for multi-node disagg elements, the tp of its prefill and
// decode blocks (where multi-node entries carry it).
func dcSearchTPs(ss SearchSpace) []int {
	var out []int
	if ss.TP > 0 {
		out = append(out, ss.TP)
	}
	for _, role := range []string{"prefill", "decode"} {
		if rm, ok := ss.Fields[role].(map[string]any); ok {
			if tp := cfgInt(rm["tp"]); tp > 0 {
				out = append(out, tp)
			}
		}
	}
	return out
}
