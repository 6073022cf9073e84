package checklist

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// CIGreen is row 2: the named check runs succeeded on the head commit, or
// (commit: any) all of them on one commit still in the PR.
var CIGreen = verifierRow(2, checks.T("CI green", "CI 通过"), KindChecks, judgeCI)

func judgeCI(ctx context.Context, pr *checks.PR, it Item) checks.Result {
	if it.Commit != "any" {
		runs, err := pr.Source.CheckRuns(ctx, pr.HeadSHA)
		if err != nil {
			return unverified("reading the check runs of "+checks.Short(pr.HeadSHA), "读取 "+checks.Short(pr.HeadSHA)+" 的检查运行失败", err)
		}
		if bad := notGreen(runs, it.Names); bad.EN != "" {
			return checks.FailR(checks.T(bad.EN+" on the head commit "+checks.Short(pr.HeadSHA), "头部提交 "+checks.Short(pr.HeadSHA)+" 上 "+bad.ZH))
		}
		return checks.PassR(checks.T(
			fmt.Sprintf("%s succeeded on the head commit %s", strings.Join(it.Names, ", "), checks.Short(pr.HeadSHA)),
			fmt.Sprintf("%s 在头部提交 %s 上成功", checks.Code(strings.Join(it.Names, ", ")), checks.Short(pr.HeadSHA))),
			checks.Evidence{Label: "commit", Value: pr.HeadSHA})
	}
	list, err := pr.Source.Commits(ctx)
	if err != nil {
		return unverified("listing the PR's commits", "列出 PR 的提交失败", err)
	}
	// Newest first: the most recent commit that was green is the claim.
	for i := len(list.Commits) - 1; i >= 0; i-- {
		sha := list.Commits[i].SHA
		runs, err := pr.Source.CheckRuns(ctx, sha)
		if err != nil {
			return unverified("reading the check runs of "+checks.Short(sha), "读取 "+checks.Short(sha)+" 的检查运行失败", err)
		}
		if notGreen(runs, it.Names).EN == "" {
			return checks.PassR(checks.T(
				fmt.Sprintf("%s succeeded on %s, a commit of the PR", strings.Join(it.Names, ", "), checks.Short(sha)),
				fmt.Sprintf("%s 在 PR 的提交 %s 上成功", checks.Code(strings.Join(it.Names, ", ")), checks.Short(sha))),
				checks.Evidence{Label: "commit", Value: sha})
		}
	}
	if list.Truncated {
		return checks.Unverified(checks.T("GitHub lists only the PR's oldest 250 commits, and none of them has "+strings.Join(it.Names, ", ")+" green",
			"GitHub 只列出 PR 最早的 250 个提交，其中没有提交的 "+checks.Code(strings.Join(it.Names, ", "))+" 全部通过"))
	}
	return checks.FailR(checks.T("no commit of the PR has "+strings.Join(it.Names, ", ")+" all succeeded",
		"PR 中没有提交的 "+checks.Code(strings.Join(it.Names, ", "))+" 全部成功"))
}

// notGreen says which of names did not succeed among runs (empty when all
// did). A name's latest run decides: a re-run replaces the earlier one.
func notGreen(runs []checks.CheckRun, names []string) checks.Text {
	for _, name := range names {
		var latest *checks.CheckRun
		for i := range runs {
			r := &runs[i]
			if r.Name == name && (latest == nil || r.ID > latest.ID) {
				latest = r
			}
		}
		switch {
		case latest == nil:
			return checks.T(fmt.Sprintf("no check run %q", name), "没有检查运行 "+checks.Code(name))
		case latest.Status != "completed":
			return checks.T(fmt.Sprintf("%q has not completed (%s)", name, latest.Status), checks.Code(name)+" 尚未完成（"+checks.Code(latest.Status)+"）")
		case latest.Conclusion != "success":
			return checks.T(fmt.Sprintf("%q concluded %s", name, latest.Conclusion), checks.Code(name)+" 的结论为 "+checks.Code(latest.Conclusion))
		}
	}
	return checks.Text{}
}
