package inferencex_test

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// Legacy scripts take parallel sizes from the sweep (`--tp-size "$TP"`):
// Check 3 must compare the sizes the config's search space runs with, not
// only the flag names (a recipe for TP8/EP8 does not cover a TP4/EP4 config).
func TestUpstreamRecipeShellVariableSizes(t *testing.T) {
	const script = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_b200_sglang.sh"
	vars := []repo.Setting{
		specSet(script, "", "flag", "--tp-size", `"$TP"`, 10),
		specSet(script, "", "flag", "--ep-size", `"${EP_SIZE}"`, 11),
		specSet(script, "", "flag", "--quantization", "fp8", 12),
		specSet(script, "", "flag", "--attention-backend", "trtllm_mha", 13),
	}
	tests := []struct {
		name   string
		search []repo.SearchSpace
		status checks.Status
		reason string
	}{
		{name: "search space matches the recipe", search: []repo.SearchSpace{{TP: 8, EP: 8}},
			status: checks.Pass, reason: "sgl-project/sglang#21873 merged 2026-10-02; TP/EP/quantization/attention backend match."},
		{name: "search space differs from the recipe", search: []repo.SearchSpace{{TP: 4, EP: 4}},
			status: checks.Fail, reason: "Needs human review: sgl-project/sglang#21873 merged 2026-10-02; upstream recipe does not show: TP 4, EP 4."},
		{name: "every size the config runs with", search: []repo.SearchSpace{{TP: 8, EP: 8}, {TP: 4, EP: 8}},
			status: checks.Fail, reason: "upstream recipe does not show: TP 4."},
		{name: "size 1 restates the default", search: []repo.SearchSpace{{TP: 8, EP: 1}},
			status: checks.Pass, reason: "; TP/quantization/attention backend match."},
		{name: "no size in the search space: name only", search: []repo.SearchSpace{{}},
			status: checks.Pass, reason: "; TP/EP/quantization/attention backend match."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := specEntry("qwen3.5-fp8-b200-sglang", "qwen3.5", "sglang", false, false, repo.SearchSpace{})
			e.Scenarios[0].Search = tc.search
			cs := &changeset.Model{Affected: []*repo.ConfigEntry{e}, Effective: map[string][]*repo.EffectiveFile{
				e.Key: {{Path: script, Kind: "script", Settings: vars}},
			}}
			pr := specPR(t, cs, recipeSource(), repo.LegacyLayout(), "- Recipe: https://github.com/sgl-project/sglang/pull/21873 (merged)")
			specCheck(t, specRun(t, inferencex.UpstreamRecipe, pr), tc.status, tc.reason)
		})
	}
}
