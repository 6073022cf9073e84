package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// These tests run Checks 3, 11, 12 and 13 through the real change-set
// builder on the shared test fixture repository, in both layouts.

const specQwenAgentic = `qwen3.5-fp8-b200-sglang-agentic-mtp:
  image: lmsysorg/sglang:v0.5.20-cu130
  model: Qwen/Qwen3.5-397B-A17B-FP8
  model-prefix: qwen3.5
  runner: b200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - { tp: 8, ep: 1, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4],
          srt-recipe: benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/b200-fp8-mtp/agentic.yaml }
`

const specQwenRecipe = `name: "qwen3.5-b200-agentic-mtp"
model:
  path: "Qwen/Qwen3.5-397B-A17B-FP8"
  container: "sglang"
  precision: "fp8"
roles:
  agg:
    args:
      tp-size: 8
      speculative-algorithm: EAGLE
      speculative-num-steps: 3
      speculative-eagle-topk: 1
    env:
%s
benchmark:
  type: custom
  env:
    RESULT_DIR: /logs/agentic
`

func specBuilderRun(t *testing.T, r *inferencextest.Repo, c *checks.Check, golden bool) checks.Result {
	t.Helper()
	pr, src := r.PR(t)
	if golden {
		src.SetFile(inferencextest.DefaultSHA, r.Layout.GoldenDir+"/qwen3.5_mtp.yaml", qwenGolden)
	}
	return checkstest.RunOne(t, pr, c)
}

func TestGoldenALThroughBuilder(t *testing.T) {
	const recipe = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/b200-fp8-mtp/agentic.yaml"
	tests := []struct {
		name, env string
		status    map[string]checks.Status
		want      map[string]string
	}{
		{name: "pinned mismatch", env: `      SGLANG_SIMULATE_ACC_LEN: "3.50"`,
			status: map[string]checks.Status{"legacy": checks.Fail, "e2e": checks.Fail},
			want: map[string]string{"legacy": "qwen3.5-fp8-b200-sglang-agentic-mtp pins SGLANG_SIMULATE_ACC_LEN 3.50; golden thinking_on[3] is 3.39.",
				"e2e": "qwen3.5-fp8-b200-sglang-agentic-mtp pins SGLANG_SIMULATE_ACC_LEN 3.50; golden thinking_on[3] is 3.39."}},
		{name: "pinned golden", env: `      SGLANG_SIMULATE_ACC_LEN: "3.39"`,
			status: map[string]checks.Status{"legacy": checks.Pass, "e2e": checks.Pass},
			want:   map[string]string{"legacy": "qwen3.5 MTP n=3 thinking_on pinned 3.39 = golden qwen3.5_mtp.yaml.", "e2e": "pinned 3.39"}},
		{name: "no knob: launcher injects only in e2e", env: `      SGLANG_ENABLE_SPEC_V2: "1"`,
			status: map[string]checks.Status{"legacy": checks.Fail, "e2e": checks.Pass},
			want:   map[string]string{"legacy": "runs real acceptance", "e2e": "SRT launcher injects golden 3.39 from qwen3.5_mtp.yaml."}},
	}
	for _, tc := range tests {
		for name, layout := range inferencextest.Layouts() {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r := inferencextest.NewRepo(layout)
				r.AppendEntry("configs/nvidia-master.yaml", specQwenAgentic)
				r.Head[recipe] = strings.Replace(specQwenRecipe, "%s", tc.env, 1)
				res := specBuilderRun(t, r, inferencex.GoldenAcceptance, true)
				inferencextest.Expect(t, res, tc.status[name], tc.want[name])
			})
		}
	}
}

func TestDraftPrecisionThroughBuilder(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run("S11 inherited helper/"+name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			lib := "benchmarks/benchmark_lib.sh"
			withKnob := strings.Replace(r.Base[lib], "# Shared helpers.\n", "# Shared helpers.\nexport SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n", 1)
			r.Base[lib], r.Head[lib] = withKnob, withKnob // unchanged by the PR
			r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
				"lmsysorg/sglang:v0.5.12-cu130", "lmsysorg/sglang:v0.5.13-cu130", 1)
			r.Detail = draftEvidence
			res, _ := r.RunCheck(t, inferencex.DraftPrecision)
			inferencextest.Expect(t, res, checks.Fail, "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 via "+layout.Root+lib+":3", "(dsr1-fp4-b200-sglang-mtp); remove it and verify the draft runs as shipped.")
		})
		t.Run("clean spec decode/"+name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
				"lmsysorg/sglang:v0.5.12-cu130", "lmsysorg/sglang:v0.5.13-cu130", 1)
			r.Detail = draftEvidence
			res, _ := r.RunCheck(t, inferencex.DraftPrecision)
			inferencextest.Expect(t, res, checks.Pass, "Draft stored BF16, served BF16")
		})
	}
}

func TestAppendOnlyThroughBuilder(t *testing.T) {
	const entry = "\n- config-keys:\n    - qwen3.5-fp8-b200-sglang\n  description:\n    - \"Append conc 6\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n  append-only: true\n"
	const oldSS = "      - { tp: 8, conc-start: 4, conc-end: 64 }"
	tests := []struct {
		name, baseSS, headSS string
		status               checks.Status
		want                 string
	}{
		// 4..48 doubles to 4, 8, 16, 32, 48: all five must survive.
		{"range expansion with clamp", "      - { tp: 8, conc-start: 4, conc-end: 48 }", "      - { tp: 8, conc-list: [4, 6, 8, 16, 32, 48] }",
			checks.Pass, "Adds conc 6 to qwen3.5-fp8-b200-sglang; all 5 base points unchanged; no shared files changed."},
		{"clamped end dropped", "      - { tp: 8, conc-start: 4, conc-end: 48 }", "      - { tp: 8, conc-list: [4, 6, 8, 16, 32, 64] }",
			checks.Fail, "Existing point tp=8 conc=48 removed from qwen3.5-fp8-b200-sglang."},
		{"new element", oldSS, oldSS + "\n      - { tp: 4, conc-list: [2, 6] }",
			checks.Pass, "Adds conc 2, 6 to qwen3.5-fp8-b200-sglang; all 5 base points unchanged"},
	}
	for _, tc := range tests {
		for name, layout := range inferencextest.Layouts() {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r := inferencextest.NewRepo(layout)
				const f = "configs/nvidia-master.yaml"
				r.Base[f] = strings.Replace(r.Base[f], oldSS, tc.baseSS, 1)
				r.Head[f] = strings.Replace(r.Head[f], oldSS, tc.headSS, 1)
				r.Head["perf-changelog.yaml"] += entry
				res, _ := r.RunCheck(t, inferencex.AppendOnly)
				inferencextest.Expect(t, res, tc.status, tc.want)
			})
		}
	}
}

func TestUpstreamRecipeThroughBuilder(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		for _, scope := range []string{"all", "single-node"} {
			t.Run("S15 "+scope+"/"+name, func(t *testing.T) {
				r := inferencextest.NewRepo(layout)
				const f = "configs/nvidia-master.yaml"
				r.Head[f] = strings.Replace(r.Head[f], "lmsysorg/sglang:v0.5.14-cu130", "lmsysorg/sglang:v0.5.15-cu130", 1)
				r.Detail = "- disagg, no recipe update required"
				pr, _ := r.PR(t)
				repo.SettingsParam.Get(pr).UpstreamRecipeScope = scope
				c := inferencex.UpstreamRecipe
				res := checkstest.RunOne(t, pr, c)
				if scope == "all" {
					inferencextest.Expect(t, res, checks.Fail, "No upstream recipe link in the additional detail section (dynamo-sglang disagg requires SGLang cookbook coverage).")
				} else {
					inferencextest.Expect(t, res, checks.NA, "disaggregated/multi-node submission; the recipe-link requirement applies to single-node recipes only")
				}
			})
		}
	}
}

// TestUnreadableRecipeIsNotAPass: a malformed recipe makes Checks 3, 11 and
// 13 say what they could not read instead of passing.
func TestUnreadableRecipeIsNotAPass(t *testing.T) {
	const recipe = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/b200-fp8-mtp/agentic.yaml"
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			r.AppendEntry("configs/nvidia-master.yaml", specQwenAgentic)
			r.Head[recipe] = strings.Replace(specQwenRecipe, "%s", "%%bad", 1)
			r.Detail = "- Recipe: https://github.com/sgl-project/sglang/pull/21873\n" + draftEvidence
			for _, c := range []*checks.Check{inferencex.UpstreamRecipe, inferencex.GoldenAcceptance, inferencex.DraftPrecision} {
				pr, src := r.PR(t)
				src.SetFile(inferencextest.DefaultSHA, layout.GoldenDir+"/qwen3.5_mtp.yaml", qwenGolden)
				src.Upstream, src.UpstreamFiles = recipeSource().Upstream, recipeSource().UpstreamFiles
				res := checkstest.RunOne(t, pr, c)
				inferencextest.Expect(t, res, checks.Fail, layout.Root+recipe+": ")
			}
		})
	}
}
