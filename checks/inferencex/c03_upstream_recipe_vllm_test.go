package inferencex_test

import (
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// A vLLM disaggregated deployment (dynamo-vllm) is covered only by a recipe
// that shows its KV-transfer connector, like SGLang's disaggregation flags.
func TestUpstreamRecipeVLLMKVTransferConfig(t *testing.T) {
	const recipe = "benchmarks/multi_node/srt-slurm-recipes/vllm/qwen3.5/disagg.yaml"
	merged := time.Date(2026, 10, 2, 12, 0, 0, 0, time.UTC)
	withKV := "+vllm serve Qwen/Qwen3.5 --tensor-parallel-size 8 \\\n" +
		"+  --kv-transfer-config '{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}'\n"
	tests := []struct {
		name   string
		patch  string
		status checks.Status
		reason string
	}{
		{"connector shown (JSON layout differs)", withKV, checks.Pass, "vllm-project/recipes#600 merged 2026-10-02; TP/kv-transfer-config match."},
		{"aggregated recipe only", "+vllm serve Qwen/Qwen3.5 --tensor-parallel-size 8\n", checks.Fail,
			"Needs human review: vllm-project/recipes#600 merged 2026-10-02; upstream recipe does not show: kv-transfer-config."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := recipeSource()
			src.Upstream["vllm-project/recipes#600"] = checks.UpstreamPR{Owner: "vllm-project", Repo: "recipes", Number: 600, State: "closed", Merged: true, MergedAt: merged}
			src.UpstreamFiles["vllm-project/recipes#600"] = []checks.ChangedFile{{Path: "Qwen/Qwen3.5.md", Patch: tc.patch}}
			e := recipeEntry("qwen3.5-fp8-gb200-dynamo-vllm-disagg", "dynamo-vllm", true, true)
			cs := &changeset.Model{Affected: []*repo.ConfigEntry{e}, Effective: map[string][]*repo.EffectiveFile{
				e.Key: {{Path: recipe, Kind: "srt-recipe", Settings: []repo.Setting{
					specSet(recipe, "prefill", "arg", "tensor-parallel-size", "8", 20),
					specSet(recipe, "prefill", "arg", "kv-transfer-config", `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`, 21),
					specSet(recipe, "decode", "arg", "kv-transfer-config", `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`, 31),
				}}},
			}}
			pr := specPR(t, cs, src, repo.LegacyLayout(), "- https://github.com/vllm-project/recipes/pull/600")
			specCheck(t, specRun(t, inferencex.UpstreamRecipe, pr), tc.status, tc.reason)
		})
	}
}
