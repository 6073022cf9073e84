package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// localSample rebuilds a sample fixture's PR as a git repository (base on
// main, head on branch pr) and writes its sign-off to a file.
func localSample(t *testing.T, dir string) (repoDir, signoffFile string, fp gitsourcetest.FixturePR) {
	t.Helper()
	fp = gitsourcetest.FromFixture(t, dir, repo.Defaults().SignOffPhrase)
	signoffFile = filepath.Join(t.TempDir(), "signoff.md")
	if err := os.WriteFile(signoffFile, []byte(fp.SignOff), 0o644); err != nil {
		t.Fatal(err)
	}
	return fp.Repo.Dir, signoffFile, fp
}

func rowsByNumber(v jsonVerdict) map[int]struct{ Status, Reason, ReasonZH string } {
	out := map[int]struct{ Status, Reason, ReasonZH string }{}
	for _, c := range v.Checks {
		out[c.Number] = struct{ Status, Reason, ReasonZH string }{c.Status, c.Reason, c.ReasonZH}
	}
	return out
}

// TestLocalCheckMatchesTheApp verifies the shipped sample PR in both
// layouts twice: through the fake GitHub (as the App does) and from a git
// repository holding the same trees. Rows decided by the repository alone
// must be identical; rows that need GitHub say it was not available and do
// not pass.
func TestLocalCheckMatchesTheApp(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	for _, tc := range []struct {
		name, dir, checklist string
	}{
		{"e2e", e2eSampleDir, "inferencex-e2e/docs/PR_REVIEW_CHECKLIST.md"},
		{"legacy", legacySampleDir, "docs/PR_REVIEW_CHECKLIST.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repoDir, signoff, fp := localSample(t, tc.dir)
			code, out, errOut := runCheckJSON(t, "--fixture", tc.dir, "--date", sampleReviewDate)
			if code == exitError {
				t.Fatalf("fixture check failed: %s", errOut)
			}
			app := rowsByNumber(decodeVerdict(t, "app", out))

			code, out, errOut = runCheckJSON(t, "--repo-dir", repoDir, "--base", "main", "--head", "pr", "--repo", "SemiAnalysisAI/InferenceX",
				"--pr", "3412", "--signoff-file", signoff, "--date", sampleReviewDate)
			if code != exitRejected {
				t.Fatalf("local check exit %d, want %d (REJECTED): %s", code, exitRejected, errOut)
			}
			v := decodeVerdict(t, "local", out)
			if v.AssessedSHA != fp.Head || v.SignOff != "local" || v.Verdict != "REJECTED" {
				t.Errorf("local verdict %s on %s (sign-off %q), want REJECTED on %s", v.Verdict, v.AssessedSHA, v.SignOff, fp.Head)
			}
			local := rowsByNumber(v)
			if len(local) != 16 {
				t.Fatalf("local check has %d rows", len(local))
			}
			// Decided from files and the diff alone: the same answer.
			for _, n := range []int{0, 6, 7, 8, 9, 10, 11, 12, 13} {
				if local[n].Status != app[n].Status || local[n].Reason != app[n].Reason {
					t.Errorf("Check %d: local %s %q, App %s %q", n, local[n].Status, local[n].Reason, app[n].Status, app[n].Reason)
				}
			}
			// Needs CI runs, comments, upstream PRs or workflow runs: never PASS,
			// and says why.
			for n, want := range map[int]string{1: "FAIL", 3: "FAIL", 4: "WARN", 14: "WARN", 15: "WARN"} {
				r := local[n]
				if r.Status != want || !strings.Contains(r.Reason, "not available in a local check") || !strings.Contains(r.ReasonZH, "本地检查无法获取") {
					t.Errorf("Check %d: %s %q / %q, want %s saying it was not available", n, r.Status, r.Reason, r.ReasonZH, want)
				}
			}
			if local[2].Status != "FAIL" || local[5].Status == "PASS" && app[5].Status != "PASS" {
				t.Errorf("Check 2 %s, Check 5 %s", local[2].Status, local[5].Status)
			}

			// Without a sign-off, the rows that judge one say so.
			code, out, _ = runCheckJSON(t, "--repo-dir", repoDir, "--base", "main", "--head", "pr", "--pr", "3412", "--date", sampleReviewDate)
			if code != exitRejected {
				t.Fatalf("unsigned local check exit %d", code)
			}
			unsigned := rowsByNumber(decodeVerdict(t, "unsigned", out))
			for _, n := range []int{0, 5, 13} {
				if r := unsigned[n]; r.Status != "FAIL" || !strings.Contains(r.Reason, "no sign-off was given (pass --signoff-file)") || !strings.Contains(r.ReasonZH, "未提供签核") {
					t.Errorf("unsigned Check %d: %s %q / %q", n, r.Status, r.Reason, r.ReasonZH)
				}
			}
			if r := unsigned[5]; !strings.Contains(r.Reason, tc.checklist) {
				t.Errorf("unsigned Check 5 does not name the template %s: %q", tc.checklist, r.Reason)
			}
		})
	}
}

// The markdown form is the comment the App would publish, keyed to no
// GitHub sign-off; a bare clone answers the same as the work tree.
func TestLocalCheckMarkdownAndBareClone(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	repoDir, signoff, fp := localSample(t, legacySampleDir)
	args := []string{"--base", "main", "--head", "pr", "--pr", "3412", "--signoff-file", signoff, "--date", sampleReviewDate}
	var work, bare, stderr bytes.Buffer
	if code := cmdCheck(context.Background(), append([]string{"--repo-dir", repoDir}, args...), &work, &stderr); code != exitRejected {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := cmdCheck(context.Background(), append([]string{"--repo-dir=" + fp.Repo.Bare()}, args...), &bare, &stderr); code != exitRejected {
		t.Fatalf("bare clone: exit %d: %s", code, stderr.String())
	}
	if work.String() != bare.String() {
		t.Errorf("bare clone verdict differs:\n%s\n---\n%s", work.String(), bare.String())
	}
	md := work.String()
	for _, want := range []string{
		"<!-- codeowner-signoff-verify signoff=local -->\n## ❌❌❌ **REJECTED** ❌❌❌",
		"@amd-owner-a this sign-off is rejected",
		"✅ Check 10 (Engine patches): PASS",
		"not available in a local check",
		"本地检查无法获取",
		"Assessed commit: `" + fp.Head + "`.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestLocalCheckUsageErrors(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	repoDir, _, _ := localSample(t, legacySampleDir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--repo-dir", repoDir}, "--base REV is required"},
		{[]string{"--repo-dir", t.TempDir(), "--base", "main"}, "is not a git repository"},
		{[]string{"--repo-dir", repoDir, "--base", "nope"}, `revision "nope" does not name a commit`},
		{[]string{"--repo-dir", repoDir, "--base", "main", "--format", "xml"}, "--format must be markdown or json"},
		{[]string{"--repo-dir", repoDir, "--base", "main", "--signoff-file", filepath.Join(t.TempDir(), "none")}, "reading the sign-off"},
		{[]string{"--repo-dir", repoDir, "--base", "main", "--date", "20-11-2026"}, "is not YYYY-MM-DD"},
		{[]string{"--repo-dir", repoDir, "--base", "main", "--head", "pr", "--preset", "prow"}, `preset "prow" is not served here (served: inferencex, checklist)`},
	} {
		var stdout, stderr bytes.Buffer
		code := cmdCheck(context.Background(), tc.args, &stdout, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), tc.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with one line containing %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// --preset verifies with the preset named, over detection: the InferenceX
// sample judged by the checklist preset has the checklist preset's rows.
func TestLocalCheckPresetFlag(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	repoDir, signoff, _ := localSample(t, legacySampleDir)
	for _, tc := range []struct {
		preset string
		rows   int
	}{{"", 16}, {"inferencex", 16}, {"checklist", 9}} {
		args := []string{"--repo-dir", repoDir, "--base", "main", "--head", "pr", "--signoff-file", signoff, "--date", sampleReviewDate}
		if tc.preset != "" {
			args = append(args, "--preset", tc.preset)
		}
		code, out, errOut := runCheckJSON(t, args...)
		if code == exitError {
			t.Fatalf("%q: %s", tc.preset, errOut)
		}
		if v := decodeVerdict(t, tc.preset, out); len(v.Checks) != tc.rows {
			t.Errorf("--preset %q: %d rows, want %d", tc.preset, len(v.Checks), tc.rows)
		}
	}
}

// The shipped samples: the same PR in the e2e and the legacy layout.
var (
	e2eSampleDir    = fixtureDir("sample-e2e-agentic")
	legacySampleDir = fixtureDir("sample-legacy-agentic")
)

// sampleReviewDate is the review date the shipped samples are assessed on.
const sampleReviewDate = "2026-11-20"

// runCheckJSON runs `verdict check --format json` with args.
func runCheckJSON(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	r := captureCheck(append(args, "--format", "json")...)
	return r.Code, r.Stdout, r.Stderr
}

// decodeVerdict decodes a JSON verdict, failing the test when it is not one.
func decodeVerdict(t *testing.T, what, out string) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: decoding the JSON verdict: %v\n%s", what, err, out)
	}
	return v
}
