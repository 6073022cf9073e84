package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// e2emnRow is the expected status of one check row and substrings its
// English reason must contain.
type e2emnRow struct {
	status string
	reason []string
}

type e2emnVerdict struct {
	Verdict string `json:"verdict"`
	Checks  []struct {
		Number int    `json:"number"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"checks"`
}

// e2emnCheck runs `verdict check` on a fixture and asserts the overall
// verdict, the exit code and every one of the 16 rows.
func e2emnCheck(t *testing.T, fixture, verdict string, code int, rows map[int]e2emnRow) {
	t.Helper()
	var out, errb bytes.Buffer
	dir := filepath.Join("..", "..", "testdata", "fixtures", fixture)
	got := cmdCheck(context.Background(), []string{"--fixture", dir, "--date", "2026-11-20", "--format", "json"}, &out, &errb)
	if got != code {
		t.Fatalf("%s: exit code %d, want %d\nstderr: %s\n%s", fixture, got, code, errb.String(), out.String())
	}
	var v e2emnVerdict
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%s: invalid JSON: %v\n%s", fixture, err, out.String())
	}
	if v.Verdict != verdict {
		t.Errorf("%s: verdict %s, want %s", fixture, v.Verdict, verdict)
	}
	if len(v.Checks) != 16 {
		t.Fatalf("%s: %d rows, want 16", fixture, len(v.Checks))
	}
	for _, c := range v.Checks {
		want, ok := rows[c.Number]
		if !ok {
			t.Errorf("%s: no expectation for Check %d (%s — %s)", fixture, c.Number, c.Status, c.Reason)
			continue
		}
		if c.Status != want.status {
			t.Errorf("%s: Check %d is %s, want %s — %s", fixture, c.Number, c.Status, want.status, c.Reason)
		}
		for _, s := range want.reason {
			if !strings.Contains(c.Reason, s) {
				t.Errorf("%s: Check %d reason %q does not contain %q", fixture, c.Number, c.Reason, s)
			}
		}
	}
}

func e2emnPass(reason ...string) e2emnRow { return e2emnRow{"PASS", reason} }
func e2emnFail(reason ...string) e2emnRow { return e2emnRow{"FAIL", reason} }
func e2emnNA(reason ...string) e2emnRow   { return e2emnRow{"N/A", reason} }

// S15: multi-node dynamo-sglang disagg agentic MTP entry, green multi-node
// agentic runs, bmk_agentic_* artifacts (some as _conc<N> files), sign-off
// says "disagg, no recipe update required". gen 4: Check 3 FAILs.
func TestScenarioE2EMNS15Disagg(t *testing.T) {
	e2emnCheck(t, "e2emn-s15-disagg", "REJECTED", exitRejected, map[int]e2emnRow{
		0:  e2emnPass("@nv-owner-a owns inferencex-e2e/configs/nvidia-master.yaml"),
		1:  e2emnPass("Green benchmark + eval jobs on in-PR commit", "run 30123456789"),
		2:  e2emnPass("gsm8k", "0.952", "≥ 0.91", "same image"),
		3:  e2emnFail("No upstream recipe link in the additional detail section (dynamo-sglang disagg requires SGLang cookbook coverage)."),
		4:  e2emnPass("/use 30123456789"),
		5:  e2emnPass("All 17 current template items present"),
		6:  e2emnPass("Only open-source engine entries added."),
		7:  e2emnPass("dsv4 Agentic coding is active"),
		8:  e2emnPass("No architecture-override knobs; event publication not disabled."),
		9:  e2emnPass("dsv4-fp8-h200-dynamo-sglang-agentic-disagg-mtp", "/v1/chat/completions"),
		10: e2emnPass("No engine/serving-stack patching."),
		11: e2emnPass("pinned 2.49 = golden dsv4_mtp.yaml"),
		12: e2emnNA(),
		13: e2emnPass("stored BF16, served BF16"),
		14: e2emnPass("dsv4/agentic-coding/", "/fp8/30123456789/p90: 5/5 frontier points"),
		15: e2emnPass("search space"),
	})
}

// e2emnMultiNodeRows are the rows of the S15-based multi-node fixtures that
// the evidence makes PASS/N/A; each scenario overrides the rows it is about.
func e2emnMultiNodeRows(over map[int]e2emnRow) map[int]e2emnRow {
	rows := map[int]e2emnRow{
		0:  e2emnPass("@nv-owner-a owns inferencex-e2e/configs/nvidia-master.yaml"),
		1:  e2emnPass("run 30123456789"),
		2:  e2emnPass("gsm8k", "≥ 0.91"),
		3:  e2emnFail("No upstream recipe link in the additional detail section (dynamo-sglang disagg requires SGLang cookbook coverage)."),
		4:  e2emnPass("/use 30123456789"),
		5:  e2emnPass("All 17 current template items present"),
		6:  e2emnPass("Only open-source engine entries added."),
		7:  e2emnPass("dsv4 Agentic coding is active"),
		8:  e2emnPass("event publication not disabled"),
		9:  e2emnPass("/v1/chat/completions"),
		10: e2emnPass("No engine/serving-stack patching."),
		11: e2emnPass("pinned 2.49 = golden dsv4_mtp.yaml"),
		12: e2emnNA(),
		13: e2emnPass("stored BF16, served BF16"),
		14: e2emnPass("5/5 frontier points"),
		15: e2emnPass(),
	}
	for k, v := range over {
		rows[k] = v
	}
	return rows
}

// S18 + S11: the new recipe's decode role disables event publication, and
// the unchanged shared helper that its benchmark.command runs through the
// container workspace sources a file exporting SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1.
// The merged upstream cookbook PR makes Check 3 pass.
func TestScenarioE2EMNS18Events(t *testing.T) {
	const recipe = "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/agentic/disagg-h200-1p1d-tp8-mtp.yaml"
	e2emnCheck(t, "e2emn-s18-events", "REJECTED", exitRejected, e2emnMultiNodeRows(map[int]e2emnRow{
		3:  e2emnPass("sgl-project/sglang#22010 merged 2026-11-14", "TP", "moe-runner-backend", "disaggregation-mode", "disaggregation-transfer-backend"),
		8:  e2emnFail("publish_events_and_metrics: false in " + recipe + " (decode role)."),
		13: e2emnFail("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 via inferencex-e2e/benchmarks/multi_node/agentic_env.sh", "remove it and verify the draft runs as shipped"),
	}))
}

// S11 variant: the unchanged multi-node runner launcher exports the draft
// precision override for every worker.
func TestScenarioE2EMNS11Launcher(t *testing.T) {
	e2emnCheck(t, "e2emn-s11-launcher", "REJECTED", exitRejected, e2emnMultiNodeRows(map[int]e2emnRow{
		13: e2emnFail("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 via inferencex-e2e/runners/launch_h200-multinode.sh:9", "remove it"),
	}))
}

// e2emnSampleRows are the rows of the sample-based single-node agentic
// fixtures (qwen3.5 fp8 mi355x sglang agentic MTP, PR #3412).
func e2emnSampleRows(over map[int]e2emnRow) map[int]e2emnRow {
	rows := map[int]e2emnRow{
		0:  e2emnPass("@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml"),
		1:  e2emnPass("Green benchmark + eval jobs on in-PR commit", "run 30123456789"),
		2:  e2emnPass("gsm8k", "≥ 0.94", "same image"),
		3:  e2emnPass("sgl-project/sglang#21873 merged"),
		4:  e2emnPass("/use 30123456789"),
		5:  e2emnPass("All 17 current template items present"),
		6:  e2emnPass("lmsysorg/sglang-rocm"),
		7:  e2emnPass("qwen3.5 Agentic coding is active"),
		8:  e2emnPass("No architecture-override knobs"),
		9:  e2emnPass("/v1/chat/completions"),
		10: e2emnPass("No engine/serving-stack patching."),
		11: e2emnPass(),
		12: e2emnNA(),
		13: e2emnPass("stored BF16, served BF16"),
		14: e2emnPass("qwen3.5/agentic-coding/mi355x_sglang/fp8/30123456789/p90: 5/5 frontier points"),
		15: e2emnPass(),
	}
	for k, v := range over {
		rows[k] = v
	}
	return rows
}

// S9: SGLang agentic MTP recipe, speculative-num-steps 3, thinking on, pins
// SGLANG_SIMULATE_ACC_LEN 3.50; the committed golden qwen3.5_mtp.yaml says
// thinking_on[3] = 3.39. The PR body repeats the wrong AL (Check 15 WARN).
func TestScenarioE2EMNS9Golden(t *testing.T) {
	e2emnCheck(t, "e2emn-s9-golden", "REJECTED", exitRejected, e2emnSampleRows(map[int]e2emnRow{
		11: e2emnFail("qwen3.5-fp8-mi355x-sglang-agentic-mtp pins SGLANG_SIMULATE_ACC_LEN 3.50; golden thinking_on[3] is 3.39."),
		15: {"WARN", []string{`Body says "AL 3.50"`, "3.39"}},
	}))
}

// S9 variant: the recipe pins the golden 3.39 → PASS.
func TestScenarioE2EMNS9GoldenPass(t *testing.T) {
	e2emnCheck(t, "e2emn-s9-golden-pass", "PASS", exitPass, e2emnSampleRows(map[int]e2emnRow{
		11: e2emnPass("qwen3.5 MTP n=3 thinking_on pinned 3.39 = golden qwen3.5_mtp.yaml."),
		15: e2emnPass("AL"),
	}))
}

// S9 DSpark: dsv4 + dspark selects dsv4-pro-0813-dspark.yaml; SGLang's
// speculative-dspark-block-size 6 is the draft length; 3.77 = thinking_on[6].
func TestScenarioE2EMNS9DSpark(t *testing.T) {
	e2emnCheck(t, "e2emn-s9-dspark", "PASS", exitPass, e2emnSampleRows(map[int]e2emnRow{
		2:  e2emnPass("dsv4", "gsm8k", "≥ 0.91", "same image"),
		3:  e2emnPass("sgl-project/sglang#22100 merged 2026-11-15"),
		6:  e2emnPass("lmsysorg/sglang-rocm", "only open-source engine entries added"),
		7:  e2emnPass("dsv4 Agentic coding is active"),
		9:  e2emnPass("dsv4-fp4-mi355x-sglang-agentic-dspark", "/v1/chat/completions"),
		11: e2emnPass("dsv4 DSpark n=6 thinking_on pinned 3.77 = golden dsv4-pro-0813-dspark.yaml."),
		14: e2emnPass("dsv4/agentic-coding/mi355x_sglang/fp4/30123456789/p90: 5/5 frontier points"),
		15: e2emnPass("AL"),
	}))
}

// S13 on the sample: no reuse command at all, the conditional "If any
// criterion above cannot be met" item unchecked as in the sample. Check 4
// WARNs; an advisory Check 4 warning must not make Check 5 demand an
// exception explanation (that turned the verdict into REJECTED).
func TestScenarioE2EMNS13NoReuse(t *testing.T) {
	e2emnCheck(t, "e2emn-s13-nouse", "WARN", exitWarn, e2emnSampleRows(map[int]e2emnRow{
		4:  {"WARN", []string{"No authorized reuse command has been posted on this PR"}},
		5:  e2emnPass(`unchecked "append-only" and "if any criterion above" items are not applicable`),
		11: e2emnPass("pinned 3.31 = golden qwen3.5_mtp.yaml"),
	}))
}
