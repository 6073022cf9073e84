package checks

import "context"

// Names are the canonical bilingual row names of the InferenceX preset.
var Names = map[int]Text{
	0:  {"CODEOWNER", "代码所有者"},
	1:  {"Passing sweep", "扫描通过"},
	2:  {"Evals", "评测"},
	3:  {"Upstream recipe", "上游配方"},
	4:  {"Reuse command", "复用命令"},
	5:  {"Checklist template", "检查清单模板"},
	6:  {"Upstream images", "上游镜像"},
	7:  {"Deprecated models", "已弃用模型"},
	8:  {"Architecture hacks", "架构篡改"},
	9:  {"Chat template", "聊天模板"},
	10: {"Engine patches", "引擎补丁"},
	11: {"Golden acceptance", "黄金接受长度"},
	12: {"Append-only", "仅追加"},
	13: {"Draft precision", "草稿模型精度"},
	14: {"Pareto coverage", "帕累托覆盖"},
	15: {"PR description", "PR 描述"},
}

// advisory are the checks that may WARN and never FAIL (gen 4).
var advisory = map[int]bool{4: true, 14: true, 15: true}

// notImplemented is the honest row for a check whose logic is not built yet.
func notImplemented(context.Context, *PR) Result {
	return FailR(T("not verified: no implementation yet", "未验证：尚未实现"))
}
