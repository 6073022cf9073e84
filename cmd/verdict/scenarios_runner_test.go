package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of the scenario runner itself: a runner that passes everything
// would make every expect.json worthless.

// wrongExpect holds one right and many wrong expectations of the e2e
// sample; each wrong one differs from the output in one way.
const wrongExpect = `{
  "date": "2026-11-20",
  "invocations": [
    {"name": "right", "exit": 0, "verdict": "PASS", "verified_signoff": "pullrequestreview-3900000001", "assessed_sha": "c7067f4",
     "partial_rows": true, "rows": [{"check": 3, "status": "PASS", "contains": ["sgl-project/sglang#21873"], "prefix": "sgl-project/",
       "matches": "^sgl-project/sglang#[0-9]+ merged", "not_contains": ["vllm-project"], "zh_contains": ["sgl-project/sglang#21873"]}],
     "markdown": [{"from": "<details>\n<summary>Passed and not applicable checks</summary>", "to": "</details>", "count": {"Check 0 (CODEOWNER)": 1}}],
     "json": [{"contains": ["\"signoff\":\"pullrequestreview-3900000001\""]}]},
    {"name": "exit", "exit": 1, "verdict": "PASS", "partial_rows": true},
    {"name": "verdict", "exit": 0, "verdict": "REJECTED", "partial_rows": true},
    {"name": "status", "exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 3, "status": "FAIL"}]},
    {"name": "contains", "exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 3, "status": "PASS", "contains": ["vllm-project/recipes"]}]},
    {"name": "prefix", "exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 3, "status": "PASS", "prefix": "merged"}]},
    {"name": "matches", "exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 3, "status": "PASS", "matches": "^vllm"}]},
    {"name": "not_contains", "exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 3, "status": "PASS", "not_contains": ["sglang"]}]},
    {"name": "zh_contains", "exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 3, "status": "PASS", "zh_contains": ["vLLM"]}]},
    {"name": "verified_signoff", "exit": 0, "verdict": "PASS", "partial_rows": true, "verified_signoff": "issuecomment-1"},
    {"name": "assessed_sha", "exit": 0, "verdict": "PASS", "partial_rows": true, "assessed_sha": "0000000"},
    {"name": "markdown", "exit": 0, "verdict": "PASS", "partial_rows": true, "markdown": [{"contains": ["**Verdict: WARN**"]}]},
    {"name": "markdown from", "exit": 0, "verdict": "PASS", "partial_rows": true, "markdown": [{"from": "no such line", "contains": ["x"]}]},
    {"name": "count", "exit": 0, "verdict": "PASS", "partial_rows": true, "markdown": [{"count": {"Check 0 (CODEOWNER)": 2}}]},
    {"name": "starts_with", "exit": 0, "verdict": "PASS", "partial_rows": true, "markdown": [{"starts_with": "## "}]},
    {"name": "json", "exit": 0, "verdict": "PASS", "partial_rows": true, "json": [{"not_contains": ["pullrequestreview-3900000001"]}]},
    {"name": "stderr", "signoff": "pullrequestreview-3900000002", "exit": 2, "verdict": "none", "stderr": [{"contains": ["no such message"]}]},
    {"name": "lines", "signoff": "pullrequestreview-3900000002", "exit": 2, "verdict": "none", "stderr": [{"lines": 2}]},
    {"name": "edit", "exit": 0, "verdict": "PASS", "partial_rows": true, "edits": [{"path": "fixture.yaml", "replace": "no such text", "with": "x"}]}
  ]
}`

func TestScenarioRunnerReportsWrongExpectations(t *testing.T) {
	want := map[string]string{
		"right":            "",
		"exit":             "exit code 0, want 1",
		"verdict":          "verdict PASS, want REJECTED",
		"status":           `Check 3 (Upstream recipe): got PASS "sgl-project/sglang#21873 merged`,
		"contains":         `does not contain "vllm-project/recipes"`,
		"prefix":           `does not start with "merged"`,
		"matches":          `does not match "^vllm"`,
		"not_contains":     `contains "sglang"`,
		"zh_contains":      `Chinese reason "sgl-project/sglang#21873 已于 2026-11-15 合并`,
		"verified_signoff": `verified sign-off "pullrequestreview-3900000001", want "issuecomment-1"`,
		"assessed_sha":     `want a SHA starting "0000000"`,
		"markdown":         `markdown does not contain "**Verdict: WARN**"`,
		"markdown from":    `markdown has no "no such line"`,
		"count":            `contains "Check 0 (CODEOWNER)" 1 times, want 2`,
		"starts_with":      `markdown does not start with "## "`,
		"json":             `JSON output contains "pullrequestreview-3900000001"`,
		"stderr":           `stderr does not contain "no such message"`,
		"lines":            "stderr has 1 lines, want 2",
		"edit":             `edits[0]: fixture.yaml does not contain "no such text"`,
	}
	file := filepath.Join(t.TempDir(), expectName)
	if err := os.WriteFile(file, []byte(wrongExpect), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := loadExpect(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Invocations) != len(want) {
		t.Fatalf("%d invocations, %d expected reports", len(e.Invocations), len(want))
	}
	// Verifications are the costly part: run each distinct command once
	// and compare every expectation made of it.
	dir := fixtureDir("sample-e2e-agentic")
	runs := map[string]scenarioRun{}
	for _, inv := range e.Invocations {
		w, ok := want[inv.Name]
		if !ok {
			t.Fatalf("no expected report for %q", inv.Name)
		}
		var ms []string
		if len(inv.Edits) > 0 {
			ms = runAndCompare(dir, inv, t.TempDir)
		} else {
			inv.FormatsAgree = true // one markdown run serves every invocation
			r, ok := runs[inv.SignOff]
			if !ok {
				if r, err = inv.run(dir); err != nil {
					t.Fatal(err)
				}
				runs[inv.SignOff] = r
			}
			ms = inv.compare(r)
		}
		switch {
		case w == "" && len(ms) > 0:
			t.Errorf("%s: a right expectation was reported: %q", inv.Name, ms)
		case w != "" && (len(ms) != 1 || !strings.Contains(ms[0], w)):
			t.Errorf("%s: got reports %q, want exactly one containing %q", inv.Name, ms, w)
		}
	}
}

// The rules every row meets, and their opt-outs, on made-up rows.
func TestScenarioRowRules(t *testing.T) {
	sixteen := func(edit func([]jsonRow)) []jsonRow {
		rows := make([]jsonRow, len(invocation{}.preset().Rows))
		for i := range rows {
			rows[i] = jsonRow{Number: i, Name: "n", Status: "PASS", Reason: "fine", ReasonZH: "好"}
		}
		if edit != nil {
			edit(rows)
		}
		return rows
	}
	row5 := func(w rowWant) invocation {
		w.Check, w.Status = 5, "PASS"
		return invocation{PartialRows: true, Rows: []rowWant{w}}
	}
	tests := []struct {
		name string
		inv  invocation
		rows []jsonRow
		want string // "" = no report
	}{
		{"all good", row5(rowWant{}), sixteen(nil), ""},
		{"15 rows", row5(rowWant{}), sixteen(nil)[:15], "15 rows, want 16"},
		{"out of order", row5(rowWant{}), sixteen(func(r []jsonRow) { r[2].Number, r[3].Number = 3, 2 }), "row 2 is Check 3"},
		{"unverified", row5(rowWant{}), sixteen(func(r []jsonRow) { r[5].Reason = "could not be verified: x" }), "although the fixture holds the evidence"},
		{"unverified allowed", row5(rowWant{AllowUnverified: true}), sixteen(func(r []jsonRow) { r[5].Reason = "could not be verified: x" }), ""},
		{"unverified in an unlisted row of a partial list", row5(rowWant{}), sixteen(func(r []jsonRow) { r[6].Reason = "could not be verified: x" }), ""},
		{"no Chinese", row5(rowWant{}), sixteen(func(r []jsonRow) { r[5].ReasonZH = "" }), "Chinese reason missing or untranslated"},
		{"Chinese is the English", row5(rowWant{}), sixteen(func(r []jsonRow) { r[5].ReasonZH = r[5].Reason }), "Chinese reason missing or untranslated"},
		{"untranslated allowed", row5(rowWant{AllowUntranslated: true}), sixteen(func(r []jsonRow) { r[5].ReasonZH = "" }), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := compareRows(tc.inv, tc.rows)
			switch {
			case tc.want == "" && len(ms) > 0:
				t.Errorf("reported %q", ms)
			case tc.want != "" && (len(ms) != 1 || !strings.Contains(ms[0], tc.want)):
				t.Errorf("got %q, want one report containing %q", ms, tc.want)
			}
		})
	}
}

func TestScenarioFormatsAgree(t *testing.T) {
	const key, sha = "pullrequestreview-1", "c7067f49ef1a9534da0a97652cb5769c6f3e8bd1"
	md := "<!-- codeowner-signoff-verify signoff=" + key + " -->\n## ✅✅✅ **Verdict: PASS** ✅✅✅\n\n" +
		"✅ Check 0 (CODEOWNER): PASS — ok\n\nAssessed commit: `" + sha + "`.\n"
	v := jsonVerdict{Verdict: "PASS", SignOff: key, AssessedSHA: sha, Checks: []jsonRow{{Number: 0, Name: "CODEOWNER", Status: "PASS"}}}
	run := func(mdCode int, md string, v jsonVerdict) scenarioRun {
		return scenarioRun{JSON: checkRun{Stdout: "{}"}, Markdown: checkRun{Code: mdCode, Stdout: md}, V: v}
	}
	failRow := v
	failRow.Checks = []jsonRow{{Number: 0, Name: "CODEOWNER", Status: "FAIL"}}
	warn := v
	warn.Verdict = "WARN"
	tests := []struct {
		name string
		r    scenarioRun
		want string
	}{
		{"agree", run(0, md, v), ""},
		{"exit codes", run(1, md, v), "markdown run exited 1, JSON run 0"},
		{"markdown printed nothing", run(0, "", v), "markdown run printed 0 bytes"},
		{"row status", run(0, md, failRow), `markdown has no row " Check 0 (CODEOWNER): FAIL — "`},
		{"header", run(0, md, warn), "markdown starts"},
		{"not required", run(0, "No sign-off required: docs.\n", jsonVerdict{Verdict: "NOT_REQUIRED", Reason: "other"}), "want \"No sign-off required: other.\\n\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := formatsAgree(tc.r)
			switch {
			case tc.want == "" && len(ms) > 0:
				t.Errorf("reported %q", ms)
			case tc.want != "" && (len(ms) != 1 || !strings.Contains(ms[0], tc.want)):
				t.Errorf("got %q, want one report containing %q", ms, tc.want)
			}
		})
	}
}

// A mistake in an expect.json is an error, never a check that passes.
func TestLoadExpectRejects(t *testing.T) {
	rows := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"check": %d, "status": "PASS"}`, i)
		}
		return "[" + b.String() + "]"
	}
	tests := []struct{ name, body, want string }{
		{"unknown key", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true, "stauts": "x"}]}`, `unknown field "stauts"`},
		{"no invocations", `{"date": "2026-11-20", "invocations": []}`, "no invocations"},
		{"no exit", `{"date": "2026-11-20", "invocations": [{"verdict": "PASS", "partial_rows": true}]}`, "no exit code"},
		{"bad verdict", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "OK", "partial_rows": true}]}`, `verdict "OK" is not one of`},
		{"no date", `{"invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true}]}`, "no date"},
		{"bad date", `{"date": "20.11.2026", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true}]}`, "is not YYYY-MM-DD"},
		{"pr without repo", `{"date": "2026-11-20", "invocations": [{"pr": 1, "exit": 0, "verdict": "PASS", "partial_rows": true}]}`, "without repo"},
		{"no rows", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS"}]}`, "without rows"},
		{"15 rows", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "rows": ` + rows(15) + `}]}`, "15 rows listed, want all 16"},
		{"rows out of order", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "rows": [{"check": 1, "status": "PASS"}]}]}`, "rows[0] is Check 1"},
		{"partial rows out of order", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 4, "status": "PASS"}, {"check": 4, "status": "PASS"}]}]}`, "is not after Check 4"},
		{"bad status", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 4, "status": "OK"}]}]}`, `status "OK"`},
		{"bad regexp", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true, "rows": [{"check": 4, "status": "PASS", "matches": "("}]}]}`, "missing closing )"},
		{"rows on no verdict", `{"date": "2026-11-20", "invocations": [{"exit": 2, "verdict": "none", "rows": [{"check": 0, "status": "PASS"}]}]}`, "has no rows"},
		{"two names", `{"date": "2026-11-20", "invocations": [{"exit": 2, "verdict": "none"}, {"exit": 2, "verdict": "none"}]}`, `two invocations named "default"`},
		{"two edit ops", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true, "edits": [{"path": "a", "replace": "x", "delete": true}]}]}`, "exactly one of"},
		{"edit outside", `{"date": "2026-11-20", "invocations": [{"exit": 0, "verdict": "PASS", "partial_rows": true, "edits": [{"path": "../a", "delete": true}]}]}`, "inside the fixture"},
		{"trailing data", `{"date": "2026-11-20", "invocations": [{"exit": 2, "verdict": "none"}]} {}`, "data after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), expectName)
			if err := os.WriteFile(file, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadExpect(file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A fixture without expect.json is an error; -update drafts one that the
// output it was drafted from passes, and never overwrites it.
func TestScenarioExpectMissingAndDraft(t *testing.T) {
	dir := t.TempDir()
	if err := copyFixture(fixtureDir("edge-not-required"), dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, expectName)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if _, _, err := scenarioExpect(dir, false); err == nil || !strings.Contains(err.Error(), "no expect.json") {
		t.Fatalf("no expect.json: got %v, want an error", err)
	}
	if _, wrote, err := scenarioExpect(dir, true); err != nil || !wrote {
		t.Fatalf("-update: wrote %v, %v", wrote, err)
	}
	drafted, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := formatJSON(drafted); err != nil || string(again) != string(drafted) {
		t.Errorf("the draft is not in the committed layout (%v):\n%s", err, drafted)
	}
	if _, wrote, err := scenarioExpect(dir, true); err != nil || wrote {
		t.Errorf("second -update: wrote %v, %v; want the existing file kept", wrote, err)
	}
	if err := writeDraft(dir, file); err == nil {
		t.Errorf("writeDraft overwrote an existing expect.json")
	}
	if now, _ := os.ReadFile(file); string(now) != string(drafted) {
		t.Errorf("expect.json changed after the first draft")
	}
}

// A draft, written and read back, passes on the output it was drafted
// from: a fixture with one pull request and rows, and one with several
// (NOT_REQUIRED and no verdict).
func TestScenarioDraftPasses(t *testing.T) {
	for _, name := range []string{"sample-e2e-agentic", "edge-not-required"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, runs, err := draftExpect(fixtureDir(name))
			if err != nil {
				t.Fatal(err)
			}
			b, err := formatExpect(e)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), expectName)
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := loadExpect(file)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			for i, inv := range back.Invocations {
				if ms := inv.compare(runs[i]); len(ms) > 0 {
					t.Errorf("%s: the draft fails on the output it was drafted from: %q", inv.Name, ms)
				}
				if inv.Verdict != verdictNone && inv.Verdict != "NOT_REQUIRED" && len(inv.Rows) != len(inv.preset().Rows) {
					t.Errorf("%s: the draft lists %d rows, want all %d", inv.Name, len(inv.Rows), len(inv.preset().Rows))
				}
			}
		})
	}
}
