package checks

import (
	"context"
	"fmt"
	"strings"
)

// checklistOtherRows are the rows Check 5 reads to excuse conditional items:
// every other row of the preset.
var checklistOtherRows = []int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// ChecklistTemplateCheck is row 5 of the InferenceX preset: the sign-off
// carries every item of the current English checklist template, checked,
// or unchecked with a reason (INFERENCEX.md Check 5). The template is read
// from the default branch, never from the PR or the stale _zh copy.
func ChecklistTemplateCheck() Check {
	return row(5, runChecklistTemplate, checklistOtherRows...)
}

// maxItemEvidence caps per-item evidence rows.
const maxItemEvidence = 20

func runChecklistTemplate(ctx context.Context, pr *PR) Result {
	path := pr.Layout.Checklist
	if path == "" {
		return Unverified(T("no checklist template path is configured", "未配置检查清单模板路径"))
	}
	if pr.DefaultSHA == "" {
		return Unverified(T("the default branch commit is unknown, so "+path+" cannot be read", "默认分支提交未知，无法读取 "+path))
	}
	at := path + "@" + Short(pr.DefaultSHA)
	data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, path)
	if err != nil {
		return Unverified(T(fmt.Sprintf("checklist template %s is unreadable: %v", at, err), fmt.Sprintf("无法读取检查清单模板 %s：%v", at, err)))
	}
	tpl, err := ExtractChecklistTemplate(string(data))
	if err != nil {
		return Unverified(T(fmt.Sprintf("checklist template %s: %v", at, err), fmt.Sprintf("检查清单模板 %s 无法解析：%v", at, err)))
	}
	ev := []Evidence{templateEvidence(pr, path, len(tpl))}

	got := pr.SignOff.Items
	if len(got) == 0 {
		return FailR(T(
			"No checklist items found in the sign-off; copy the current "+path+".",
			"签署中未找到检查清单条目；请复制最新的 "+path+"。"), ev...)
	}
	match := MatchChecklist(tpl, got)

	var missing []string
	for i, j := range match {
		if j < 0 {
			missing = append(missing, ChecklistShortName(tpl[i].Text))
			if len(ev) <= maxItemEvidence {
				ev = append(ev, Evidence{Label: "Missing item", Value: clipItemText(tpl[i].Text, 160)})
			}
		}
	}
	if len(missing) > 0 {
		names := quoteLabels(missing)
		noun := countNoun(len(missing), "item", "items")
		return FailR(T(
			fmt.Sprintf("Stale checklist: missing %s %s; copy the current %s.", names, noun, path),
			fmt.Sprintf("检查清单已过时：缺少 %s 条目；请复制最新的 %s。", strings.ReplaceAll(names, `", "`, `"、"`), path)), ev...)
	}

	var excused, unexplained []string
	for i, j := range match {
		if got[j].Checked {
			continue
		}
		name := ChecklistShortName(tpl[i].Text)
		if why, ok := excusedItem(pr, tpl[i].Text); ok {
			excused = append(excused, name)
			ev = append(ev, Evidence{Label: "Unchecked, not applicable", Value: fmt.Sprintf("%q (%s)", name, why)})
			continue
		}
		unexplained = append(unexplained, name)
		ev = append(ev, Evidence{Label: fmt.Sprintf("Unchecked (sign-off line %d)", got[j].Line), Value: clipItemText(got[j].Text, 160)})
	}
	n := len(tpl)
	if len(unexplained) > 0 {
		names := quoteLabels(unexplained)
		namesZH := strings.ReplaceAll(names, `", "`, `"、"`)
		if pr.SignOff.DetailEmpty {
			return FailR(T(
				"Unchecked items without explanation: "+names+".",
				"存在未勾选且未说明的条目："+namesZH+"。"), ev...)
		}
		// Whether the Additional detail text justifies the unchecked item
		// is judgment; fail closed through NeedsReview.
		return ReviewR(T(
			"unchecked items explained only in the Additional detail section: "+names+".",
			"未勾选的条目仅在 Additional detail section 中说明："+namesZH+"。"), ev...)
	}
	if len(excused) > 0 {
		names := quoteLabels(excused)
		return PassR(T(
			fmt.Sprintf("All %d current template items present; unchecked %s %s not applicable.", n, names, countNoun(len(excused), "item is", "items are")),
			fmt.Sprintf("当前模板的全部 %d 个条目均已存在；未勾选的 %s 条目不适用。", n, strings.ReplaceAll(names, `", "`, `"、"`))), ev...)
	}
	return PassR(T(
		fmt.Sprintf("All %d current template items present and checked.", n),
		fmt.Sprintf("当前模板的全部 %d 个条目均已存在并勾选。", n)), ev...)
}

// excusedItem reports whether an unchecked template item is conditional on
// something the bot itself found not applicable, and why.
func excusedItem(pr *PR, text string) (string, bool) {
	n, ok := conditionalItem(text)
	if !ok {
		return "", false
	}
	if n >= 0 {
		r, ok := pr.Prior(n)
		if ok && r.Status == NA {
			return fmt.Sprintf("Check %d N/A", n), true
		}
		return "", false
	}
	// "If any of the above cannot be satisfied": nothing to explain when no
	// other row needs an exception. The reuse command (4) and the PR
	// description (15) are no checklist criteria: their advisory warnings
	// must not turn into a blocking Check 5 failure.
	for _, o := range checklistOtherRows {
		if o == 4 || o == 15 {
			continue
		}
		if r, ok := pr.Prior(o); ok && (r.Status == Fail || r.Status == Warn) {
			return "", false
		}
	}
	return "no other check needs an exception", true
}

func templateEvidence(pr *PR, path string, n int) Evidence {
	e := Evidence{Label: "Checklist template", Value: fmt.Sprintf("%s@%s (%d items)", path, Short(pr.DefaultSHA), n)}
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
