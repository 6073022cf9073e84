package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The shipped samples hold the same pull request in both repository
// layouts: sample-e2e-agentic (inferencex-e2e/) and sample-legacy-agentic
// (root layout, selected because main has no inferencex-e2e/pyproject.toml).
var (
	e2eSampleDir    = filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic")
	legacySampleDir = filepath.Join("..", "..", "testdata", "fixtures", "sample-legacy-agentic")
)

// sampleReviewDate pins the review date so deprecation dates cannot move
// the verdict as the calendar advances.
const sampleReviewDate = "2026-11-20"

// jsonVerdict is the part of `verdict check --format json` these tests read.
type jsonVerdict struct {
	Verdict     string `json:"verdict"`
	AssessedSHA string `json:"assessed_sha"`
	SignOff     string `json:"signoff"`
	Checks      []struct {
		Number   int    `json:"number"`
		Name     string `json:"name"`
		Status   string `json:"status"`
		Reason   string `json:"reason"`
		ReasonZH string `json:"reason_zh"`
	} `json:"checks"`
}

// runCheckJSON runs cmdCheck with --format json and returns the exit code,
// stdout compacted to one line (empty when nothing was printed) and stderr.
func runCheckJSON(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code = cmdCheck(context.Background(), append([]string{"--format", "json"}, args...), &stdout, &stderr)
	if stdout.Len() == 0 {
		return code, "", stderr.String()
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, stdout.Bytes()); err != nil {
		t.Fatalf("cmdCheck %v printed invalid JSON: %v\n%s", args, err, stdout.String())
	}
	return code, compact.String(), stderr.String()
}

func decodeVerdict(t *testing.T, name, out string) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: decoding the JSON verdict: %v\n%s", name, err, out)
	}
	return v
}

// toLegacyPaths rewrites the e2e layout's paths in s to their legacy
// counterparts (INFERENCEX.md §0.3), longest first, then drops any other
// path under the e2e root. The two layouts' reasons must be equal after it.
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
	e2eCode, e2eOut, e2eErr := runCheckJSON(t, "--fixture", e2eSampleDir, "--date", sampleReviewDate)
	legCode, legOut, legErr := runCheckJSON(t, "--fixture", legacySampleDir, "--date", sampleReviewDate)
	if e2eOut == "" || legOut == "" {
		t.Fatalf("no verdict printed: e2e exit %d stderr %q; legacy exit %d stderr %q", e2eCode, e2eErr, legCode, legErr)
	}
	e2e := decodeVerdict(t, "e2e", e2eOut)
	leg := decodeVerdict(t, "legacy", legOut)

	if e2e.Verdict != string(checks.VerdictPass) || e2eCode != exitPass {
		t.Errorf("e2e sample: verdict %s exit %d, want PASS exit %d (stderr %q)", e2e.Verdict, e2eCode, exitPass, e2eErr)
	}
	if leg.Verdict != e2e.Verdict || legCode != e2eCode {
		t.Errorf("legacy sample: verdict %s exit %d, want the e2e sample's %s exit %d", leg.Verdict, legCode, e2e.Verdict, e2eCode)
	}
	if leg.AssessedSHA != e2e.AssessedSHA || leg.SignOff != e2e.SignOff {
		t.Errorf("legacy sample assessed %s for %s, e2e %s for %s", leg.AssessedSHA, leg.SignOff, e2e.AssessedSHA, e2e.SignOff)
	}

	// Each sample must really be verified in its own layout, or the
	// comparison proves nothing.
	if !strings.Contains(e2eOut, repo.E2ELayout().Root) {
		t.Errorf("e2e sample output never mentions %s: the e2e layout was not used", repo.E2ELayout().Root)
	}
	if strings.Contains(legOut, repo.E2ELayout().Root) {
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

// TestCheckExplicitSignOff selects the sign-off with --signoff (URL or key)
// instead of taking the newest one.
func TestCheckExplicitSignOff(t *testing.T) {
	const pull = "https://github.com/SemiAnalysisAI/InferenceX/pull/3412"
	tests := []struct {
		name    string
		signoff string
		code    int
		want    string // substring of the compacted JSON; "" = no verdict printed
	}{
		{"review URL", pull + "#pullrequestreview-3900000001", exitPass, `"signoff":"pullrequestreview-3900000001"`},
		{"review key", "pullrequestreview-3900000001", exitPass, `"signoff":"pullrequestreview-3900000001"`},
		{"unknown review", pull + "#pullrequestreview-3900000002", exitError, ""},
		{"comment that is not a sign-off", pull + "#issuecomment-4100000001", exitError, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCheckJSON(t, "--fixture", e2eSampleDir, "--date", sampleReviewDate, "--signoff", tc.signoff)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			if tc.want == "" {
				if out != "" {
					t.Errorf("printed a verdict for a sign-off that cannot be verified: %s", out)
				}
				if errOut == "" {
					t.Error("no error message on stderr")
				}
				return
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %s:\n%s", tc.want, out)
			}
			if v := decodeVerdict(t, tc.name, out); v.Verdict != string(checks.VerdictPass) {
				t.Errorf("verdict %s, want PASS", v.Verdict)
			}
		})
	}
}
