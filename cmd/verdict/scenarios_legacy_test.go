package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Acceptance scenarios of INFERENCEX.md §7 in the legacy root layout (no
// inferencex-e2e/pyproject.toml on the default branch). Each fixture under
// testdata/fixtures/legacy-* is a complete PR served by the fake GitHub.

const legacyScenarioDate = "2026-11-20"

func legacyFixture(name string) string {
	return filepath.Join("..", "..", "testdata", "fixtures", name)
}

// legacyRow is what a scenario expects of one row: its status and, when
// set, substrings its English reason must contain.
type legacyRow struct {
	status string
	reason []string
}

// runLegacyScenario runs `verdict check` on dir and returns the exit code,
// the decoded JSON verdict and the markdown verdict.
func runLegacyScenario(t *testing.T, dir string) (int, jsonVerdict, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cmdCheck(context.Background(), []string{"--fixture", dir, "--date", legacyScenarioDate, "--format", "json"}, &out, &errb)
	var v jsonVerdict
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%s: decoding the JSON verdict (exit %d): %v\nstdout: %s\nstderr: %s", dir, code, err, out.String(), errb.String())
	}
	var md, mderr bytes.Buffer
	mdCode := cmdCheck(context.Background(), []string{"--fixture", dir, "--date", legacyScenarioDate}, &md, &mderr)
	if mdCode != code {
		t.Fatalf("%s: markdown run exited %d, JSON run %d\n%s", dir, mdCode, code, mderr.String())
	}
	return code, v, md.String()
}

// assertLegacyRows checks every one of the 16 rows against want; rows not
// in want must be PASS.
func assertLegacyRows(t *testing.T, v jsonVerdict, want map[int]legacyRow) {
	t.Helper()
	if len(v.Checks) != 16 {
		t.Fatalf("got %d rows, want 16", len(v.Checks))
	}
	for i, c := range v.Checks {
		if c.Number != i {
			t.Fatalf("row %d has number %d", i, c.Number)
		}
		w, ok := want[i]
		if !ok {
			w = legacyRow{status: "PASS"}
		}
		if c.Status != w.status {
			t.Errorf("Check %d: got %s %q, want %s", i, c.Status, c.Reason, w.status)
			continue
		}
		for _, sub := range w.reason {
			if !strings.Contains(c.Reason, sub) {
				t.Errorf("Check %d reason %q lacks %q", i, c.Reason, sub)
			}
		}
		if strings.Contains(c.Reason, "could not be verified") {
			t.Errorf("Check %d could not verify evidence the fixture holds: %q", i, c.Reason)
		}
		if c.ReasonZH == "" || c.ReasonZH == c.Reason {
			t.Errorf("Check %d: Chinese reason missing or untranslated: %q", i, c.ReasonZH)
		}
	}
}

// englishPart is the markdown verdict before the Chinese <details> block.
func englishPart(md string) string {
	if i := strings.Index(md, "<summary>中文</summary>"); i >= 0 {
		return md[:i]
	}
	return md
}

// s1Rows are the rows of the S1 happy path (and its eval-fallback variant).
var s1Rows = map[int]legacyRow{
	0:  {"PASS", []string{"@nv-owner-a owns", "(specific rule)"}},
	1:  {"PASS", []string{"Green benchmark + eval jobs on in-PR commit", "(run 30123456789)"}},
	2:  {"PASS", []string{"gsm8k", "≥ 0.9", "in run 30123456789", "same image"}},
	3:  {"PASS", []string{"sgl-project/sglang#21873 merged 2026-11-12", "TP/EP/quantization"}},
	4:  {"PASS", []string{"@nv-owner-b posted /use 30123456789 (MEMBER)"}},
	5:  {"PASS", []string{"All 17 current template items present", `"golden AL"`, `"append-only"`}},
	6:  {"PASS", []string{"lmsysorg/sglang image"}},
	7:  {"PASS", []string{"dsr1 Single-turn 8k1k is active"}},
	9:  {"PASS", []string{"dsr1-fp4-b200-sglang-mtp", "--use-chat-template"}},
	11: {"N/A", []string{"No agentic speculative-decoding changes."}},
	12: {"N/A", nil},
	13: {"PASS", []string{"BF16"}},
	14: {"PASS", []string{"dsr1/8k1k/b200_sglang_mtp/fp4/30123456789/median: 7/5 frontier points"}},
}

func TestLegacyScenarioS1Pass(t *testing.T) {
	code, v, md := runLegacyScenario(t, legacyFixture("legacy-s1-pass"))
	if code != exitPass || v.Verdict != "PASS" {
		t.Fatalf("got exit %d verdict %s, want %d PASS", code, v.Verdict, exitPass)
	}
	assertLegacyRows(t, v, s1Rows)
	// The sweep ran on the PR's first commit; the head's reuse-gated
	// sweep was skipped, and the head is still what is assessed.
	if !strings.Contains(v.Checks[1].Reason, "9c7e51f") {
		t.Errorf("Check 1 should name the in-PR commit the sweep ran on: %q", v.Checks[1].Reason)
	}
	if !strings.HasPrefix(v.AssessedSHA, "c7067f4") {
		t.Errorf("assessed %s, want the PR head", v.AssessedSHA)
	}
	// PASS: header, then all 16 rows inside the collapsed group.
	en := englishPart(md)
	if !strings.Contains(en, "## ✅✅✅ **Verdict: PASS** ✅✅✅\n") {
		t.Errorf("missing PASS header:\n%s", en)
	}
	open := strings.Index(en, "<details>\n<summary>Passed and not applicable checks</summary>")
	closeAt := strings.Index(en, "</details>")
	if open < 0 || closeAt < open {
		t.Fatalf("no collapsed group:\n%s", en)
	}
	if strings.Contains(en[:open], " Check ") {
		t.Errorf("rows outside <details> in a PASS verdict:\n%s", en[:open])
	}
	inside := en[open:closeAt]
	for n := 0; n < 16; n++ {
		if !strings.Contains(inside, " Check "+strconv.Itoa(n)+" (") {
			t.Errorf("Check %d row is not inside <details>", n)
		}
	}
	if !strings.Contains(en, "➖ Check 11 (Golden acceptance): N/A — No agentic speculative-decoding changes.") {
		t.Errorf("Check 11 row not as specified:\n%s", en)
	}
	if strings.Contains(en, "Pareto coverage needs additional review") {
		t.Errorf("escalation paragraph in a PASS verdict")
	}
}

// The legacy script passes --tp "$TP" --ep-size "$EP_SIZE": the sizes come
// from the master config, so a config run at TP8/EP8 is not covered by the
// linked TP4/EP4 recipe.
func TestLegacyScenarioS1RecipeSizesFromSearchSpace(t *testing.T) {
	tmp := t.TempDir()
	copyTree(t, legacyFixture("legacy-s1-pass"), tmp)
	p := filepath.Join(tmp, "trees", "head", "configs", "nvidia-master.yaml")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const from = "{ tp: 4, ep: 4, spec-decoding: mtp, conc-start: 4, conc-end: 256 }"
	if !bytes.Contains(raw, []byte(from)) {
		t.Fatalf("%s lacks %q", p, from)
	}
	raw = bytes.Replace(raw, []byte(from), []byte("{ tp: 8, ep: 8, spec-decoding: mtp, conc-start: 4, conc-end: 256 }"), 1)
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, v, _ := runLegacyScenario(t, tmp)
	if code != exitRejected || v.Verdict != "REJECTED" {
		t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
	}
	c := v.Checks[3]
	if c.Status != "FAIL" || !strings.HasPrefix(c.Reason, "Needs human review: sgl-project/sglang#21873 merged 2026-11-12; upstream recipe does not show: ") ||
		!strings.Contains(c.Reason, "EP 8") {
		t.Errorf("Check 3: got %s %q", c.Status, c.Reason)
	}
}

func TestLegacyScenarioS1EvalFallback(t *testing.T) {
	dir := legacyFixture("legacy-s1-eval-fallback")
	code, v, _ := runLegacyScenario(t, dir)
	if code != exitPass || v.Verdict != "PASS" {
		t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
	}
	rows := map[int]legacyRow{}
	for k, r := range s1Rows {
		rows[k] = r
	}
	// Only per-config eval_* artifacts: the lowest of the four lm-eval
	// metrics (two batched concurrencies × strict/flexible) is reported.
	rows[2] = legacyRow{"PASS", []string{"exact_match,strict-match 0.949", "c64", "in run 30123456789", "same image"}}
	assertLegacyRows(t, v, rows)

	// The same run with concurrency 256 reported failed in meta_env.json.
	tmp := t.TempDir()
	copyTree(t, dir, tmp)
	matches, err := filepath.Glob(filepath.Join(tmp, "artifacts", "eval_*", "meta_env.json"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("meta_env.json: %v %v", matches, err)
	}
	var meta map[string]any
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	meta["completed_eval_concs"] = []int{64}
	meta["failed_eval_concs"] = []int{256}
	raw, _ = json.Marshal(meta)
	if err := os.WriteFile(matches[0], raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, v, _ = runLegacyScenario(t, tmp)
	if code != exitRejected || v.Verdict != "REJECTED" {
		t.Fatalf("failed batched eval: got exit %d verdict %s, want REJECTED", code, v.Verdict)
	}
	if c := v.Checks[2]; c.Status != "FAIL" || !strings.Contains(c.Reason, "Batched evals incomplete: concurrency 256 failed") {
		t.Errorf("Check 2: got %s %q", c.Status, c.Reason)
	}
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLegacyScenarioS2Rebased(t *testing.T) {
	code, v, md := runLegacyScenario(t, legacyFixture("legacy-s2-rebased"))
	if code != exitRejected || v.Verdict != "REJECTED" {
		t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
	}
	rows := map[int]legacyRow{}
	for k, r := range s1Rows {
		rows[k] = r
	}
	rows[1] = legacyRow{"FAIL", []string{"No passing sweep/eval was found on any commit in this PR."}}
	rows[2] = legacyRow{"FAIL", []string{"No qualifying in-PR run; eval results cannot be verified."}}
	rows[4] = legacyRow{"PASS", []string{"@nv-owner-b posted /use 30123456789 (MEMBER)", "not in PR #3420's commit list"}}
	rows[5] = legacyRow{"PASS", []string{"All 17 current template items present"}}
	rows[14] = legacyRow{"WARN", []string{"unverifiable", "no qualifying", "admin bypass not verified"}}
	// The body cites the rebased-out run as validation.
	rows[15] = legacyRow{"WARN", []string{"run 30123456789", "not a commit of this PR"}}
	assertLegacyRows(t, v, rows)
	if !strings.HasPrefix(v.Checks[1].Reason, "No passing sweep/eval was found on any commit in this PR.") {
		t.Errorf("Check 1 must lead with the root issue: %q", v.Checks[1].Reason)
	}
	en := englishPart(md)
	for _, want := range []string{
		"## ❌❌❌ **REJECTED** ❌❌❌\n",
		"\n⚠️ Pareto coverage needs additional review:",
		"\n@nv-owner-a ",
		"Check 1 (Passing sweep), Check 2 (Evals)",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("verdict lacks %q:\n%s", want, en)
		}
	}
	if strings.Count(en, "Pareto coverage needs additional review") != 1 {
		t.Errorf("escalation paragraph must appear exactly once:\n%s", en)
	}
}

func TestLegacyScenarioS4WrongOwner(t *testing.T) {
	code, v, md := runLegacyScenario(t, legacyFixture("legacy-s4-wrong-owner"))
	if code != exitRejected || v.Verdict != "REJECTED" {
		t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
	}
	rows := map[int]legacyRow{}
	for k, r := range s1Rows {
		rows[k] = r
	}
	rows[0] = legacyRow{"FAIL", []string{"@amd-owner-a is not a CODEOWNER of configs/nvidia-master.yaml (owners: @nv-owner-a @nv-owner-b @SemiAnalysisAI/core)."}}
	rows[3] = legacyRow{"PASS", []string{"sgl-project/sglang#21873 merged"}}
	assertLegacyRows(t, v, rows)
	if !strings.Contains(md, "\n@amd-owner-a this sign-off is rejected because a blocking check failed: Check 0 (CODEOWNER).") {
		t.Errorf("signer line missing:\n%s", englishPart(md))
	}
}

// S4 variant: the PR touches both master configs; the AMD owner owns
// amd-master.yaml directly and the core team on nvidia-master.yaml cannot be
// read (403), so the spec accepts it with a note instead of failing.
func TestLegacyScenarioS4BothMastersMembershipUnverifiable(t *testing.T) {
	code, v, _ := runLegacyScenario(t, legacyFixture("legacy-s4-both-masters"))
	if code != exitPass || v.Verdict != "PASS" {
		t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
	}
	rows := map[int]legacyRow{}
	for k, r := range s1Rows {
		rows[k] = r
	}
	rows[0] = legacyRow{"PASS", []string{"@amd-owner-a owns configs/amd-master.yaml (specific rule)", "configs/nvidia-master.yaml", "team membership unverifiable"}}
	rows[3] = legacyRow{"PASS", []string{"sgl-project/sglang#21873 merged"}}
	assertLegacyRows(t, v, rows)
}

func TestLegacyScenarioS6EngineFirst(t *testing.T) {
	base := map[int]legacyRow{
		0:  {"PASS", []string{"@nv-owner-a owns configs/nvidia-master.yaml"}},
		2:  {"PASS", []string{"glm5.2", "gsm8k", "same image"}},
		3:  {"N/A", []string{"No vLLM/SGLang serving configuration is affected"}},
		7:  {"PASS", []string{"glm5.2 Single-turn 8k1k is active"}},
		9:  {"N/A", nil},
		11: {"N/A", nil},
		12: {"N/A", nil},
		13: {"N/A", nil},
		14: {"PASS", []string{"glm5.2/8k1k/b300_trt/fp4/30123456789/median: 5/5 frontier points"}},
	}
	t.Run("no open-source engine entry on the default branch", func(t *testing.T) {
		code, v, _ := runLegacyScenario(t, legacyFixture("legacy-s6-engine-first"))
		if code != exitRejected || v.Verdict != "REJECTED" {
			t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
		}
		rows := map[int]legacyRow{}
		for k, r := range base {
			rows[k] = r
		}
		// glm5.2 has open-source entries only on h200 and on gb300 (a
		// different SKU from b300); dsr1 has one on b300.
		rows[6] = legacyRow{"FAIL", []string{"New trt entry glm5.2-fp4-b300-trt has no open-source engine entry for glm5.2 on b300."}}
		assertLegacyRows(t, v, rows)
	})
	t.Run("sglang entry for the same prefix and SKU landed first", func(t *testing.T) {
		code, v, _ := runLegacyScenario(t, legacyFixture("legacy-s6-engine-first-pass"))
		if code != exitPass || v.Verdict != "PASS" {
			t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
		}
		rows := map[int]legacyRow{}
		for k, r := range base {
			rows[k] = r
		}
		// The default-branch entry runs on cluster:b300-nv, SKU b300.
		rows[6] = legacyRow{"PASS", []string{"trt entry preceded by glm5.2-fp4-b300-sglang"}}
		assertLegacyRows(t, v, rows)
	})
	t.Run("multi-node dynamo-trt preceded by dynamo-vllm on the same SKU", func(t *testing.T) {
		code, v, _ := runLegacyScenario(t, legacyFixture("legacy-s6-dynamo-trt"))
		if code != exitPass || v.Verdict != "PASS" {
			t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
		}
		rows := map[int]legacyRow{}
		for k, r := range base {
			rows[k] = r
		}
		// runner gb300-multinode is SKU gb300; dynamo-vllm is an
		// open-source engine framework.
		rows[1] = legacyRow{"PASS", []string{"(run 30123456789)"}}
		rows[6] = legacyRow{"PASS", []string{"dynamo-trt entry preceded by glm5.2-fp4-gb300-dynamo-vllm"}}
		rows[14] = legacyRow{"PASS", []string{"glm5.2/8k1k/gb300_", "/fp4/30123456789/median: 5/5 frontier points"}}
		assertLegacyRows(t, v, rows)
	})
}
