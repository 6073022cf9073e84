package inferencex

import (
	"context"
	"fmt"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// rerunDocs is GitHub's page on re-running a workflow's jobs.
const rerunDocs = "https://docs.github.com/actions/managing-workflow-runs/re-running-workflows-and-jobs"

// remind sends the recipe reminder to pull requests that touch benchmark
// configuration: master configs, benchmark files or the perf changelog.
func remind(ctx context.Context, pr *checks.PR) (checks.Reminder, bool, error) {
	l, err := repo.LayoutFact.Of(ctx, pr)
	if err != nil {
		return checks.Reminder{}, false, err
	}
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return checks.Reminder{}, false, fmt.Errorf("listing PR files: %w", err)
	}
	r := checks.Reminder{Checklist: l.Checklist, CodeOwners: l.CodeOwners, Text: reminder}
	return r, repo.TouchesBenchmarks(l, files), nil
}

// reminder is the recipe reminder: who to ask for a sign-off, the labels
// that start a sweep, and who keeps the jobs green after the merge.
func reminder(f checks.ReminderFacts) checks.Text {
	var en, zh string
	if f.Author != "" {
		en, zh = ", @"+f.Author, "，@"+f.Author
	}
	en = "Thanks for this benchmark change" + en + "! Before it can merge:\n\n"
	zh = "感谢提交这项基准测试改动" + zh + "！合并之前请注意：\n\n"
	if f.ShowReview {
		en += fmt.Sprintf("- **Review:** ask the CODEOWNER from your company (see [CODEOWNERS](%s)) to review this PR and post a sign-off that follows the latest [PR review checklist](%s) before you ping a core maintainer. Verification starts only when the sign-off follows that template, including the exact phrase `%s`.\n",
			f.CodeOwnersURL, f.ChecklistURL, f.SignOffPhrase)
		zh += fmt.Sprintf("- **审核：**请你所在公司的 CODEOWNER（见 [CODEOWNERS](%s)）审核此 PR，并按照最新的 [PR 审核检查清单](%s) 发布签核，然后再联系核心维护者。只有签核遵循该模板时才会触发验证，并且必须保留英文原句 `%s`，不要翻译。\n",
			f.CodeOwnersURL, f.ChecklistURL, f.SignOffPhrase)
	}
	en += "- **PR verification:** sweeps run only on labeled PRs. Add `full-sweep-fail-fast` to run the full sweep and stop at the first failure; use `full-sweep-enabled` only when matrix jobs must keep running past failures.\n" +
		"- **After merging:** you are responsible for every GitHub Actions job passing after the merge. Re-run flaky jobs ([how to re-run a job](" + rerunDocs + ")) and follow up on real failures."
	zh += "- **PR 验证：**只有带标签的 PR 才会运行扫描。添加 `full-sweep-fail-fast` 运行完整扫描并在首个失败时停止；只有在需要矩阵任务越过失败继续运行时才使用 `full-sweep-enabled`。\n" +
		"- **合并之后：**你需要负责合并后所有 GitHub Actions 任务通过。请重新运行偶发失败的任务（[如何重新运行任务](" + rerunDocs + ")），并跟进真实的失败。"
	return checks.T(en, zh)
}
