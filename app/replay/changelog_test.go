package replay_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/replay"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// A stand-in for a repository's changelog tool, with the command line and
// output shape of InferenceX's utils/process_changelog.py: the entries it
// adds are the YAML of the "+" lines of git diff base head, a deleted line
// is refused, and it runs a sweep generator for the selected keys (which
// fails for a key named fails-in-generation).
const (
	fakeConstants = "GENERATE_SWEEPS_PY_SCRIPT = \"utils/matrix_logic/generate_sweep_configs.py\"\n"
	fakeTool      = `import argparse, json, subprocess
import yaml, pydantic
from constants import GENERATE_SWEEPS_PY_SCRIPT

p = argparse.ArgumentParser()
p.add_argument("--base-ref", required=True)
p.add_argument("--head-ref", required=True)
p.add_argument("--changelog-file", required=True)
a = p.parse_args()
diff = subprocess.run(["git", "diff", a.base_ref, a.head_ref, "--", a.changelog_file], capture_output=True, text=True, check=True).stdout
added = []
for line in diff.split("\n"):
    if line.startswith("-") and not line.startswith("---") and line[1:].strip():
        raise ValueError("Deletions are not allowed in the changelog: " + line[1:])
    if line.startswith("+") and not line.startswith("+++"):
        added.append(line[1:])
entries = yaml.safe_load("\n".join(added))
if not entries:
    raise ValueError("No additions found in the changelog file.")
keys = [k for e in entries for k in e["config-keys"]]
gen = subprocess.run(["python3", GENERATE_SWEEPS_PY_SCRIPT, "test-config", "--config-keys", *keys], capture_output=True, text=True, check=True)
print(json.dumps({"single_node": json.loads(gen.stdout), "changelog_metadata": {"base_ref": a.base_ref, "head_ref": a.head_ref, "entries": entries}}))
`
	fakeGenerator = `import sys
if "fails-in-generation" in sys.argv:
    sys.exit("generation failed")
print("[]")
`
	entryFails = "- config-keys:\n    - fails-in-generation\n  description:\n    - \"Generation fails\"\n  pr-link: https://github.com/example/bench/pull/7\n"
)

func requirePython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	if err := exec.Command("python3", "-c", "import yaml, pydantic").Run(); err != nil {
		t.Skip("python3 lacks PyYAML or pydantic")
	}
}

func TestChangelogComparedWithTheRepositorysTool(t *testing.T) {
	requirePython(t)
	g, shas := history(t, map[string]string{
		"utils/process_changelog.py":                   fakeTool,
		"utils/constants.py":                           fakeConstants,
		"utils/matrix_logic/generate_sweep_configs.py": fakeGenerator,
	})
	// #7 adds an entry whose sweep generation fails; #8 deletes an entry.
	g.Write(map[string]string{"perf-changelog.yaml": entryA + "\n" + entryM + "\n" + entryB + "\n" + entryFails})
	shas[7] = g.Commit("Add an entry the generator refuses (#7)")
	g.Write(map[string]string{"perf-changelog.yaml": entryA + "\n" + entryM + "\n" + entryFails})
	shas[8] = g.Commit("Delete an entry (#8)")

	for _, mode := range []string{replay.ToolEntries, replay.ToolFull} {
		t.Run(mode, func(t *testing.T) {
			rep, err := replay.Run(context.Background(), openRepo(t, g.Bare()), replay.Options{Tool: mode, Presets: []*checks.Preset{inferencex.Preset}})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ToolNote != "" {
				t.Fatalf("tool note: %s", rep.ToolNote)
			}
			got := map[int]replay.Changelog{}
			for _, r := range rep.PRs {
				got[r.Number] = r.Changelog
			}
			oneTool := func(n int, link string) {
				t.Helper()
				c := got[n]
				if len(c.Tool) != 1 || !strings.Contains(c.Tool[0], link) {
					t.Errorf("#%d: the tool added %v, want the entry of %s", n, c.Tool, link)
				}
				want := "agree"
				if strings.Join(c.Verdict, "|") != strings.Join(c.Tool, "|") {
					want = "disagree"
				}
				if c.Status != want || (want == "disagree") != (len(c.OnlyOurs)+len(c.OnlyTool) > 0) {
					t.Errorf("#%d: status %s (only Verdict %v, only tool %v), want %s", n, c.Status, c.OnlyOurs, c.OnlyTool, want)
				}
			}
			// Appended at the end: the tool and Verdict both add entry B.
			oneTool(2, "pull/2")
			if got[2].Status != "agree" {
				t.Errorf("#2 appended entry: %s", got[2].Status)
			}
			// Inserted mid-file: the tool adds entry M, whatever Verdict says.
			oneTool(6, "pull/6")
			if got[3].Status != "untouched" || got[5].Status != "untouched" {
				t.Errorf("PRs not touching the changelog: #3 %s, #5 %s", got[3].Status, got[5].Status)
			}
			// The generator's failure is the full tool's refusal only.
			if mode == replay.ToolEntries {
				oneTool(7, "pull/7")
			} else if got[7].Status != "refused" || !strings.Contains(got[7].ToolError, "CalledProcessError") {
				t.Errorf("#7 in full mode: %s %q", got[7].Status, got[7].ToolError)
			}
			// A deletion is refused in both modes, with the tool's reason.
			if c := got[8]; c.Status != "refused" || !strings.Contains(c.ToolError, "Deletions are not allowed") {
				t.Errorf("#8: %s %q", c.Status, c.ToolError)
			}
			if rep.Totals.Changelog["refused"] == 0 || rep.Totals.Changelog["untouched"] != 2 {
				t.Errorf("changelog totals %v", rep.Totals.Changelog)
			}
		})
	}
}

// Before the tool existed in the repository, there is nothing to compare.
func TestChangelogWithoutTheTool(t *testing.T) {
	requirePython(t)
	g, _ := history(t, nil)
	rep, err := replay.Run(context.Background(), openRepo(t, g.Dir), replay.Options{Presets: []*checks.Preset{inferencex.Preset}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.PRs {
		want := "no-tool"
		if r.Number == 3 || r.Number == 5 {
			want = "untouched"
		}
		if r.Changelog.Status != want {
			t.Errorf("#%d: %s, want %s", r.Number, r.Changelog.Status, want)
		}
	}
}
