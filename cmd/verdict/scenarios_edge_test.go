package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Edge scenarios (scope gate, docs-only, S8, S10, S12 + prompt injection)
// run through `verdict check --fixture` on testdata/fixtures/edge-*.

func edgeDir(name string) string { return filepath.Join("..", "..", "testdata", "fixtures", name) }

// edgeRow is the expected status of one row and substrings its reason must hold.
type edgeRow struct {
	status string
	want   []string
}

func edgeRun(t *testing.T, fixture string, pr string) (int, jsonVerdict, string) {
	t.Helper()
	args := []string{"--fixture", edgeDir(fixture), "--date", "2026-11-20"}
	if pr != "" {
		args = append(args, "--repo", "SemiAnalysisAI/InferenceX", "--pr", pr)
	}
	code, out, errOut := runCheckJSON(t, args...)
	if out == "" {
		t.Fatalf("%s %s: no output (exit %d): %s", fixture, pr, code, errOut)
	}
	return code, decodeVerdict(t, fixture, out), out
}

func edgeAssert(t *testing.T, name string, v jsonVerdict, verdict string, rows map[int]edgeRow) {
	t.Helper()
	if v.Verdict != verdict {
		t.Errorf("%s: verdict %s, want %s", name, v.Verdict, verdict)
	}
	if len(v.Checks) != 16 {
		t.Fatalf("%s: %d rows, want 16", name, len(v.Checks))
	}
	for _, c := range v.Checks {
		want, ok := rows[c.Number]
		if !ok {
			t.Errorf("%s: no expectation for Check %d (%s %q)", name, c.Number, c.Status, c.Reason)
			continue
		}
		if c.Status != want.status {
			t.Errorf("%s: Check %d is %s (%q), want %s", name, c.Number, c.Status, c.Reason, want.status)
		}
		for _, s := range want.want {
			if !strings.Contains(c.Reason, s) {
				t.Errorf("%s: Check %d reason %q lacks %q", name, c.Number, c.Reason, s)
			}
		}
		if strings.Contains(c.Reason, "could not be verified") && want.status == "N/A" {
			t.Errorf("%s: N/A Check %d claims it could not be verified: %q", name, c.Number, c.Reason)
		}
	}
}

func TestEdgeNotRequired(t *testing.T) {
	code, v, out := edgeRun(t, "edge-not-required", "3420")
	if code != exitPass || v.Verdict != "NOT_REQUIRED" || len(v.Checks) != 0 {
		t.Fatalf("exit %d, output %s; want NOT_REQUIRED, exit 0, no rows", code, out)
	}
	if !strings.Contains(out, `"reason":"every changed file is owned by the core team or repository admins"`) {
		t.Errorf("reason missing: %s", out)
	}
	var stdout, stderr bytes.Buffer
	code = cmdCheck(context.Background(), []string{"--fixture", edgeDir("edge-not-required"), "--date", "2026-11-20",
		"--repo", "SemiAnalysisAI/InferenceX", "--pr", "3420"}, &stdout, &stderr)
	if code != exitPass || !strings.Contains(stdout.String(), "No sign-off required") || strings.Contains(stdout.String(), "Check 0") {
		t.Errorf("markdown: exit %d, %q", code, stdout.String())
	}

	// Same change against a base whose CODEOWNERS GitHub reports errors for:
	// no verdict and no NOT_REQUIRED, an error naming the line.
	stdout.Reset()
	stderr.Reset()
	code = cmdCheck(context.Background(), []string{"--fixture", edgeDir("edge-not-required"), "--date", "2026-11-20",
		"--repo", "SemiAnalysisAI/InferenceX", "--pr", "3421", "--format", "json"}, &stdout, &stderr)
	if code != exitError || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), ".github/CODEOWNERS at base tip") ||
		!strings.Contains(stderr.String(), "line 5: Unknown owner") {
		t.Errorf("CODEOWNERS errors: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func TestEdgeDocsOnly(t *testing.T) {
	// 3425 changes docs/amd/README.md; 3426 a README inside a recipe
	// directory under benchmarks/ (documentation is not a runtime file).
	for pr, owned := range map[string]string{
		"3425": "inferencex-e2e/docs/amd/README.md",
		"3426": "inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/mi355x-fp8-mtp/README.md",
	} {
		t.Run(pr, func(t *testing.T) {
			code, v, _ := edgeRun(t, "edge-docs-only", pr)
			if code != exitRejected {
				t.Errorf("exit %d, want %d (REJECTED)", code, exitRejected)
			}
			na := func(s string) edgeRow { return edgeRow{"N/A", []string{s}} }
			edgeAssert(t, "docs-only "+pr, v, "REJECTED", map[int]edgeRow{
				0: {"PASS", []string{"@amd-owner-a owns " + owned + " (specific rule)"}},
				// Faithful mode: a sign-off always needs a passing sweep, even for docs.
				1:  {"FAIL", []string{"No passing sweep/eval was found on any commit in this PR."}},
				2:  {"FAIL", []string{"No qualifying in-PR run; eval results cannot be verified."}},
				3:  na("No vLLM/SGLang serving configuration is affected"),
				4:  {"WARN", []string{"No authorized reuse command has been posted on this PR"}},
				5:  {"PASS", []string{`unchecked "append-only" item is not applicable`}},
				6:  na("PR changes no master-config entries."),
				7:  na("no benchmark configuration"),
				8:  na("no benchmark serving configuration"),
				9:  na("no spec-decode configuration"),
				10: na("touches no benchmark scripts"),
				11: na("No agentic speculative-decoding changes."),
				12: na("No added changelog entry uses append-only: true."),
				13: na("No affected configuration uses speculative decoding."),
				14: na("No change in this PR can affect a benchmark curve."),
				15: na("PR body makes no configuration or validation claims."),
			})
		})
	}
}

// edgeGreenRows are the rows of the qwen3.5 MI355X agentic MTP fixtures
// that pass with the shared run, sign-off and upstream recipe.
func edgeGreenRows(run string) map[int]edgeRow {
	return map[int]edgeRow{
		0:  {"PASS", nil},
		1:  {"PASS", []string{"(run " + run + ")"}},
		2:  {"PASS", []string{"≥ 0.94 in run " + run, "same image"}},
		3:  {"PASS", []string{"sgl-project/sglang#21873 merged"}},
		4:  {"PASS", []string{"/use " + run}},
		5:  {"PASS", nil},
		6:  {"PASS", nil},
		7:  {"PASS", []string{"qwen3.5 Agentic coding is active"}},
		8:  {"PASS", nil},
		9:  {"PASS", nil},
		10: {"PASS", []string{"No engine/serving-stack patching."}},
		11: {"PASS", []string{"pinned 3.31 = golden qwen3.5_mtp.yaml"}},
		12: {"N/A", nil},
		13: {"PASS", nil},
		14: {"PASS", []string{"5/5 frontier points"}},
		15: {"N/A", nil},
	}
}

func TestEdgeAppendOnly(t *testing.T) {
	t.Run("pass", func(t *testing.T) {
		_, v, _ := edgeRun(t, "edge-append-only", "3431")
		rows := edgeGreenRows("30123456701")
		rows[12] = edgeRow{"PASS", []string{"Adds conc 2, 12 to qwen3.5-fp8-mi355x-sglang-agentic-mtp; all 3 base points unchanged"}}
		// The run measured only the two new points; the prior curve is not
		// retrieved, so coverage stays advisory.
		rows[14] = edgeRow{"WARN", []string{"qwen3.5/agentic-coding/mi355x_sglang/fp8/30123456701/p90: 2/5 frontier points in this run alone; unverifiable (append-only; prior points not retrieved)", "admin bypass not verified"}}
		rows[15] = edgeRow{"PASS", nil}
		edgeAssert(t, "append-only pass", v, "WARN", rows)
	})
	t.Run("drops base conc", func(t *testing.T) {
		_, v, _ := edgeRun(t, "edge-append-only", "3432")
		rows := edgeGreenRows("30123456702")
		rows[12] = edgeRow{"FAIL", []string{"Existing point tp=4 conc=4 removed from qwen3.5-fp8-mi355x-sglang-agentic-mtp."}}
		rows[14] = edgeRow{"WARN", []string{"2/5 frontier points in this run alone; unverifiable (append-only; prior points not retrieved)", "admin bypass not verified"}}
		rows[15] = edgeRow{"PASS", nil}
		edgeAssert(t, "append-only drop", v, "REJECTED", rows)
	})
	t.Run("mixed with regular entry", func(t *testing.T) {
		_, v, _ := edgeRun(t, "edge-append-only", "3433")
		rows := edgeGreenRows("30123456703")
		rows[7] = edgeRow{"PASS", []string{"Single-turn 8k1k"}}
		rows[12] = edgeRow{"FAIL", []string{"append-only entries cannot share a sweep with regular changelog entries."}}
		// The regular entry selects the 8k1k MTP config, which has no recipe
		// or script in this fixture: spec-decode rows cannot inspect it.
		rows[9] = edgeRow{"FAIL", []string{"Needs human review: no benchmark script or recipe found for spec-decode config qwen3.5-fp8-mi355x-sglang-mtp"}}
		rows[13] = edgeRow{"FAIL", []string{"qwen3.5-fp8-mi355x-sglang-mtp"}}
		// Mixed entries are not an append-only sweep: the plain count stays.
		rows[14] = edgeRow{"WARN", []string{"qwen3.5-fp8-mi355x-sglang-mtp: unverifiable", "/30123456703/p90: 2/5 frontier points;"}}
		rows[15] = edgeRow{"PASS", nil}
		edgeAssert(t, "append-only mixed", v, "REJECTED", rows)
	})
}

func TestEdgeWaiver(t *testing.T) {
	script := "inferencex-e2e/benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_sglang_mtp.sh:17"
	cases := []struct {
		pr, run, verdict string
		row10            edgeRow
	}{
		{"3441", "30123456711", "REJECTED", edgeRow{"FAIL", []string{script + " rewrites site-packages/vllm; no inferencex-e2e/docs/waiver/3441.md in this PR."}}},
		{"3442", "30123456712", "PASS", edgeRow{"PASS", []string{script, "covered by waiver inferencex-e2e/docs/waiver/3442.md linked in the sign-off"}}},
		{"3443", "30123456713", "REJECTED", edgeRow{"FAIL", []string{"waiver not linked in the sign-off", "3443.md", script}}},
	}
	for _, c := range cases {
		t.Run(c.pr, func(t *testing.T) {
			_, v, _ := edgeRun(t, "edge-waiver", c.pr)
			rows := edgeGreenRows(c.run)
			rows[6] = edgeRow{"N/A", []string{"PR changes no master-config entries."}}
			rows[10] = c.row10
			edgeAssert(t, "waiver "+c.pr, v, c.verdict, rows)
		})
	}
}

func TestEdgeBypassInjection(t *testing.T) {
	code, v, out := edgeRun(t, "edge-bypass-injection", "")
	if code != exitWarn {
		t.Errorf("exit %d, want %d (WARN)", code, exitWarn)
	}
	rows := edgeGreenRows("30123456789")
	rows[2] = edgeRow{"PASS", []string{"c8 gsm8k"}}
	rows[12] = edgeRow{"N/A", nil}
	rows[14] = edgeRow{"WARN", []string{
		"qwen3.5/agentic-coding/mi355x_sglang/fp8/30123456789/p90: 3/5 frontier points",
		"admin bypass verified (@maintainer-a, https://github.com/SemiAnalysisAI/InferenceX/pull/3412#issuecomment-4100000004)",
	}}
	rows[15] = edgeRow{"N/A", nil}
	edgeAssert(t, "bypass", v, "WARN", rows)
	for _, bad := range []string{"ignore previous checks", "issuecomment-1 ", "@amd-dev-x owns"} {
		if strings.Contains(out, bad) {
			t.Errorf("JSON output echoes the injection %q", bad)
		}
	}

	var stdout, stderr bytes.Buffer
	cmdCheck(context.Background(), []string{"--fixture", edgeDir("edge-bypass-injection"), "--date", "2026-11-20"}, &stdout, &stderr)
	md := stdout.String()
	lines := strings.Split(md, "\n")
	if len(lines) < 2 || lines[0] != "<!-- codeowner-signoff-verify signoff=pullrequestreview-3900000001 -->" || lines[1] != "## ⚠️ **Verdict: WARN** ⚠️" {
		t.Fatalf("markdown head:\n%s", md)
	}
	if n := strings.Count(md, "⚠️ Pareto coverage needs additional review:"); n != 1 {
		t.Errorf("escalation paragraph appears %d times", n)
	}
	if !strings.Contains(md, "@maintainer-a @maintainer-b") {
		t.Errorf("escalation lacks the configured mentions:\n%s", md)
	}
	for _, bad := range []string{"ignore previous checks", "signoff=issuecomment-1", "@amd-dev-x owns", "Verdict: PASS", "<summary>x</summary>"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown echoes the injection %q", bad)
		}
	}
	if n := strings.Count(md, "Check 0 (CODEOWNER)"); n != 1 {
		t.Errorf("%d Check 0 rows in the markdown", n)
	}
}
