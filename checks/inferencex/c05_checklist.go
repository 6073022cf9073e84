package inferencex

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// ChecklistTemplate is row 5: the sign-off carries every item of the
// current English checklist template, checked, or unchecked with a reason
// (RULES.md, Check 5). The template is read from the default branch, never
// from the PR or the stale _zh copy. It reads every other row to excuse
// conditional items.
var ChecklistTemplate = &checks.Check{
	Number:  5,
	SignOff: checks.SignOffJudged,
	Name:    checks.Text{EN: "Checklist template", ZH: "检查清单模板"},
	Requires: []checks.Requirement{repo.LayoutFact,
		Codeowner, PassingSweep, Evals, UpstreamRecipe, ReuseCommand, UpstreamImages, DeprecatedModels, ArchitectureHacks,
		ChatTemplate, EnginePatches, GoldenAcceptance, AppendOnly, DraftPrecision, ParetoCoverage, Description},
	Run: runChecklistTemplate,
}

// maxItemEvidence caps per-item evidence rows.
const maxItemEvidence = 20

func runChecklistTemplate(ctx context.Context, pr *checks.PR) checks.Result {
	l, bad := layoutOf(ctx, pr)
	if bad != nil {
		return *bad
	}
	path := l.Checklist
	if path == "" {
		return checks.Unverified(checks.T("no checklist template path is configured", "未配置检查清单模板路径"))
	}
	if pr.DefaultSHA == "" {
		return checks.Unverified(checks.T("the default branch commit is unknown, so "+path+" cannot be read", "默认分支提交未知，无法读取 "+path))
	}
	at := path + "@" + checks.Short(pr.DefaultSHA)
	data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, path)
	if err != nil {
		return checks.Unverified(checks.T(fmt.Sprintf("checklist template %s is unreadable: %v", at, err), fmt.Sprintf("无法读取检查清单模板 %s：%s", at, checks.Code(err.Error()))))
	}
	tpl, err := signoff.ExtractTemplate(string(data))
	if err != nil {
		return checks.Unverified(checks.T(fmt.Sprintf("checklist template %s: %v", at, err), fmt.Sprintf("检查清单模板 %s 无法解析：%s", at, checks.Code(err.Error()))))
	}
	ev := []checks.Evidence{templateEvidence(pr, path, len(tpl))}

	if why, bad := signoff.Unreadable(pr.SignOff); bad {
		return checks.Unverified(why).WithEvidence(ev...)
	}
	got := pr.SignOff.Items
	if len(got) == 0 {
		return checks.FailR(checks.T(
			"No checklist items found in the sign-off; copy the current "+path+".",
			"签署中未找到检查清单条目；请复制最新的 "+path+"。"), ev...)
	}
	match := signoff.MatchItems(tpl, got)

	var missing []string
	for i, j := range match {
		if j < 0 {
			missing = append(missing, signoff.ItemLabel(tpl[i].Text))
			if len(ev) <= maxItemEvidence {
				ev = append(ev, checks.Evidence{Label: "Missing item", Value: clipItemText(tpl[i].Text, 160)})
			}
		}
	}
	if len(missing) > 0 {
		names := signoff.QuoteLabels(missing)
		noun := countNoun(len(missing), "item", "items")
		return checks.FailR(checks.T(
			fmt.Sprintf("Stale checklist: missing %s %s; copy the current %s.", names, noun, path),
			fmt.Sprintf("检查清单已过时：缺少 %s 条目；请复制最新的 %s。", signoff.QuoteLabelsZH(missing), path)), ev...)
	}

	var excused, unexplained []string
	for i, j := range match {
		if got[j].Checked {
			continue
		}
		name := signoff.ItemLabel(tpl[i].Text)
		if why, ok := excusedItem(ctx, pr, tpl[i].Text); ok {
			excused = append(excused, name)
			ev = append(ev, checks.Evidence{Label: "Unchecked, not applicable", Value: fmt.Sprintf("%q (%s)", name, why)})
			continue
		}
		unexplained = append(unexplained, name)
		ev = append(ev, checks.Evidence{Label: fmt.Sprintf("Unchecked (sign-off line %d)", got[j].Line), Value: clipItemText(got[j].Text, 160)})
	}
	n := len(tpl)
	if len(unexplained) > 0 {
		names := signoff.QuoteLabels(unexplained)
		namesZH := signoff.QuoteLabelsZH(unexplained)
		if pr.SignOff.DetailEmpty {
			return checks.FailR(checks.T(
				"Unchecked items without explanation: "+names+".",
				"存在未勾选且未说明的条目："+namesZH+"。"), ev...)
		}
		// Whether the Additional detail text justifies the unchecked item
		// is judgment; fail closed through NeedsReview.
		return checks.ReviewR(checks.T(
			"unchecked items explained only in the Additional detail section: "+names+".",
			"未勾选的条目仅在「Additional detail」部分中说明："+namesZH+"。"), ev...)
	}
	if len(excused) > 0 {
		names := signoff.QuoteLabels(excused)
		return checks.PassR(checks.T(
			fmt.Sprintf("All %d current template items present; unchecked %s %s not applicable.", n, names, countNoun(len(excused), "item is", "items are")),
			fmt.Sprintf("当前模板的全部 %d 个条目均已存在；未勾选的 %s 条目不适用。", n, signoff.QuoteLabelsZH(excused))), ev...)
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("All %d current template items present and checked.", n),
		fmt.Sprintf("当前模板的全部 %d 个条目均已存在并勾选。", n)), ev...)
}

// excusedItem reports whether an unchecked template item is conditional on
// something the bot itself found not applicable, and why.
func excusedItem(ctx context.Context, pr *checks.PR, text string) (string, bool) {
	c, ok := conditionalItem(text)
	if !ok {
		return "", false
	}
	if c != nil {
		r, ok := pr.ResultOf(ctx, c)
		if ok && r.Status == checks.NA {
			return fmt.Sprintf("Check %d N/A", c.Number), true
		}
		return "", false
	}
	// "If any of the above cannot be satisfied": nothing to explain when no
	// other row needs an exception. The reuse command (4) and the PR
	// description (15) are no checklist criteria: their advisory warnings
	// must not turn into a blocking Check 5 failure.
	for _, o := range []*checks.Check{Codeowner, PassingSweep, Evals, UpstreamRecipe, UpstreamImages, DeprecatedModels,
		ArchitectureHacks, ChatTemplate, EnginePatches, GoldenAcceptance, AppendOnly, DraftPrecision, ParetoCoverage} {
		if r, ok := pr.ResultOf(ctx, o); ok && (r.Status == checks.Fail || r.Status == checks.Warn) {
			return "", false
		}
	}
	return "no other check needs an exception", true
}

// conditionalItem reports which bot-decidable condition, if any, a template
// item is conditional on: the row whose N/A excuses it, or nil for the "if
// any of the above cannot be satisfied" item (excused when no other row
// needs an exception). ok is false for unconditional items.
func conditionalItem(text string) (row *checks.Check, ok bool) {
	padded := " " + signoff.NormalizeItem(text)
	switch {
	case strings.Contains(padded, " append only"):
		return AppendOnly, true
	case strings.Contains(padded, " golden"):
		return GoldenAcceptance, true
	case strings.Contains(padded, " pareto"):
		return ParetoCoverage, true
	case strings.Contains(padded, " any of the above"),
		strings.HasPrefix(padded, " if any ") && strings.Contains(padded, " above "):
		// The catch-all exception item, however it is worded.
		return nil, true
	}
	return nil, false
}

func templateEvidence(pr *checks.PR, path string, n int) checks.Evidence {
	e := checks.Evidence{Label: "Checklist template", Value: fmt.Sprintf("%s@%s (%d items)", path, checks.Short(pr.DefaultSHA), n)}
	if pr.Owner != "" && pr.Repo != "" {
		e.URL = fmt.Sprintf("https://github.com/%s/%s/blob/%s/%s", pr.Owner, pr.Repo, pr.DefaultSHA, path)
	}
	return e
}

// clipItemText shortens s to at most n runes.
func clipItemText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
