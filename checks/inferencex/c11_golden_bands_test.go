package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

const bandRecipe = "benchmarks/multi_node/srt-slurm-recipes/qwen3.5/agentic-variants.yaml"

// bandVariants is a recipe whose override blocks serve bands of
// concurrencies with their own draft lengths; the top band has no draft.
const bandVariants = `base:
  roles:
    decode:
      args:
        speculative-algorithm: EAGLE
        speculative-num-steps: 3
      env:
        SGLANG_SIMULATE_ACC_LEN: "3.39"
override_low:
  benchmark:
    concurrencies: [1, 2]
override_mid:
  roles:
    decode:
      args:
        speculative-num-steps: 2
      env:
        SGLANG_SIMULATE_ACC_LEN: "MID"
  benchmark:
    concurrencies: [4, 8]
override_high:
  roles:
    decode:
      args:
        speculative-algorithm: null
        speculative-num-steps: null
      env:
        SGLANG_SIMULATE_ACC_LEN: null
  benchmark:
    concurrencies: [32]
`

// bandZip is the same bands as one zip block.
const bandZip = `base:
  roles:
    decode:
      args:
        speculative-algorithm: EAGLE
        speculative-num-steps: 3
zip_override_bands:
  roles:
    decode:
      args:
        speculative-num-steps: [3, 2, null]
      env:
        SGLANG_SIMULATE_ACC_LEN: ["3.39", "MID", null]
  benchmark:
    concurrencies: [[1, 2], [4, 8], [32]]
`

func bandRun(t *testing.T, layout repo.Layout, recipe string, ss ...repo.SearchSpace) checks.Result {
	t.Helper()
	sets, err := repo.ParseSrtRecipe(bandRecipe, []byte(recipe))
	if err != nil {
		t.Fatal(err)
	}
	e := specEntry("qwen3.5-fp8-gb200-dynamo-sglang-agentic-mtp-disagg", "qwen3.5", "dynamo-sglang", true, true, ss[0])
	e.Scenarios[0].Search = ss
	cs := &changeset.Model{Affected: []*repo.ConfigEntry{e}, Effective: map[string][]*repo.EffectiveFile{
		e.Key: {{Path: bandRecipe, Kind: "recipe", Settings: sets}},
	}}
	pr := specPR(t, cs, galSource(map[string]string{"qwen3.5_mtp": qwenGolden}, layout), layout, "")
	return specRun(t, inferencex.GoldenAcceptance, pr)
}

func TestGoldenALPerBand(t *testing.T) {
	all := repo.SearchSpace{TP: 4, SpecDecoding: "mtp", Conc: []int{1, 2, 4, 8, 32}, SrtRecipe: bandRecipe}
	sel := func(s string, conc ...int) repo.SearchSpace {
		return repo.SearchSpace{TP: 4, SpecDecoding: "mtp", Conc: conc, SrtRecipe: bandRecipe + ":" + s}
	}
	for _, tc := range []struct {
		name   string
		recipe string
		ss     []repo.SearchSpace
		status checks.Status
		reason string
	}{
		{name: "every band pins its own golden value", recipe: strings.Replace(bandVariants, "MID", "2.61", 1), ss: []repo.SearchSpace{all},
			status: checks.Pass, reason: "qwen3.5 MTP n=3 thinking_on (override_low, conc 1, 2) pinned 3.39 = golden qwen3.5_mtp.yaml; " +
				"qwen3.5 MTP n=2 thinking_on (override_mid, conc 4, 8) pinned 2.61 = golden qwen3.5_mtp.yaml. No draft in override_high, conc 32 (" + bandRecipe + ":25)."},
		{name: "one band pins the value of another draft length", recipe: strings.Replace(bandVariants, "MID", "3.39", 1), ss: []repo.SearchSpace{all},
			status: checks.Fail, reason: "qwen3.5-fp8-gb200-dynamo-sglang-agentic-mtp-disagg (override_mid, conc 4, 8) pins SGLANG_SIMULATE_ACC_LEN 3.39; golden thinking_on[2] is 2.61."},
		{name: "selectors name the bands that are assessed", recipe: strings.Replace(bandVariants, "MID", "3.39", 1),
			ss:     []repo.SearchSpace{sel("override_low", 1, 2), sel("override_high", 32)},
			status: checks.Pass, reason: "qwen3.5 MTP n=3 thinking_on (override_low, conc 1, 2) pinned 3.39 = golden qwen3.5_mtp.yaml. No draft in override_high, conc 32"},
		{name: "a band with no draft only", recipe: bandVariants, ss: []repo.SearchSpace{sel("override_high", 32)},
			status: checks.Pass, reason: "qwen3.5-fp8-gb200-dynamo-sglang-agentic-mtp-disagg: no band runs a draft (override_high, conc 32 (" + bandRecipe + ":25))."},
		{name: "zip jobs", recipe: strings.Replace(bandZip, "MID", "2.61", 1), ss: []repo.SearchSpace{all},
			status: checks.Pass, reason: "n=3 thinking_on (zip_override_bands[0], conc 1, 2) pinned 3.39 = golden qwen3.5_mtp.yaml; qwen3.5 MTP n=2 thinking_on (zip_override_bands[1], conc 4, 8) pinned 2.61"},
		{name: "zip job with a wrong pin", recipe: strings.Replace(bandZip, "MID", "2.70", 1), ss: []repo.SearchSpace{sel("zip_override_bands[1]", 4, 8)},
			status: checks.Fail, reason: "(zip_override_bands[1], conc 4, 8) pins SGLANG_SIMULATE_ACC_LEN 2.70; golden thinking_on[2] is 2.61."},
		{name: "the launcher's band needs a curve point too", recipe: strings.Replace(strings.Replace(bandVariants, "MID", "2.61", 1), "speculative-num-steps: 2", "speculative-num-steps: 5", 1),
			ss: []repo.SearchSpace{all}, status: checks.Fail, reason: "no committed golden curve qwen3.5_mtp.yaml thinking_on[5] for qwen3.5-fp8-gb200-dynamo-sglang-agentic-mtp-disagg (override_mid, conc 4, 8)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			specCheck(t, bandRun(t, repo.LegacyLayout(), tc.recipe, tc.ss...), tc.status, tc.reason)
		})
	}
}

// A draft path naming the GQA variant selects the GQA curve, whichever
// engine spells the path and whichever model it drafts for.
func TestGoldenALGQADraft(t *testing.T) {
	const gqaGolden = "minimax-m3-test:\n  thinking_on:\n    3: 2.78\n"
	const plainGolden = "minimax-m3-test:\n  thinking_on:\n    3: 3.05\n"
	const rec = "benchmarks/multi_node/srt-slurm-recipes/minimaxm3/trtllm/agg.yaml"
	trt := func(draft, pin string) []repo.Setting {
		return []repo.Setting{
			specSet(rec, "agg", "arg", "speculative_config", "{decoding_type: Eagle3, max_draft_len: 3, speculative_model: "+draft+"}", 10),
			specSet(rec, "agg", "arg", "speculative_config.decoding_type", "Eagle3", 11),
			specSet(rec, "agg", "arg", "speculative_config.max_draft_len", "3", 12),
			specSet(rec, "agg", "arg", "speculative_config.speculative_model", draft, 13),
			specSet(rec, "agg", "env", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", pin, 20),
		}
	}
	const script = "benchmarks/single_node/agentic/glm5.2_fp8_h200_vllm_eagle3.sh"
	vllm := []repo.Setting{
		specSet(script, "", "env", "DRAFT_MODEL", "example/GLM-5.2-EAGLE3-GQA", 4),
		specSet(script, "", "flag", "--speculative-config", `{"method":"eagle3","model":"$DRAFT_MODEL","num_speculative_tokens":3,"rejection_sample_method":"synthetic","synthetic_acceptance_length":2.5}`, 9),
	}
	mm := func(key string) *repo.ConfigEntry {
		return specEntry(key, "minimaxm3", "trt", true, true, repo.SearchSpace{TP: 4, SpecDecoding: "eagle3"})
	}
	g := map[string]string{"minimaxm3_eagle3": plainGolden, "minimaxm3_eagle3_gqa": gqaGolden}
	for _, tc := range []galCase{
		{name: "TRT-LLM speculative_model names the GQA draft", entry: mm("minimaxm3-fp4-gb200-trt-agentic-eagle3"), settings: trt("Inferact/MiniMax-M3-EAGLE3-GQA", "1.78"), golden: g,
			status: checks.Pass, reason: "pinned TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS 1.78 (AL 2.78) = golden minimaxm3_eagle3_gqa.yaml."},
		{name: "the plain draft keeps the plain curve", entry: mm("minimaxm3-fp4-gb200-trt-agentic-eagle3"), settings: trt("Inferact/MiniMax-M3-EAGLE3", "2.05"), golden: g,
			status: checks.Pass, reason: "(AL 3.05) = golden minimaxm3_eagle3.yaml."},
		{name: "GQA pinned at the plain curve's value", entry: mm("minimaxm3-fp4-gb200-trt-agentic-eagle3"), settings: trt("Inferact/MiniMax-M3-EAGLE3-GQA", "2.05"), golden: g,
			status: checks.Fail, reason: "pins TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS 2.05 (AL 3.05); golden thinking_on[3] is 2.78."},
		{name: "a GQA draft of another model, named through a variable", entry: specEntry("glm5.2-fp8-h200-vllm-agentic-eagle3", "glm5.2", "vllm", true, true, repo.SearchSpace{TP: 8, SpecDecoding: "eagle3"}),
			settings: vllm, golden: map[string]string{"glm5.2_eagle3": plainGolden},
			status: checks.Fail, reason: "no committed golden curve glm5.2_eagle3_gqa.yaml thinking_on[3]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			specCheck(t, runGalCase(t, tc), tc.status, tc.reason)
		})
	}
}
