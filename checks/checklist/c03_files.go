package checklist

import (
	"context"
	"fmt"

	"github.com/verdict-bot/verdict/checks"
)

// ChangedFiles is row 3: when a changed file matches the item's when
// patterns (or always, without them), some changed file that is not
// removed matches require, and no changed file matches forbid.
var ChangedFiles = verifierRow(3, checks.T("Changed files", "变更文件"), KindFiles, judgeFiles)

func judgeFiles(ctx context.Context, pr *checks.PR, it Item) checks.Result {
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return unverified("listing the changed files", "列出变更文件失败", err)
	}
	if len(it.When) > 0 {
		applies := false
		for _, f := range files {
			applies = applies || matchAny(it.When, f.Path) || (f.PreviousPath != "" && matchAny(it.When, f.PreviousPath))
		}
		if !applies {
			return checks.NAR(checks.T("no changed file matches its when patterns", "没有变更文件匹配其 when 模式"))
		}
	}
	for _, f := range files {
		if matchAny(it.Forbid, f.Path) {
			return checks.FailR(checks.T(f.Path+" changed, which the item forbids", f.Path+" 被修改，而该项禁止修改它"))
		}
	}
	if len(it.Require) == 0 {
		return checks.PassR(checks.T("no forbidden file changed", "没有修改被禁止的文件"))
	}
	for _, f := range files {
		if f.Status != "removed" && matchAny(it.Require, f.Path) {
			return checks.PassR(checks.T(f.Path+" changed", f.Path+" 已修改"), checks.Evidence{Label: "file", Value: f.Path})
		}
	}
	return checks.FailR(checks.T(
		fmt.Sprintf("no changed file matches %v", it.Require),
		fmt.Sprintf("没有变更文件匹配 %v", it.Require)))
}
