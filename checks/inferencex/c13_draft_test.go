package inferencex_test

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/udiff"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

const draftEvidence = "- Draft: embedded MTP head of Org/Model-FP8, stored BF16, effective BF16 (default handling)"

func TestDraftPrecisionCheck(t *testing.T) {
	const rec = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/b200-fp4-mtp/agentic.yaml"
	const helper = "benchmarks/single_node/agentic/helper.sh"
	spec := specEntry("qwen3.5-fp4-b200-sglang-agentic-mtp", "qwen3.5", "sglang", true, true, repo.SearchSpace{TP: 8})
	spec.Model = "Org/Qwen3.5-NVFP4"
	plain := specEntry("qwen3.5-fp4-b200-sglang", "qwen3.5", "sglang", false, false, repo.SearchSpace{TP: 8})
	base := []repo.Setting{specSet(rec, "decode", "arg", "speculative-algorithm", "EAGLE", 3)}
	tests := []struct {
		name     string
		entry    *repo.ConfigEntry
		files    []*repo.EffectiveFile
		detail   string
		status   checks.Status
		reason   string
		review   bool
		noDetail bool
	}{
		{name: "no spec decode", entry: plain, status: checks.NA, reason: "No affected configuration uses speculative decoding."},
		{name: "recipe env enables named knob", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: append(base, specSet(rec, "decode", "env", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", `"1"`, 9))}},
			status: checks.Fail, reason: "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 in " + rec + " roles.decode.env (qwen3.5-fp4-b200-sglang-agentic-mtp); remove it and verify the draft runs as shipped."},
		{name: "S11 inherited from unchanged helper", entry: spec, detail: draftEvidence,
			files: []*repo.EffectiveFile{
				{Path: rec, Kind: "recipe", Changed: true, Settings: base},
				{Path: helper, Kind: "helper", Changed: false, Settings: []repo.Setting{specSet(helper, "", "env", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "True", 14)}},
			},
			status: checks.Fail, reason: "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=True via " + helper + ":14"},
		{name: "disabled value is fine", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: append(base, specSet(rec, "decode", "env", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "0", 9))}},
			status: checks.Pass, reason: "Draft stored BF16, served BF16 (sign-off evidence); no draft-lowering settings."},
		{name: "unknown value needs review", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: append(base, specSet(rec, "decode", "env", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "maybe", 9))}},
			status: checks.Fail, reason: "Needs human review: SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=maybe"},
		{name: "GLM PTPC", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: append(base, specSet(rec, "decode", "env", "SGLANG_GLM_NEXTN_MOE_PTPC", "1", 9))}},
			status: checks.Fail, reason: "SGLANG_GLM_NEXTN_MOE_PTPC=1 in " + rec + " roles.decode.env"},
		{name: "quark draft quantization", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--speculative-draft-model-quantization", "quark_mxfp4", 22)}}},
			status: checks.Fail, reason: "--speculative-draft-model-quantization quark_mxfp4 via s.sh:22 lowers the draft precision"},
		{name: "vLLM speculative-config quantization", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: []repo.Setting{specSet(rec, "agg", "arg", "speculative-config", `{"method":"mtp","num_speculative_tokens":2,"quantization":"fp8"}`, 5)}}},
			status: checks.Fail, reason: "speculative-config quantization fp8 in " + rec + " roles.agg.args lowers the draft precision"},
		{name: "unquantized restated default", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--speculative-draft-model-quantization", "unquant", 22)}}},
			status: checks.Pass, reason: "no draft-lowering settings"},
		{name: "unknown quantization needs review", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--speculative-draft-model-quantization", "bitsandbytes", 22)}}},
			status: checks.Fail, reason: "Needs human review: --speculative-draft-model-quantization bitsandbytes"},
		{name: "re-quantized draft path", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--speculative-draft-model-path", "someone/Qwen3.5-MTP-INT4", 22)}}},
			status: checks.Fail, reason: "Needs human review: qwen3.5-fp4-b200-sglang-agentic-mtp draft someone/Qwen3.5-MTP-INT4 looks re-quantized (int4)"},
		{name: "S11 variant no evidence", entry: spec, detail: "- insert any additional info here",
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: base}},
			status: checks.Fail, reason: "Draft precision could not be verified: sign-off does not record draft checkpoint and stored/effective precision"},
		{name: "evidence without precision", entry: spec, detail: "- Draft: embedded MTP head, looks fine",
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: base}},
			status: checks.Fail, reason: "Draft precision could not be verified"},
		{name: "generic evidence wording", entry: spec, detail: "- NextN draft checkpoint is bf16 as stored and effective",
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: base}},
			status: checks.Pass, reason: "Draft precision per sign-off evidence; no draft-lowering settings in the effective recipe."},
		// Online quantization of the checkpoint reaches an embedded draft
		// unless its exclude list names the draft's modules.
		{name: "ATOM online quantization, numbered MTP layer", entry: spec, detail: draftEvidence,
			files: []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--online_quant_config",
				`'{"global_quant_config":"ptpc_fp8","exclude_layer":["lm_head","model.layers.78.*"]}'`, 30)}}},
			status: checks.Fail, reason: "Needs human review: qwen3.5-fp4-b200-sglang-agentic-mtp sets online quantization --online_quant_config via s.sh:30, and no exclude entry names the draft modules"},
		{name: "ATOM online quantization excluding the MTP head", entry: spec, detail: draftEvidence,
			files: []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--online_quant_config",
				`{"global_quant_config":"ptpc_fp8","exclude_layer":["lm_head","*mtp*"]}`, 30)}}},
			status: checks.Pass, reason: "no draft-lowering settings"},
		{name: "vLLM quantization-config without the draft", entry: spec, detail: draftEvidence,
			files: []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: append(base, specSet(rec, "decode", "arg", "quantization-config",
				`'{"linear":{"weight":"mxfp8"},"ignore":["re:.*visual\\..*","lm_head"]}'`, 12))}},
			status: checks.Fail, reason: "Needs human review: qwen3.5-fp4-b200-sglang-agentic-mtp sets online quantization quantization-config in " + rec + " roles.decode.args, and no exclude entry names the draft modules (mtp, nextn, eagle, draft); verify the draft is not quantized."},
		{name: "vLLM quantization-config ignoring the MTP head", entry: spec, detail: draftEvidence,
			files: []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: append(base, specSet(rec, "decode", "arg", "quantization-config",
				`'{"linear":{"weight":"mxfp8"},"ignore":["re:.*mtp\\..*","lm_head"]}'`, 12))}},
			status: checks.Pass, reason: "no draft-lowering settings"},
		{name: "ATOM plugin config inside vLLM additional-config", entry: spec, detail: draftEvidence,
			files: []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--additional-config",
				`{"online_quant_config": {"global_quant_config": "ptpc_fp8", "exclude_layer": ["lm_head", "*block_sparse_moe"]}}`, 31)}}},
			status: checks.Fail, reason: "Needs human review: qwen3.5-fp4-b200-sglang-agentic-mtp sets online quantization --additional-config online_quant_config via s.sh:31"},
		{name: "an unreadable quantization config", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: "s.sh", Kind: "script", Settings: []repo.Setting{specSet("s.sh", "", "flag", "--quantization-config", "$QUANT_CONFIG", 33)}}},
			status: checks.Fail, reason: "Needs human review: qwen3.5-fp4-b200-sglang-agentic-mtp sets --quantization-config via s.sh:33, which could not be read"},
		{name: "unreadable effective file", entry: spec, detail: draftEvidence,
			files:  []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Err: "not found"}},
			status: checks.Fail, reason: "could not be verified: effective launch files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := &changeset.Model{Affected: []*repo.ConfigEntry{tc.entry}, Effective: map[string][]*repo.EffectiveFile{tc.entry.Key: tc.files}}
			pr := specPR(t, cs, nil, repo.LegacyLayout(), tc.detail)
			specCheck(t, specRun(t, inferencex.DraftPrecision, pr), tc.status, tc.reason)
		})
	}
}

// TestNAIsFailClosed: a check that would say N/A says "could not be
// verified" when a master config or the changelog could not be read.
func TestNAIsFailClosed(t *testing.T) {
	plain := specEntry("qwen3.5-fp4-b200-sglang", "qwen3.5", "trt", false, false, repo.SearchSpace{TP: 8})
	for _, c := range []*checks.Check{inferencex.DraftPrecision, inferencex.GoldenAcceptance, inferencex.UpstreamRecipe, inferencex.AppendOnly} {
		cs := &changeset.Model{Affected: []*repo.ConfigEntry{plain},
			Problems: []repo.InputProblem{{Path: "configs/nvidia-master.yaml", Err: "yaml: line 3: mapping values are not allowed"}}}
		pr := specPR(t, cs, nil, repo.LegacyLayout(), draftEvidence)
		specCheck(t, specRun(t, c, pr), checks.Fail, "could not be verified: configs/nvidia-master.yaml: yaml: line 3")
		cs.Problems = nil
		pr = specPR(t, cs, nil, repo.LegacyLayout(), draftEvidence)
		if r := specRun(t, c, pr); r.Status != checks.NA {
			t.Fatalf("check %d without problems = %+v, want N/A", c.Number, r)
		}
	}
}

func TestDraftPrecisionUnmappedSharedFile(t *testing.T) {
	plain := specEntry("qwen3.5-fp4-b200-sglang", "qwen3.5", "sglang", false, false, repo.SearchSpace{TP: 8})
	const lib = "benchmarks/benchmark_lib.sh"
	for _, tc := range []struct {
		line   string
		status checks.Status
		reason string
	}{
		{"export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1", checks.Fail, "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 via " + lib + ":7 (shared file, configs not mapped)"},
		{"# export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1", checks.NA, "No affected configuration uses speculative decoding."},
		{"export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=0", checks.NA, "No affected configuration uses speculative decoding."},
	} {
		cs := &changeset.Model{Affected: []*repo.ConfigEntry{plain}, UnmappedFiles: []string{lib},
			AddedLines: map[string][]udiff.Line{lib: {{Line: 7, Text: tc.line}}}}
		pr := specPR(t, cs, nil, repo.LegacyLayout(), "")
		specCheck(t, specRun(t, inferencex.DraftPrecision, pr), tc.status, tc.reason)
	}
}
