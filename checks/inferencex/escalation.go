package inferencex

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// handleRE is a mention the escalation may write, by the rule its key
// table holds escalation_handles to, so that a value cannot inject
// Markdown.
var handleRE = regexp.MustCompile(checks.Handle.Pattern)

// escalation is what a WARN of Check 14 asks: the configured handles to
// look, and an admin bypass below the frontier minimum.
func escalation(pr *checks.PR) checks.Text {
	s := repo.SettingsParam.Get(pr)
	if s == nil {
		d := repo.Defaults()
		s = &d
	}
	var hs []string
	for _, h := range s.EscalationHandles {
		if h = strings.TrimSpace(h); !strings.HasPrefix(h, "@") {
			h = "@" + h
		}
		if handleRE.MatchString(h) {
			hs = append(hs, h)
		}
	}
	min := s.ParetoMinimum
	if min <= 0 {
		min = repo.DefaultKeys().ParetoMinimum
	}
	en, zh := " no escalation handles are configured", "未配置升级处理人"
	if len(hs) > 0 {
		en, zh = " "+strings.Join(hs, " "), strings.Join(hs, " ")
	}
	return checks.T(
		fmt.Sprintf("⚠️ Pareto coverage needs additional review:%s. At least %d points per affected throughput-vs-E2EL frontier are highly recommended. Below %d, or when coverage cannot be verified, merge this PR only with an explicit, recorded admin bypass for the assessed commit; this comment does not grant or enforce a bypass.", en, min, min),
		fmt.Sprintf("⚠️ 帕累托覆盖需要额外审核：%s。强烈建议每条受影响的吞吐量-E2EL 前沿至少有 %d 个点。少于 %d 个点或无法验证时，只有在针对评估的提交有明确且有记录的管理员豁免后才应合并；本评论本身不授予也不执行任何豁免。", zh, min, min))
}
