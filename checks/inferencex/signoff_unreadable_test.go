package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// unreadableDetail makes the whole sign-off a body the Markdown reader
// refuses (quotes nested past its bound). The statements after it would
// satisfy every row; none may be read.
var unreadableDetail = strings.Repeat(">", 70) + " nested too deep\n\n" +
	"- Recipe: https://github.com/sgl-project/sglang/pull/21873\n" + draftEvidence +
	"\n- exception: new model architecture not supported upstream yet; AL 2.50 measured in https://github.com/example/bench/actions/runs/77"

const unreadableReason = "could not be verified: the sign-off could not be read as Markdown (markdown: line "

// Every row that reads the sign-off's text fails closed, with the reason,
// at the point it would have read it.
func TestUnreadableSignOffFailsClosed(t *testing.T) {
	t.Run("Check 3", func(t *testing.T) {
		const script = "benchmarks/single_node/qwen3.5_fp8_b200_sglang.sh"
		e := recipeEntry("qwen3.5-fp8-b200-sglang", "sglang", false, false)
		cs := &changeset.Model{Affected: []*repo.ConfigEntry{e}, Effective: map[string][]*repo.EffectiveFile{
			e.Key: {{Path: script, Kind: "script", Settings: recipeSettings(script)}}}}
		pr := specPR(t, cs, recipeSource(), repo.LegacyLayout(), unreadableDetail)
		inferencextest.Expect(t, specRun(t, inferencex.UpstreamRecipe, pr), checks.Fail, unreadableReason)
	})
	t.Run("Check 11 without a curve", func(t *testing.T) {
		r := runGalCase(t, galCase{entry: specEntry("newm-fp8-b200-sglang-agentic-mtp", "newm", "sglang", true, true, repo.SearchSpace{TP: 8}),
			settings: galSettings("2.50"), detail: unreadableDetail})
		inferencextest.Expect(t, r, checks.Fail, "Golden AL could not be verified for newm-fp8-b200-sglang-agentic-mtp: no committed golden curve", "the sign-off could not be read as Markdown")
	})
	t.Run("Check 11 synthetic exception", func(t *testing.T) {
		r := runGalCase(t, galCase{entry: specEntry("qwen3.5-fp8-b200-sglang-mtp", "qwen3.5", "sglang", false, true, repo.SearchSpace{TP: 4, SpecDecoding: "mtp"}),
			settings: galSettings("3.39"), golden: map[string]string{"qwen3.5_mtp": qwenGolden}, detail: unreadableDetail})
		inferencextest.Expect(t, r, checks.Fail, unreadableReason)
	})
	t.Run("Check 13", func(t *testing.T) {
		const rec = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/b200-fp4-mtp/agentic.yaml"
		spec := specEntry("qwen3.5-fp4-b200-sglang-agentic-mtp", "qwen3.5", "sglang", true, true, repo.SearchSpace{TP: 8})
		cs := &changeset.Model{Affected: []*repo.ConfigEntry{spec}, Effective: map[string][]*repo.EffectiveFile{
			spec.Key: {{Path: rec, Kind: "recipe", Settings: []repo.Setting{specSet(rec, "decode", "arg", "speculative-algorithm", "EAGLE", 3)}}}}}
		pr := specPR(t, cs, nil, repo.LegacyLayout(), unreadableDetail)
		inferencextest.Expect(t, specRun(t, inferencex.DraftPrecision, pr), checks.Fail, unreadableReason)
	})
	t.Run("Check 5", func(t *testing.T) {
		body := signOffBody(currentItems, nil, unreadableDetail)
		r := runTemplateCase(t, tplCase{body: body})
		inferencextest.Expect(t, r, checks.Fail, unreadableReason)
	})
	cfgRunScenarios(t, []cfgScenario{
		{name: "Check 6 non-upstream image", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/amd-master.yaml", cfgSprintf(cfgVLLMEntry, "mi355x", "rocm/vllm-dev:nightly-20261001", "mi355x"))
				r.Detail = unreadableDetail
			},
			status: checks.Fail, want: []string{unreadableReason}},
		{name: "Check 6 upstream image reads no statement", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/amd-master.yaml", cfgSprintf(cfgVLLMEntry, "mi355x", "vllm/vllm-openai-rocm:v0.11.0", "mi355x"))
				r.Detail = unreadableDetail
			},
			status: checks.Pass, want: []string{"vllm/vllm-openai-rocm image"}},
		{name: "Check 10 waiver", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				cfgAddSed(r)
				r.Head["docs/waiver/2611.md"] = cfgWaiver
				r.Detail = unreadableDetail + "\n- Waiver: https://github.com/SemiAnalysisAI/InferenceX/blob/main/" + r.Path("docs/waiver/2611.md")
			},
			status: checks.Fail, want: []string{unreadableReason}},
	})
}

// galSettings is an SGLang recipe pinning the simulated acceptance length.
func galSettings(al string) []repo.Setting {
	const rec = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/mi355x-fp8-mtp/agentic.yaml"
	return []repo.Setting{
		specSet(rec, "agg", "arg", "speculative-algorithm", "EAGLE", 10),
		specSet(rec, "agg", "arg", "speculative-num-steps", "3", 11),
		specSet(rec, "agg", "env", "SGLANG_SIMULATE_ACC_LEN", al, 20),
		specSet(rec, "agg", "env", "SGLANG_SIMULATE_ACC_METHOD", "match-expected", 21),
	}
}
