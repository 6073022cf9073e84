package inferencex_test

import (
	"context"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

const qwenGolden = `# Source GitHub Actions run: https://github.com/example/bench/actions/runs/1
# key = num_speculative_tokens; value = golden AL
qwen3.5-test-model:
  thinking_on:
    1: 1.90
    2: 2.61
    3: 3.39
  thinking_off:
    1: 1.80
    2: 2.40
    3: 2.95
`

const dsparkGolden = `# dataset: coding
deepseek-test-0813:
  thinking_on:
    4: 3.36
    5: 3.61
    6: 3.77
    7: 3.73
`

type galCase struct {
	name     string
	layout   repo.Layout
	entry    *repo.ConfigEntry
	settings []repo.Setting
	golden   map[string]string // stem → content
	detail   string
	status   checks.Status
	reason   string
}

func galSource(golden map[string]string, layout repo.Layout) *checkstest.Source {
	src := &checkstest.Source{}
	for stem, body := range golden {
		src.SetFile(specDefault, layout.GoldenDir+"/"+stem+".yaml", body)
	}
	return src
}

func runGalCase(t *testing.T, tc galCase) checks.Result {
	t.Helper()
	r, _ := galCaseOutcome(t, tc)
	return r
}

// galCaseOutcome runs a case and also returns the golden values Check 11
// selected, which Check 15 reads.
func galCaseOutcome(t *testing.T, tc galCase) (checks.Result, inferencex.GoldenOutcome) {
	t.Helper()
	if tc.layout.Name == "" {
		tc.layout = repo.LegacyLayout()
	}
	cs := &changeset.Model{Effective: map[string][]*repo.EffectiveFile{}}
	if tc.entry != nil {
		cs.Affected = []*repo.ConfigEntry{tc.entry}
		if tc.settings != nil {
			cs.Effective[tc.entry.Key] = []*repo.EffectiveFile{{Path: tc.settings[0].File, Kind: "recipe", Settings: tc.settings}}
		}
	}
	pr := specPR(t, cs, galSource(tc.golden, tc.layout), tc.layout, tc.detail)
	r := specRun(t, inferencex.GoldenAcceptance, pr)
	g, err := inferencex.GoldenEvaluation.Of(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	return r, g
}

func TestGoldenALCheck(t *testing.T) {
	const rec = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/mi355x-fp8-mtp/agentic.yaml"
	qwenSG := func(key string, agentic bool) *repo.ConfigEntry {
		return specEntry(key, "qwen3.5", "sglang", agentic, true, repo.SearchSpace{TP: 4, SpecDecoding: "mtp", Conc: []int{1, 4}})
	}
	sgl := func(al string) []repo.Setting {
		return []repo.Setting{
			specSet(rec, "agg", "arg", "speculative-algorithm", "EAGLE", 10),
			specSet(rec, "agg", "arg", "speculative-num-steps", "3", 11),
			specSet(rec, "agg", "env", "SGLANG_SIMULATE_ACC_LEN", al, 20),
			specSet(rec, "agg", "env", "SGLANG_SIMULATE_ACC_METHOD", "match-expected", 21),
		}
	}
	g := map[string]string{"qwen3.5_mtp": qwenGolden}
	trt := func(v string) []repo.Setting {
		return []repo.Setting{
			specSet("benchmarks/single_node/agentic/qwen3.5_fp8_b200_trt_mtp.sh", "", "arg", "speculative_config.decoding_type", "MTP", 5),
			specSet("benchmarks/single_node/agentic/qwen3.5_fp8_b200_trt_mtp.sh", "", "arg", "speculative_config.max_draft_len", "3", 6),
			specSet("benchmarks/single_node/agentic/qwen3.5_fp8_b200_trt_mtp.sh", "", "env", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", v, 9),
		}
	}
	tests := []galCase{
		{name: "no agentic spec decode", entry: specEntry("dsr1-fp8-b200-sglang", "dsr1", "sglang", false, false, repo.SearchSpace{TP: 8}),
			status: checks.NA, reason: "No agentic speculative-decoding changes."},
		{name: "S9 mismatch", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), settings: sgl("'3.50'"), golden: g,
			status: checks.Fail, reason: "qwen3.5-fp8-mi355x-sglang-agentic-mtp pins SGLANG_SIMULATE_ACC_LEN 3.50; golden thinking_on[3] is 3.39."},
		{name: "S9 match", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), settings: sgl("3.39"), golden: g,
			status: checks.Pass, reason: "qwen3.5 MTP n=3 thinking_on pinned 3.39 = golden qwen3.5_mtp.yaml."},
		{name: "rounding to two decimals", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), settings: sgl("3.3900001"), golden: g,
			status: checks.Pass, reason: "pinned 3.39"},
		{name: "non numeric pin", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), settings: sgl("auto"), golden: g,
			status: checks.Fail, reason: "pins SGLANG_SIMULATE_ACC_LEN auto"},
		{name: "S9 TRT AL minus one", entry: specEntry("qwen3.5-fp8-b200-trt-agentic-mtp", "qwen3.5", "trt", true, true, repo.SearchSpace{TP: 8}),
			settings: trt("2.39"), golden: g, status: checks.Pass, reason: "qwen3.5 MTP n=3 thinking_on pinned TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS 2.39 (AL 3.39) = golden qwen3.5_mtp.yaml."},
		{name: "TRT pinned as AL is wrong", entry: specEntry("qwen3.5-fp8-b200-trt-agentic-mtp", "qwen3.5", "trt", true, true, repo.SearchSpace{TP: 8}),
			settings: trt("3.39"), golden: g, status: checks.Fail, reason: "pins TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS 3.39 (AL 4.39); golden thinking_on[3] is 3.39."},
		{name: "S9 non-agentic synthetic knob is a hack", entry: qwenSG("qwen3.5-fp8-b200-sglang-mtp", false), settings: sgl("3.39"), golden: g,
			status: checks.Fail, reason: "qwen3.5-fp8-b200-sglang-mtp is not agentic but sets SGLANG_SIMULATE_ACC_LEN"},
		{name: "non-agentic hack with documented exception", entry: qwenSG("qwen3.5-fp8-b200-sglang-mtp", false), settings: sgl("3.39"), golden: g,
			detail: "- exception: synthetic acceptance approved for this bring-up", status: checks.Fail, reason: "Needs human review:"},
		{name: "legacy real acceptance", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: sgl("x")[:2], status: checks.Fail, reason: "qwen3.5-fp8-mi355x-sglang-agentic-mtp runs real acceptance"},
		{name: "S9 e2e launcher injects", layout: repo.E2ELayout(),
			entry:    specEntry("qwen3.5-fp8-mi355x-sglang-agentic-mtp", "qwen3.5", "sglang", true, true, repo.SearchSpace{TP: 4, SpecDecoding: "mtp", SrtRecipe: rec}),
			settings: sgl("x")[:2], golden: g, status: checks.Pass, reason: "SRT launcher injects golden 3.39 from qwen3.5_mtp.yaml"},
		{name: "e2e launcher but no curve", layout: repo.E2ELayout(),
			entry:    specEntry("qwen3.5-fp8-mi355x-sglang-agentic-mtp", "qwen3.5", "sglang", true, true, repo.SearchSpace{TP: 4, SrtRecipe: rec}),
			settings: sgl("x")[:2], status: checks.Fail, reason: "no committed golden curve qwen3.5_mtp.yaml thinking_on[3]"},
		{name: "e2e without launcher runs real acceptance", layout: repo.E2ELayout(),
			entry:    qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true),
			settings: sgl("x")[:2], golden: g, status: checks.Fail, reason: "runs real acceptance"},
		{name: "legacy harness injection", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: append(sgl("x")[:2], specSet("runners/launch_b200.sh", "", "env", "SYNTHETIC_ACCEPTANCE", "true", 3)),
			status:   checks.Pass, reason: "harness (SYNTHETIC_ACCEPTANCE) injects golden 3.39"},
		{name: "legacy harness explicit length compared", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: append(sgl("x")[:2], specSet("runners/launch_b200.sh", "", "env", "SYNTHETIC_ACCEPTANCE", "1", 3),
				specSet("runners/launch_b200.sh", "", "env", "SYNTHETIC_ACCEPTANCE_LENGTH", "3.0", 4)),
			status: checks.Fail, reason: "pins SYNTHETIC_ACCEPTANCE_LENGTH 3.00; golden thinking_on[3] is 3.39."},
		{name: "thinking off in the benchmark client", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: append(sgl("2.95"), specSet(rec, "benchmark", "env", "THINKING_MODE", "thinking_off", 40)),
			status:   checks.Pass, reason: "n=3 thinking_off pinned 2.95"},
		{name: "thinking on by default", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: append(sgl("2.95"), specSet(rec, "agg", "env", "SGLANG_DEFAULT_THINKING", "1", 40)),
			status:   checks.Fail, reason: "pins SGLANG_SIMULATE_ACC_LEN 2.95; golden thinking_on[3] is 3.39."},
		{name: "thinking off in the generation role", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: append(sgl("2.95"), specSet(rec, "agg", "env", "THINKING_MODE", "thinking_off", 40)),
			status:   checks.Pass, reason: "n=3 thinking_off pinned 2.95"},
		{name: "thinking off in the master search space",
			entry: specEntry("qwen3.5-fp8-mi355x-sglang-agentic-mtp", "qwen3.5", "sglang", true, true,
				repo.SearchSpace{TP: 4, SpecDecoding: "mtp", Fields: repo.FieldsOf(map[string]any{"tp": 4, "thinking-mode": "thinking_off"})}),
			settings: sgl("2.95"), golden: g, status: checks.Pass, reason: "n=3 thinking_off pinned 2.95"},
		{name: "no curve and no AL source", entry: specEntry("newm-fp8-b200-sglang-agentic-mtp", "newm", "sglang", true, true, repo.SearchSpace{TP: 8}),
			settings: sgl("2.50"), status: checks.Fail, reason: "no committed golden curve newm_mtp.yaml thinking_on[3] for newm-fp8-b200-sglang-agentic-mtp and the additional detail section does not state the AL source."},
		{name: "no curve with AL source", entry: specEntry("newm-fp8-b200-sglang-agentic-mtp", "newm", "sglang", true, true, repo.SearchSpace{TP: 8}),
			settings: sgl("2.50"), detail: "- AL 2.50 measured in https://github.com/example/bench/actions/runs/77",
			status: checks.Fail, reason: "Needs human review: no committed golden curve newm_mtp.yaml"},
		{name: "malformed curve is not a pass", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), settings: sgl("3.39"),
			golden: map[string]string{"qwen3.5_mtp": "a: {thinking_on: {3: 3.39}}\nb: {}\n"},
			status: checks.Fail, reason: "could not be verified"},
		{name: "vLLM synthetic speculative-config",
			entry:    specEntry("qwen3.5-fp8-b200-vllm-agentic-mtp", "qwen3.5", "vllm", true, true, repo.SearchSpace{TP: 8}),
			settings: []repo.Setting{specSet("r.yaml", "decode", "arg", "speculative-config", `{"method": "mtp", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.61}`, 3)},
			golden:   g, status: checks.Pass, reason: "qwen3.5 MTP n=2 thinking_on pinned 2.61"},
		{name: "vLLM synthetic without length",
			entry:    specEntry("qwen3.5-fp8-b200-vllm-agentic-mtp", "qwen3.5", "vllm", true, true, repo.SearchSpace{TP: 8}),
			settings: []repo.Setting{specSet("r.yaml", "decode", "arg", "speculative-config", `{"method": "mtp", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic"}`, 3)},
			golden:   g, status: checks.Fail, reason: "pins synthetic_acceptance_length (no value)"},
		{name: "decode role wins over agg",
			entry: specEntry("qwen3.5-fp8-b200-sglang-agentic-mtp", "qwen3.5", "sglang-disagg", true, true, repo.SearchSpace{}),
			settings: []repo.Setting{
				specSet("d.yaml", "prefill", "arg", "speculative-num-steps", "1", 1),
				specSet("d.yaml", "prefill", "env", "SGLANG_SIMULATE_ACC_LEN", "1.90", 2),
				specSet("d.yaml", "decode", "arg", "speculative-algorithm", "NEXTN", 3),
				specSet("d.yaml", "decode", "arg", "speculative-num-steps", "2", 4),
				specSet("d.yaml", "decode", "env", "SGLANG_SIMULATE_ACC_LEN", "2.61", 5),
			},
			golden: g, status: checks.Pass, reason: "n=2 thinking_on pinned 2.61"},
		{name: "ATOM acceptance length", entry: specEntry("qwen3.5-fp8-mi355x-atom-agentic-mtp", "qwen3.5", "atom", true, true, repo.SearchSpace{SpecDecoding: "mtp"}),
			settings: []repo.Setting{specSet("a.sh", "", "flag", "--num-speculative-tokens", "3", 1), specSet("a.sh", "", "flag", "--spec-decode-acceptance-length", "3.39", 2)},
			golden:   g, status: checks.Pass, reason: "pinned 3.39"},
		{name: "kimik3 dspark needs draft sample method",
			entry:    specEntry("kimik3-fp4-b300-vllm-agentic-dspark", "kimik3", "vllm", true, true, repo.SearchSpace{}),
			settings: []repo.Setting{specSet("k.yaml", "agg", "arg", "speculative-config", `{"method": "dspark", "num_speculative_tokens": 4, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 3.1}`, 1)},
			status:   checks.Fail, reason: "golden curve cannot be selected: kimik3 dspark needs draft_sample_method"},
		{name: "kimik3 dspark probabilistic",
			entry:    specEntry("kimik3-fp4-b300-vllm-agentic-dspark", "kimik3", "vllm", true, true, repo.SearchSpace{}),
			settings: []repo.Setting{specSet("k.yaml", "agg", "arg", "speculative-config", `{"method": "dspark", "num_speculative_tokens": 6, "draft_sample_method": "probabilistic", "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 3.77}`, 1)},
			golden:   map[string]string{"kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method": dsparkGolden},
			status:   checks.Pass, reason: "kimik3 DSpark n=6 thinking_on pinned 3.77 = golden kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method.yaml."},
		{name: "minimaxm3 eagle gqa draft",
			entry: specEntry("minimaxm3-fp8-b200-sglang-agentic-eagle", "minimaxm3", "sglang", true, true, repo.SearchSpace{}),
			settings: []repo.Setting{
				specSet("m.yaml", "agg", "arg", "speculative-algorithm", "EAGLE", 1),
				specSet("m.yaml", "agg", "arg", "speculative-draft-model-path", "org/MiniMax-M3-Eagle3-GQA", 2),
				specSet("m.yaml", "agg", "arg", "speculative-num-steps", "3", 3),
				specSet("m.yaml", "agg", "env", "SGLANG_SIMULATE_ACC_LEN", "3.39", 4),
			},
			golden: map[string]string{"minimaxm3_eagle3_gqa": qwenGolden},
			status: checks.Pass, reason: "minimaxm3 EAGLE3 n=3 thinking_on pinned 3.39 = golden minimaxm3_eagle3_gqa.yaml."},
		{name: "missing draft length", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			settings: []repo.Setting{specSet(rec, "agg", "env", "SGLANG_SIMULATE_ACC_LEN", "3.39", 1)},
			status:   checks.Fail, reason: "num_speculative_tokens not found in the agg role"},
		{name: "pin from a shell variable", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), settings: sgl("${AL}"), golden: g,
			status: checks.Fail, reason: "Needs human review: qwen3.5-fp8-mi355x-sglang-agentic-mtp sets SGLANG_SIMULATE_ACC_LEN from a shell variable (${AL}); golden thinking_on[3] is 3.39."},
		{name: "no effective files", entry: qwenSG("qwen3.5-fp8-mi355x-sglang-agentic-mtp", true), golden: g,
			status: checks.Fail, reason: "could not be verified: no effective launch config was found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specCheck(t, runGalCase(t, tc), tc.status, tc.reason)
		})
	}
}

// TestGoldenALSeedDSpark is the seed case: an SGLang DSpark agentic config
// with block size 6 pinning 3.77 passes against dsv4-pro-0813-dspark.yaml.
func TestGoldenALSeedDSpark(t *testing.T) {
	const rec = "benchmarks/single_node/srt-slurm-recipes/dsv4/sglang/b300-fp4-dspark/agentic.yaml"
	tc := galCase{
		entry: specEntry("dsv4-fp4-b300-sglang-agentic-dspark", "dsv4", "sglang", true, true, repo.SearchSpace{TP: 8, SpecDecoding: "dspark"}),
		settings: []repo.Setting{
			specSet(rec, "agg", "arg", "speculative-algorithm", "DSPARK", 7),
			specSet(rec, "agg", "arg", "speculative-num-steps", "3", 8),
			specSet(rec, "agg", "arg", "speculative-dspark-block-size", "6", 9),
			specSet(rec, "agg", "env", "SGLANG_SIMULATE_ACC_LEN", "3.77", 12),
		},
		golden: map[string]string{"dsv4-pro-0813-dspark": dsparkGolden},
	}
	r, d := galCaseOutcome(t, tc)
	specCheck(t, r, checks.Pass, "dsv4 DSpark n=6 thinking_on pinned 3.77 = golden dsv4-pro-0813-dspark.yaml.")
	if len(d.Values) != 1 || d.Values[0].AL != 3.77 || d.Values[0].N != 6 || d.Values[0].Model != "deepseek-test-0813" {
		t.Fatalf("golden values = %#v, want the selected golden value", d.Values)
	}
	// The same pin against a block size of 5 (golden 3.61) fails.
	tc.settings[2].Value = "5"
	specCheck(t, runGalCase(t, tc), checks.Fail, "pins SGLANG_SIMULATE_ACC_LEN 3.77; golden thinking_on[5] is 3.61.")
}
