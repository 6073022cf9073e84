package checklist

import (
	"cmp"
	"context"
	"fmt"
	"regexp"

	"github.com/verdict-bot/verdict/checks"
)

// SignedOff is row 7: every commit of the PR carries a Developer
// Certificate of Origin trailer (Signed-off-by: Name <e-mail>), a
// signature GitHub verified, or either, as the item's accept says.
var SignedOff = verifierRow(7, checks.T("Commits signed off", "提交已签署 DCO"), KindDCO, judgeDCO)

var dcoRE = regexp.MustCompile(`(?m)^Signed-off-by: [^<\n]+ <[^>\n]+@[^>\n]+>\s*$`)

// What each accept asks of a commit, in the reasons.
var (
	lacks = map[string]checks.Text{
		AcceptSignOff:   checks.T("has no Signed-off-by trailer", "没有 Signed-off-by 尾注"),
		AcceptSignature: checks.T("has no signature GitHub verified", "没有经 GitHub 验证的签名"),
		AcceptEither:    checks.T("has neither a Signed-off-by trailer nor a signature GitHub verified", "既没有 Signed-off-by 尾注，也没有经 GitHub 验证的签名"),
	}
	carry = map[string]checks.Text{
		AcceptSignOff:   checks.T("are signed off", "均已签署"),
		AcceptSignature: checks.T("carry a signature GitHub verified", "均带有经 GitHub 验证的签名"),
		AcceptEither:    checks.T("are signed off or carry a signature GitHub verified", "均已签署或带有经 GitHub 验证的签名"),
	}
)

func judgeDCO(ctx context.Context, pr *checks.PR, it Item) checks.Result {
	accept := cmp.Or(it.Accept, AcceptSignOff)
	list, err := pr.Source.Commits(ctx)
	if err != nil {
		return unverified("listing the PR's commits", "列出 PR 的提交失败", err)
	}
	if list.Truncated {
		return checks.Unverified(checks.T("GitHub lists only the PR's oldest 250 commits", "GitHub 只列出 PR 最早的 250 个提交"))
	}
	var missing []string
	unknown := 0 // commits only a signature could pass, which the source cannot show
	for _, c := range list.Commits {
		signedOff := dcoRE.MatchString(c.Message)
		switch {
		case signedOff && accept != AcceptSignature:
		case accept == AcceptSignOff:
			missing = append(missing, checks.Short(c.SHA))
		case list.SignaturesErr != nil:
			unknown++
		case !c.Verified:
			missing = append(missing, checks.Short(c.SHA))
		}
	}
	if len(missing) > 0 {
		why := lacks[accept]
		return checks.FailR(checks.T("commit "+missing[0]+" "+why.EN, "提交 "+missing[0]+" "+why.ZH).AndMore(len(missing) - 1))
	}
	if unknown > 0 {
		// Never a pass on a false Verified that means "cannot tell".
		return unverified(fmt.Sprintf("checking the signatures of %d commit(s)", unknown),
			fmt.Sprintf("检查 %d 个提交的签名失败", unknown), list.SignaturesErr)
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("all %d commits %s", len(list.Commits), carry[accept].EN),
		fmt.Sprintf("全部 %d 个提交%s", len(list.Commits), carry[accept].ZH)))
}
