package checklist

import (
	"context"
	"fmt"
	"regexp"

	"github.com/verdict-bot/verdict/checks"
)

// SignedOff is row 7: every commit of the PR carries a Developer
// Certificate of Origin trailer (Signed-off-by: Name <e-mail>).
var SignedOff = verifierRow(7, checks.T("Commits signed off", "提交已签署 DCO"), KindDCO, judgeDCO)

var dcoRE = regexp.MustCompile(`(?m)^Signed-off-by: [^<\n]+ <[^>\n]+@[^>\n]+>\s*$`)

func judgeDCO(ctx context.Context, pr *checks.PR, _ Item) checks.Result {
	list, err := pr.Source.Commits(ctx)
	if err != nil {
		return unverified("listing the PR's commits", "列出 PR 的提交失败", err)
	}
	if list.Truncated {
		return checks.Unverified(checks.T("GitHub lists only the PR's oldest 250 commits", "GitHub 只列出 PR 最早的 250 个提交"))
	}
	var missing []string
	for _, c := range list.Commits {
		if !dcoRE.MatchString(c.Message) {
			missing = append(missing, checks.Short(c.SHA))
		}
	}
	if len(missing) > 0 {
		return checks.FailR(checks.T("commit "+missing[0]+" has no Signed-off-by trailer", "提交 "+missing[0]+" 没有 Signed-off-by 尾注").AndMore(len(missing) - 1))
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("all %d commits are signed off", len(list.Commits)),
		fmt.Sprintf("全部 %d 个提交均已签署", len(list.Commits))))
}
