package checkstest

import (
	"slices"
	"testing"
)

func TestEnglishInChinese(t *testing.T) {
	for _, tc := range []struct {
		zh   string
		want []string
	}{
		{"@amd-owner-a 拥有 configs/amd-master.yaml（特定规则）。", nil},
		{"运行 30123456789 中 qwen3.5 mi355x sglang fp8 c12 gsm8k em_strict 0.955 ≥ 0.94", nil},
		{"检查清单已过时：缺少 \"draft served as it ships\" 条目", nil},
		{"无法验证：`changelog does not parse: yaml: line 22`", nil},
		{"sgl-project/sglang#21873 merged 2026-11-15, published；TP 一致。", []string{"merged", "published"}},
		{"dynamo-trt entry preceded by glm5.2-fp4-gb300-dynamo-vllm。", []string{"entry", "preceded", "by"}},
		{"没有 agentic 推测解码相关变更。", []string{"agentic"}},
		{"<details><summary>中文</summary> 见 https://example.com/a?b=c </details>", nil},
		{"PR 内提交 c7067f4 上的 MTP 与 SGLang cookbook", nil},
	} {
		if got := EnglishInChinese(tc.zh); !slices.Equal(got, tc.want) {
			t.Errorf("EnglishInChinese(%q) = %q, want %q", tc.zh, got, tc.want)
		}
	}
}
