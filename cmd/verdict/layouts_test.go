package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The shipped samples hold the same pull request in both repository
// layouts: sample-e2e-agentic (inferencex-e2e/) and sample-legacy-agentic
// (root layout, selected because main has no inferencex-e2e/pyproject.toml).
// Their rows are asserted by their expect.json; this file asserts that the
// two agree.

// toLegacyPaths rewrites the e2e layout's paths in s to their legacy
// counterparts (checks/inferencex/RULES.md, "Layouts"), longest first, then
// drops any other path under the e2e root. The two layouts' reasons must be equal after it.
func toLegacyPaths(s string) string {
	e, l := repo.E2ELayout(), repo.LegacyLayout()
	pairs := [][2]string{
		{e.Checklist, l.Checklist}, {e.ChecklistZH, l.ChecklistZH}, {e.Models, l.Models},
		{e.ConfigsDir, l.ConfigsDir}, {e.Changelog, l.Changelog}, {e.GoldenDir, l.GoldenDir},
		{e.WaiverDir, l.WaiverDir}, {e.Thresholds, l.Thresholds}, {e.BenchmarksDir, l.BenchmarksDir},
		{e.RunnersDir, l.RunnersDir}, {e.CodeOwners, l.CodeOwners},
	}
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	var args []string
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	args = append(args, e.Root, "")
	return strings.NewReplacer(args...).Replace(s)
}

func TestToLegacyPaths(t *testing.T) {
	tests := []struct{ in, want string }{
		{"@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule).", "@amd-owner-a owns configs/amd-master.yaml (specific rule)."},
		{"inferencex-e2e/infx/golden_al_distribution/qwen3.5_mtp.yaml@a08e105", "golden_al_distribution/qwen3.5_mtp.yaml@a08e105"},
		{"inferencex-e2e/docs/MODELS.md could not be read", "MODELS.md could not be read"},
		{"copy the current inferencex-e2e/docs/PR_REVIEW_CHECKLIST.md.", "copy the current docs/PR_REVIEW_CHECKLIST.md."},
		{"inferencex-e2e/infx/evals/thresholds.yaml and inferencex-e2e/docs/waiver/3412.md", "utils/evals/thresholds.yaml and docs/waiver/3412.md"},
		{"inferencex-e2e/benchmarks/single_node/x.sh", "benchmarks/single_node/x.sh"},
		{"no paths here", "no paths here"},
	}
	for _, tc := range tests {
		if got := toLegacyPaths(tc.in); got != tc.want {
			t.Errorf("toLegacyPaths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLayoutsAgree verifies the same pull request in both layouts and wants
// the same verdict and, row for row, the same status and the same reasons
// once the e2e paths are mapped to the legacy ones.
func TestLayoutsAgree(t *testing.T) {
	run := func(name string) scenarioRun {
		r, err := invocation{Date: "2026-11-20"}.run(fixtureDir(name))
		if err == nil && r.JSON.Stdout == "" {
			err = fmt.Errorf("no verdict printed (exit %d): %s", r.JSON.Code, r.JSON.Stderr)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	er, lr := run("sample-e2e-agentic"), run("sample-legacy-agentic")
	e2e, leg := er.V, lr.V
	e2eCode, legCode := er.JSON.Code, lr.JSON.Code

	if e2e.Verdict != string(checks.VerdictPass) || e2eCode != exitPass {
		t.Errorf("e2e sample: verdict %s exit %d, want PASS exit %d (stderr %q)", e2e.Verdict, e2eCode, exitPass, er.JSON.Stderr)
	}
	if leg.Verdict != e2e.Verdict || legCode != e2eCode {
		t.Errorf("legacy sample: verdict %s exit %d, want the e2e sample's %s exit %d", leg.Verdict, legCode, e2e.Verdict, e2eCode)
	}
	if leg.AssessedSHA != e2e.AssessedSHA || leg.SignOff != e2e.SignOff {
		t.Errorf("legacy sample assessed %s for %s, e2e %s for %s", leg.AssessedSHA, leg.SignOff, e2e.AssessedSHA, e2e.SignOff)
	}

	// Each sample must really be verified in its own layout, or the
	// comparison proves nothing.
	if !strings.Contains(er.JSON.Stdout, repo.E2ELayout().Root) {
		t.Errorf("e2e sample output never mentions %s: the e2e layout was not used", repo.E2ELayout().Root)
	}
	if strings.Contains(lr.JSON.Stdout, repo.E2ELayout().Root) {
		t.Errorf("legacy sample output mentions %s: the legacy layout was not used", repo.E2ELayout().Root)
	}

	rows := map[int]int{}
	for i, c := range leg.Checks {
		if _, dup := rows[c.Number]; dup {
			t.Errorf("legacy sample: check %d listed twice", c.Number)
		}
		rows[c.Number] = i
	}
	if len(e2e.Checks) != 16 || len(leg.Checks) != len(e2e.Checks) {
		t.Fatalf("got %d e2e and %d legacy rows, want 16 each", len(e2e.Checks), len(leg.Checks))
	}
	for _, want := range e2e.Checks {
		i, ok := rows[want.Number]
		if !ok {
			t.Errorf("check %d (%s): missing from the legacy verdict", want.Number, want.Name)
			continue
		}
		got := leg.Checks[i]
		if got.Name != want.Name || got.Status != want.Status {
			t.Errorf("check %d: legacy %s %s, e2e %s %s\n legacy: %s\n    e2e: %s",
				want.Number, got.Name, got.Status, want.Name, want.Status, got.Reason, want.Reason)
			continue
		}
		if w := toLegacyPaths(want.Reason); got.Reason != w {
			t.Errorf("check %d (%s) reasons differ beyond the path root:\n legacy: %s\n    e2e: %s", want.Number, want.Name, got.Reason, w)
		}
		if w := toLegacyPaths(want.ReasonZH); got.ReasonZH != w {
			t.Errorf("check %d (%s) Chinese reasons differ beyond the path root:\n legacy: %s\n    e2e: %s", want.Number, want.Name, got.ReasonZH, w)
		}
	}
}
