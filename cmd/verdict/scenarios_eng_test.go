package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Acceptance scenarios S5, S7 and S9 of INFERENCEX.md §7 (and the Check 9
// chat-template rule) in the legacy root layout. Fixtures:
// testdata/fixtures/eng-*; variants are built from them in a temp dir.

// runEngScenario runs `verdict check --format json` on dir at review date.
func runEngScenario(t *testing.T, dir, date string) (int, jsonVerdict) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cmdCheck(context.Background(), []string{"--fixture", dir, "--date", date, "--format", "json"}, &out, &errb)
	var v jsonVerdict
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%s: decoding the JSON verdict (exit %d): %v\nstdout: %s\nstderr: %s", dir, code, err, out.String(), errb.String())
	}
	return code, v
}

// engVariant copies fixture name to a temp dir and applies edits: path
// (relative to the fixture) -> old/new replacements; an edit with old == ""
// writes new as the whole file; with new == "" and old == "" deletes it.
type engEdit struct{ path, old, new string }

func engVariant(t *testing.T, name string, edits ...engEdit) string {
	t.Helper()
	tmp := t.TempDir()
	copyTree(t, legacyFixture(name), tmp)
	for _, e := range edits {
		p := filepath.Join(tmp, filepath.FromSlash(e.path))
		if e.old == "" {
			if e.new == "" {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(e.new), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(e.old)) {
			t.Fatalf("%s lacks %q", e.path, e.old)
		}
		raw = bytes.ReplaceAll(raw, []byte(e.old), []byte(e.new))
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

func wantVerdict(t *testing.T, code int, v jsonVerdict, pass bool) {
	t.Helper()
	if pass && (code != exitPass || v.Verdict != "PASS") {
		t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
	}
	if !pass && (code != exitRejected || v.Verdict != "REJECTED") {
		t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
	}
}

// A consequential Check 5 row: the unchecked "if any criterion above" item
// is no longer excused once another checklist criterion fails.
var engCheck5Review = legacyRow{"FAIL", []string{`Needs human review: unchecked items explained only in the Additional detail section: "if any criterion above".`}}

func TestEngScenarioS5Image(t *testing.T) {
	base := map[int]legacyRow{
		0:  {"PASS", []string{"@amd-owner-a owns configs/amd-master.yaml"}},
		3:  {"PASS", []string{"vllm-project/recipes#530 merged", "sgl-project/sglang#21873 merged"}},
		11: {"PASS", []string{"pinned 3.31 = golden"}},
		12: {"N/A", nil},
		14: {"PASS", []string{"mi355x_vllm/fp8/30123456789/median: 5/5 frontier points"}},
	}
	rows := func(extra map[int]legacyRow) map[int]legacyRow {
		m := map[int]legacyRow{}
		for k, r := range base {
			m[k] = r
		}
		for k, r := range extra {
			m[k] = r
		}
		return m
	}
	t.Run("established MI355X, no exception", func(t *testing.T) {
		code, v := runEngScenario(t, legacyFixture("eng-s5-image"), legacyScenarioDate)
		wantVerdict(t, code, v, false)
		assertLegacyRows(t, v, rows(map[int]legacyRow{
			5: engCheck5Review,
			6: {"FAIL", []string{"vllm entry qwen3.5-fp8-mi355x-vllm uses rocm/vllm-dev:nightly_main_20261110 on established MI355X with no documented exception."}},
		}))
	})
	t.Run("new hardware mi455x", func(t *testing.T) {
		const script = "trees/head/benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x_vllm.sh"
		body, err := os.ReadFile(filepath.Join(legacyFixture("eng-s5-image"), filepath.FromSlash(script)))
		if err != nil {
			t.Fatal(err)
		}
		dir := engVariant(t, "eng-s5-image",
			engEdit{"trees/head/configs/amd-master.yaml", "  model-prefix: qwen3.5\n  runner: mi355x\n  precision: fp8\n  framework: vllm", "  model-prefix: qwen3.5\n  runner: mi455x\n  precision: fp8\n  framework: vllm"},
			engEdit{script, "", ""},
			engEdit{strings.Replace(script, "mi355x", "mi455x", 1), "", string(body)},
			engEdit{"artifacts/results_bmk/agg_bmk.json", `"mi355x"`, `"mi455x"`},
			engEdit{"fixture.yaml", "qwen3.5 fp8 mi355x vllm", "qwen3.5 fp8 mi455x vllm"},
		)
		code, v := runEngScenario(t, dir, legacyScenarioDate)
		wantVerdict(t, code, v, true)
		assertLegacyRows(t, v, rows(map[int]legacyRow{
			6:  {"PASS", nil},
			14: {"PASS", []string{"mi455x_vllm/fp8/30123456789/median: 5/5 frontier points"}},
		}))
	})
	t.Run("exception claimed", func(t *testing.T) {
		dir := engVariant(t, "eng-s5-image",
			engEdit{"fixture.yaml", "              - vLLM recipe: https://github.com/vllm-project/recipes/pull/530 (merged)\n",
				"              - vLLM recipe: https://github.com/vllm-project/recipes/pull/530 (merged)\n              - Image: exception: new model architecture not supported upstream (rocm/vllm-dev carries the Qwen3.5 gated-delta-net kernels for ROCm)\n"},
			engEdit{"fixture.yaml", "- [ ] If any criterion above cannot", "- [x] If any criterion above cannot"},
		)
		code, v := runEngScenario(t, dir, legacyScenarioDate)
		wantVerdict(t, code, v, false)
		assertLegacyRows(t, v, rows(map[int]legacyRow{
			5: {"PASS", nil},
			6: {"FAIL", []string{"Needs human review: exception claimed for rocm/vllm-dev:nightly_main_20261110"}},
		}))
	})
}

// s7Rows are the rows of the retargeted legacy-s1-pass PR.
func s7Rows(prefix string, extra map[int]legacyRow) map[int]legacyRow {
	m := map[int]legacyRow{
		2:  {"PASS", []string{prefix + " b200 sglang fp4 c256 gsm8k", "same image"}},
		3:  {"PASS", []string{"sgl-project/sglang#21873 merged"}},
		9:  {"PASS", []string{prefix + "-fp4-b200-sglang-mtp benchmark uses --use-chat-template"}},
		11: {"N/A", []string{"No agentic speculative-decoding changes."}},
		12: {"N/A", nil},
		14: {"PASS", []string{prefix + "/8k1k/b200_sglang_mtp/fp4/30123456789/median: 7/5 frontier points"}},
	}
	for k, r := range extra {
		m[k] = r
	}
	return m
}

func TestEngScenarioS7Deprecated(t *testing.T) {
	t.Run("kimik2.5 retired", func(t *testing.T) {
		code, v := runEngScenario(t, legacyFixture("eng-s7-deprecated"), "2026-10-01")
		wantVerdict(t, code, v, false)
		assertLegacyRows(t, v, s7Rows("kimik2.5", map[int]legacyRow{
			5: engCheck5Review,
			7: {"FAIL", []string{"kimik2.5 is fully retired (MODELS.md support matrix", "2026-08-07"}},
		}))
	})
	t.Run("dsv4 8k1k on its last day", func(t *testing.T) {
		code, v := runEngScenario(t, legacyFixture("eng-s7-notice"), "2026-09-08")
		wantVerdict(t, code, v, true)
		assertLegacyRows(t, v, s7Rows("dsv4", map[int]legacyRow{
			7: {"PASS", []string{"dsv4 Single-turn 8k1k is active (review date 2026-09-08)"}},
		}))
	})
	t.Run("dsv4 8k1k the day after", func(t *testing.T) {
		code, v := runEngScenario(t, legacyFixture("eng-s7-notice"), "2026-09-09")
		wantVerdict(t, code, v, false)
		assertLegacyRows(t, v, s7Rows("dsv4", map[int]legacyRow{
			5: engCheck5Review,
			7: {"FAIL", []string{"dsv4 Single-turn 8k1k is deprecated", "last day 2026-09-08"}},
		}))
	})
}

const engTRTScript = `#!/usr/bin/env bash
# Qwen3.5 FP8 agentic coding: TRT-LLM with the embedded MTP head (3 draft tokens).
# Acceptance is forced to the golden thinking-on AL for 3 draft tokens (3.39):
# TRT-LLM counts accepted draft tokens only, so it is pinned at AL - 1.
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_FILENAME SERVER_LOG

cat > /tmp/extra_llm_api_options.yaml <<YAML
speculative_config:
  decoding_type: MTP
  max_draft_len: 3
YAML

export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.39

trtllm-serve "$MODEL" \
  --tp_size "$TP" \
  --extra_llm_api_options /tmp/extra_llm_api_options.yaml \
  --port 8000 > "$SERVER_LOG" 2>&1 &

wait_for_server_ready 8000

aiperf profile --endpoint-type chat --url localhost:8000 \
  --model "$MODEL" --concurrency "$CONC" \
  --input-file agentic_traces/coding.jsonl \
  --artifact-dir "results/${RESULT_FILENAME}"
`

const engFixedSeqSimScript = `#!/usr/bin/env bash
# Qwen3.5 FP8 on MI355X with SGLang and the embedded MTP head (3 speculative
# steps), fixed sequence length.
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RESULT_FILENAME SERVER_LOG

export SGLANG_SIMULATE_ACC_LEN=3.39
export SGLANG_SIMULATE_ACC_METHOD=match-expected

python3 -m sglang.launch_server \
  --model-path "$MODEL" \
  --tp-size "$TP" \
  --mem-fraction-static 0.85 \
  --speculative-algorithm EAGLE \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --port 8000 > "$SERVER_LOG" 2>&1 &

wait_for_server_ready 8000

run_benchmark_serving \
  --model "$MODEL" --port 8000 \
  --input-len "$ISL" --output-len "$OSL" \
  --max-concurrency "$CONC" --num-prompts $((CONC * 10)) \
  --use-chat-template \
  --result-filename "$RESULT_FILENAME"
`

func TestEngScenarioS9Engines(t *testing.T) {
	t.Run("vLLM synthetic speculative-config", func(t *testing.T) {
		code, v := runEngScenario(t, legacyFixture("eng-s9-engines"), legacyScenarioDate)
		wantVerdict(t, code, v, true)
		assertLegacyRows(t, v, map[int]legacyRow{
			3:  {"PASS", []string{"vllm-project/recipes#530 merged"}},
			6:  {"PASS", []string{"vllm/vllm-openai-rocm image"}},
			11: {"PASS", []string{"qwen3.5 MTP n=3 thinking_on pinned 3.39 = golden qwen3.5_mtp.yaml"}},
			12: {"N/A", nil},
			14: {"PASS", []string{"qwen3.5/agentic-coding/mi355x_vllm/fp8/30123456789/p90: 5/5 frontier points"}},
		})
	})
	t.Run("TRT-LLM forced accepted tokens", func(t *testing.T) {
		const vscript = "trees/head/benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_vllm_mtp.sh"
		dir := engVariant(t, "eng-s9-engines",
			engEdit{"trees/main/configs/amd-master.yaml", "vllm/vllm-openai-rocm:v0.19.0", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0"},
			engEdit{"trees/main/configs/amd-master.yaml", "framework: vllm", "framework: trt"},
			engEdit{"trees/head/configs/amd-master.yaml", "vllm/vllm-openai-rocm:v0.19.1", "nvcr.io/nvidia/tensorrt-llm/release:1.2.1"},
			engEdit{"trees/head/configs/amd-master.yaml", "framework: vllm", "framework: trt"},
			engEdit{vscript, "", ""},
			engEdit{strings.Replace(vscript, "_vllm_", "_trt_", 1), "", engTRTScript},
		)
		code, v := runEngScenario(t, dir, legacyScenarioDate)
		if code == exitError {
			t.Fatalf("exit %d", code)
		}
		// Only the rows this variant is about: the fixture's artifacts
		// and description still name vLLM.
		if c := v.Checks[11]; c.Status != "PASS" || !strings.Contains(c.Reason, "pinned TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS 2.39 (AL 3.39) = golden qwen3.5_mtp.yaml") {
			t.Errorf("Check 11: got %s %q", c.Status, c.Reason)
		}
		if c := v.Checks[13]; c.Status != "PASS" {
			t.Errorf("Check 13: got %s %q", c.Status, c.Reason)
		}
	})
	// Legacy vLLM scripts keep real acceptance for EVAL_ONLY runs and pass
	// the synthetic speculative-config through a shell variable.
	t.Run("vLLM speculative-config from an EVAL_ONLY branch variable", func(t *testing.T) {
		const script = "trees/head/benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_vllm_mtp.sh"
		dir := engVariant(t, "eng-s9-engines",
			engEdit{script, `  --speculative-config '{"method":"mtp","num_speculative_tokens":3,"rejection_sample_method":"synthetic","synthetic_acceptance_length":3.39}' \`,
				`  --speculative-config "$SPEC_CONFIG" \`},
			engEdit{script, "check_env_vars MODEL TP CONC RESULT_FILENAME SERVER_LOG\n",
				"check_env_vars MODEL TP CONC RESULT_FILENAME SERVER_LOG\n\n" +
					"# Eval-only runs verify with real acceptance (synthetic acceptance commits\n" +
					"# drafted tokens regardless of the target logits).\n" +
					"if [[ \"${EVAL_ONLY:-false}\" == \"true\" ]]; then\n" +
					"  SPEC_CONFIG='{\"method\":\"mtp\",\"num_speculative_tokens\":3}'\n" +
					"else\n" +
					"  SPEC_CONFIG='{\"method\":\"mtp\",\"num_speculative_tokens\":3,\"rejection_sample_method\":\"synthetic\",\"synthetic_acceptance_length\":3.39}'\n" +
					"fi\n"},
		)
		code, v := runEngScenario(t, dir, legacyScenarioDate)
		wantVerdict(t, code, v, true)
		if c := v.Checks[11]; c.Status != "PASS" || !strings.Contains(c.Reason, "n=3 thinking_on pinned 3.39 = golden qwen3.5_mtp.yaml") {
			t.Errorf("Check 11: got %s %q", c.Status, c.Reason)
		}
	})
	// TRT-LLM's MTP config spells the draft length num_nextn_predict_layers.
	t.Run("TRT-LLM MTP num_nextn_predict_layers", func(t *testing.T) {
		const vscript = "trees/head/benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_vllm_mtp.sh"
		dir := engVariant(t, "eng-s9-engines",
			engEdit{"trees/main/configs/amd-master.yaml", "vllm/vllm-openai-rocm:v0.19.0", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0"},
			engEdit{"trees/main/configs/amd-master.yaml", "framework: vllm", "framework: trt"},
			engEdit{"trees/head/configs/amd-master.yaml", "vllm/vllm-openai-rocm:v0.19.1", "nvcr.io/nvidia/tensorrt-llm/release:1.2.1"},
			engEdit{"trees/head/configs/amd-master.yaml", "framework: vllm", "framework: trt"},
			engEdit{vscript, "", ""},
			engEdit{strings.Replace(vscript, "_vllm_", "_trt_", 1), "", strings.Replace(engTRTScript, "  max_draft_len: 3\n", "  num_nextn_predict_layers: 3\n", 1)},
		)
		_, v := runEngScenario(t, dir, legacyScenarioDate)
		if c := v.Checks[11]; c.Status != "PASS" || !strings.Contains(c.Reason, "n=3 thinking_on pinned TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS 2.39 (AL 3.39) = golden qwen3.5_mtp.yaml") {
			t.Errorf("Check 11: got %s %q", c.Status, c.Reason)
		}
	})
	t.Run("non-agentic 8k1k with SGLANG_SIMULATE_ACC_LEN", func(t *testing.T) {
		dir := engVariant(t, "eng-s9-engines",
			engEdit{"trees/head/benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x_sglang_mtp.sh", "", engFixedSeqSimScript},
		)
		code, v := runEngScenario(t, dir, legacyScenarioDate)
		wantVerdict(t, code, v, false)
		c := v.Checks[11]
		if c.Status != "FAIL" || !strings.Contains(c.Reason, "qwen3.5-fp8-mi355x-sglang-mtp is not agentic but sets SGLANG_SIMULATE_ACC_LEN in benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x_sglang_mtp.sh (benchmark hack") {
			t.Errorf("Check 11: got %s %q", c.Status, c.Reason)
		}
	})
}

func TestEngScenarioS9ChatTemplate(t *testing.T) {
	code, v := runEngScenario(t, legacyFixture("eng-s9-chat"), legacyScenarioDate)
	wantVerdict(t, code, v, false)
	rows := map[int]legacyRow{}
	for k, r := range s1Rows {
		rows[k] = r
	}
	rows[5] = engCheck5Review
	rows[9] = legacyRow{"FAIL", []string{"dsr1_fp4_b200_sglang_mtp.sh:26 runs run_benchmark_serving without --use-chat-template"}}
	assertLegacyRows(t, v, rows)
}
