package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
)

// TestReplayCommand replays a two-commit history: the legacy sample's
// default branch, then its PR squash-merged as #3412.
func TestReplayCommand(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	g := gitsourcetest.New(t)
	g.CopyTree(filepath.Join(legacySampleDir, "trees", "main"))
	g.Commit("Add Qwen3.5 FP8 MI355X SGLang agentic MTP config (#3288)")
	g.CopyTree(filepath.Join(legacySampleDir, "trees", "head"))
	head := g.Commit("qwen3.5 mi355x agentic mtp: bump sglang to v0.5.21, add conc 2 and 12 (#3412)")

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"replay", "--repo-dir", g.Dir, "--format", "json", "--changelog-tool", "off", "-q"},
		Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Commits int `json:"first_parent_commits"`
		PRs     []struct {
			Number int    `json:"number"`
			SHA    string `json:"sha"`
			Signer string `json:"signer"`
			Rows   []struct {
				Number int    `json:"number"`
				Status string `json:"status"`
			} `json:"rows"`
		} `json:"prs"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if rep.Commits != 2 || len(rep.PRs) != 1 || rep.PRs[0].Number != 3412 || rep.PRs[0].SHA != head || rep.PRs[0].Signer != "amd-owner-a" {
		t.Fatalf("report %+v", rep)
	}
	status := map[int]string{}
	for _, r := range rep.PRs[0].Rows {
		status[r.Number] = r.Status
	}
	// The same readers as the local check of this PR: rows decided by the
	// repository alone pass, CI evidence is GitHub's.
	for n, want := range map[int]string{0: "PASS", 1: "FAIL", 9: "PASS", 10: "PASS", 11: "PASS", 12: "N/A"} {
		if status[n] != want {
			t.Errorf("Check %d: %s, want %s", n, status[n], want)
		}
	}

	stdout.Reset()
	if code := cmdReplay(context.Background(), []string{"--repo-dir", g.Dir, "--changelog-tool", "off", "-q"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "1 merged pull requests (1 squash, 0 merge commits)") {
		t.Errorf("text report (exit %d):\n%s", code, stdout.String())
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--repo-dir DIR is required"},
		{[]string{"--repo-dir", g.Dir, "--format", "yaml"}, "--format must be text or json"},
		{[]string{"--repo-dir", g.Dir, "--changelog-tool", "some"}, "--changelog-tool must be entries, full or off"},
		{[]string{"--repo-dir", g.Dir, "--since", "nope"}, "--since"},
		{[]string{"--repo-dir", t.TempDir()}, "is not a git repository"},
	} {
		var out, errOut bytes.Buffer
		if code := cmdReplay(context.Background(), tc.args, &out, &errOut); code != exitError || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}
