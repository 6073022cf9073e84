package checklist

import (
	"context"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Labels is row 6: the PR has every label the item requires and none it
// forbids.
var Labels = verifierRow(6, checks.T("Labels", "标签"), KindLabels, judgeLabels)

func judgeLabels(_ context.Context, pr *checks.PR, it Item) checks.Result {
	for _, l := range it.Present {
		if !pr.HasLabel(l) {
			return checks.FailR(checks.T("the PR lacks the label "+l, "PR 缺少标签 "+checks.Code(l)))
		}
	}
	for _, l := range it.Absent {
		if pr.HasLabel(l) {
			return checks.FailR(checks.T("the PR has the label "+l, "PR 带有标签 "+checks.Code(l)))
		}
	}
	var parts []string
	if len(it.Present) > 0 {
		parts = append(parts, "has "+strings.Join(it.Present, ", "))
	}
	if len(it.Absent) > 0 {
		parts = append(parts, "lacks "+strings.Join(it.Absent, ", "))
	}
	return checks.PassR(checks.T("the PR "+strings.Join(parts, " and "), "PR 的标签符合要求"))
}
