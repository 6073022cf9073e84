package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/app/replay"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// A small InferenceX-shaped repository (legacy layout) of our own.
const (
	codeowners = "* @example/core\nconfigs/amd-master.yaml @amd-owner @amd-second\n"
	checklist  = "# Checklist\n\n## Template\n```\nAs a PR reviewer and CODEOWNER, I have reviewed this and have:\n" +
		"- [ ] Confirmed the configuration runs as shipped.\n- [ ] Confirmed the evals pass.\n  - [ ] Linked the eval run.\n" +
		"\n### Additional detail section:\n- insert any additional info here\n\nSigned: `FILL_IN_GITHUB_USERNAME`\n```\n"
	models = "# Models\n\n| Model | Status |\n|---|---|\n| qwen3.5 | active |\n"
	master = `qwen3.5-fp8-mi355x-sglang:
  image: lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x
  model: Qwen/Qwen3.5-397B-A17B-FP8
  model-prefix: qwen3.5
  runner: mi355x
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
`
	entryA = "- config-keys:\n    - qwen3.5-fp8-mi355x-sglang\n  description:\n    - \"First entry\"\n  pr-link: https://github.com/example/bench/pull/1\n"
	entryB = "- config-keys:\n    - qwen3.5-fp8-mi355x-sglang\n  description:\n    - \"Second entry\"\n  pr-link: https://github.com/example/bench/pull/2\n"
	entryM = "- config-keys:\n    - qwen3.5-fp8-mi355x-sglang\n  description:\n    - \"Inserted in the middle\"\n  pr-link: https://github.com/example/bench/pull/6\n"
	script = "#!/bin/bash\nsource benchmarks/benchmark_lib.sh\npython3 -m sglang.launch_server --model \"$MODEL\" --tp 8\n"
)

// history builds: a root commit, three squash-merged PRs, a direct push, a
// real merge commit of a PR branch and a PR that inserts a changelog entry
// in the middle of the file. It returns the repository and the commit of
// each PR by number.
func history(t testing.TB, extra map[string]string) (*gitsourcetest.Repo, map[int]string) {
	g := gitsourcetest.New(t)
	files := map[string]string{
		".github/CODEOWNERS":          codeowners,
		".github/verdict.yml":         "core_team: \"@example/core\"\n",
		"docs/PR_REVIEW_CHECKLIST.md": checklist,
		"MODELS.md":                   models,
		"configs/amd-master.yaml":     master,
		"perf-changelog.yaml":         entryA,
		"benchmarks/benchmark_lib.sh": "#!/bin/bash\nwait_for_server() { sleep 1; }\n",
		"benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x_sglang.sh": script,
	}
	for p, c := range extra {
		files[p] = c
	}
	g.Write(files)
	g.Commit("Initial import")
	shas := map[int]string{}

	g.Write(map[string]string{
		"configs/amd-master.yaml": strings.Replace(master, "v0.5.20", "v0.5.21", 1),
		"perf-changelog.yaml":     entryA + "\n" + entryB,
	})
	shas[2] = g.Commit("Bump the Qwen3.5 image (#2)")

	g.Write(map[string]string{"README.md": "docs only\n"})
	g.Commit("Direct push without a PR")

	g.Write(map[string]string{"benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x_sglang.sh": script + "echo \"unterminated\n"})
	shas[3] = g.Commit("Break the script (#3)")

	g.Git("checkout", "--quiet", "-b", "feature")
	g.Write(map[string]string{"docs/notes.md": "notes\n"})
	g.Commit("Notes on a branch")
	g.Git("checkout", "--quiet", "main")
	g.Write(map[string]string{"README.md": "docs only, again\n"})
	g.Commit("Another direct push")
	g.Git("merge", "--quiet", "--no-ff", "-m", "Merge pull request #5 from example/feature", "feature")
	shas[5] = g.Git("rev-parse", "HEAD")

	g.Write(map[string]string{
		"configs/amd-master.yaml": strings.Replace(master, "v0.5.20", "v0.5.22", 1),
		"perf-changelog.yaml":     entryA + "\n" + entryM + "\n" + entryB,
	})
	shas[6] = g.Commit("Revert \"x (#4)\" and insert an entry (#6)")
	return g, shas
}

func openRepo(t *testing.T, dir string) *gitsource.Repo {
	t.Helper()
	r, err := gitsource.Open(context.Background(), dir, gitsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestHistoryFindsMergedPRs(t *testing.T) {
	g, shas := history(t, nil)
	repo := openRepo(t, g.Bare())
	prs, examined, err := replay.History(context.Background(), repo, replay.Options{Presets: []*checks.Preset{inferencex.Preset}})
	if err != nil {
		t.Fatal(err)
	}
	if examined != 7 {
		t.Errorf("examined %d first-parent commits, want 7 (the branch commit is not first-parent)", examined)
	}
	var got []int
	for _, p := range prs {
		got = append(got, p.Number)
		if p.SHA != shas[p.Number] {
			t.Errorf("#%d: commit %s, want %s", p.Number, p.SHA, shas[p.Number])
		}
		if p.Merge != (p.Number == 5) {
			t.Errorf("#%d: merge = %v", p.Number, p.Merge)
		}
	}
	if len(got) != 4 || got[0] != 2 || got[1] != 3 || got[2] != 5 || got[3] != 6 {
		t.Fatalf("PRs %v, want [2 3 5 6] (a revert names its own PR last)", got)
	}
	if prs[2].Parent != g.Git("rev-parse", shas[5]+"^1") {
		t.Errorf("merge commit replayed against %s, not its first parent", prs[2].Parent)
	}
	limited, _, err := replay.History(context.Background(), repo, replay.Options{Limit: 2, Presets: []*checks.Preset{inferencex.Preset}})
	if err != nil || len(limited) != 2 || limited[0].Number != 5 || limited[1].Number != 6 {
		t.Errorf("--limit 2 = %v, %v; want the newest two", limited, err)
	}
	since, _, err := replay.History(context.Background(), repo, replay.Options{Since: shas[3], Presets: []*checks.Preset{inferencex.Preset}})
	if err != nil || len(since) != 2 || since[0].Number != 5 {
		t.Errorf("--since #3 = %v, %v; want #5 and #6", since, err)
	}
}

func TestReplayReportsRowsProblemsAndSigner(t *testing.T) {
	g, _ := history(t, nil)
	rep, err := replay.Run(context.Background(), openRepo(t, g.Dir), replay.Options{Tool: replay.ToolOff, Jobs: 3, Presets: []*checks.Preset{inferencex.Preset}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.PRs != 4 || rep.Totals.Squash != 3 || rep.Totals.Merge != 1 || rep.Totals.Errors != 0 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	byNum := map[int]replay.Result{}
	for _, r := range rep.PRs {
		byNum[r.Number] = r
		if len(r.Rows) != 16 {
			t.Errorf("#%d has %d rows", r.Number, len(r.Rows))
		}
	}
	// The master config is owned by @amd-owner (listed first); the notes of
	// #5 only by the core team (named in .github/verdict.yml): the
	// catch-all names no individual, so the first one in the file signs.
	for n, want := range map[int]string{2: "amd-owner", 5: "amd-owner", 6: "amd-owner"} {
		if byNum[n].Signer != want {
			t.Errorf("#%d signed by %q, want %q", n, byNum[n].Signer, want)
		}
	}
	if byNum[2].Required != true || byNum[5].Required != false {
		t.Errorf("scope: #2 required %v, #5 required %v", byNum[2].Required, byNum[5].Required)
	}
	row := func(n, check int) replay.Row {
		for _, r := range byNum[n].Rows {
			if r.Number == check {
				return r
			}
		}
		t.Fatalf("#%d has no row %d", n, check)
		return replay.Row{}
	}
	// The synthesized sign-off carries every template item, checked, by an
	// owner: Checks 0 and 5 pass on #2; CI evidence is GitHub's.
	if r := row(2, 0); r.Status != "PASS" {
		t.Errorf("#2 Check 0: %s %s", r.Status, r.Reason)
	}
	if r := row(2, 5); r.Status != "PASS" || !strings.Contains(r.Reason, "All 3 current template items present and checked") {
		t.Errorf("#2 Check 5: %s %s", r.Status, r.Reason)
	}
	if r := row(2, 1); r.Status != "FAIL" || !r.GitHubOnly || !strings.Contains(r.Reason, gitsource.Unavailable) {
		t.Errorf("#2 Check 1: %+v", r)
	}
	if rep.Totals.Rows[1]["FAIL"] != 4 || rep.Totals.RowsGitHubOnly[1] != 4 {
		t.Errorf("Check 1 totals: %v, GitHub-only %d", rep.Totals.Rows[1], rep.Totals.RowsGitHubOnly[1])
	}

	// #3 breaks a script the config runs: a reader problem on an existing
	// file, with its line.
	var found *replay.Problem
	for i, p := range byNum[3].Problems {
		if p.Path == "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x_sglang.sh" {
			found = &byNum[3].Problems[i]
		}
	}
	if found == nil {
		t.Fatalf("#3 reader problems %+v lack the broken script", byNum[3].Problems)
	}
	if !found.Exists || found.Line != 4 || found.Cause == "" || strings.Contains(found.Cause, found.Path) {
		t.Errorf("problem %+v: want an existing file, line 4, a cause without the path", *found)
	}
	if rep.Totals.Problems == 0 || len(rep.Totals.Causes) == 0 || rep.Totals.Files[0].PRs == 0 {
		t.Errorf("problem totals %+v", rep.Totals)
	}

	// The changelog comparison was not asked for: touched PRs are skipped.
	if byNum[2].Changelog.Status != "skipped" || byNum[5].Changelog.Status != "untouched" || rep.ToolNote == "" {
		t.Errorf("changelog: #2 %s, #5 %s, note %q", byNum[2].Changelog.Status, byNum[5].Changelog.Status, rep.ToolNote)
	}
	if len(byNum[2].Changelog.Verdict) != 1 || !strings.Contains(byNum[2].Changelog.Verdict[0], "pull/2") {
		t.Errorf("#2 Verdict's added entries %v", byNum[2].Changelog.Verdict)
	}

	var text bytes.Buffer
	rep.Text(&text)
	for _, want := range []string{"4 merged pull requests (3 squash, 1 merge commits)", "Reader problems:", "Rows per check", "Changelog entries added"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report does not marshal: %v", err)
	}
}
