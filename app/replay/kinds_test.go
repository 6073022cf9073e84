package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/replay"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// A PR that edits a base changelog entry and adds an image: the edit is a
// finding on a file read in full, the image is not text; neither counts as
// a reader problem on an existing file.
func TestReplayCountsFindingsAndBinaryApart(t *testing.T) {
	g, _ := history(t, nil)
	g.Write(map[string]string{
		"perf-changelog.yaml": strings.Replace(entryA, "First entry", "First entry, reworded", 1) + "\n" + entryM + "\n" + entryB,
		"docs/chart.png":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
	})
	g.Commit("Reword an old entry, add a chart (#7)")
	rep, err := replay.Run(context.Background(), openRepo(t, g.Dir), replay.Options{Tool: replay.ToolOff, Jobs: 2, Presets: []*checks.Preset{inferencex.Preset}})
	if err != nil {
		t.Fatal(err)
	}
	var pr7 *replay.Result
	for i := range rep.PRs {
		if rep.PRs[i].Number == 7 {
			pr7 = &rep.PRs[i]
		}
	}
	if pr7 == nil {
		t.Fatal("#7 not replayed")
	}
	edit := 0
	for _, p := range pr7.Problems {
		switch {
		case p.Kind == "changelog-edit" && p.Exists:
			edit++
		case p.Path == "docs/chart.png":
			t.Errorf("the image is a problem: %+v", p)
		}
	}
	if edit != 1 {
		t.Errorf("#7 problems %+v: want one changelog-edit finding", pr7.Problems)
	}
	if len(pr7.NotText) != 1 || pr7.NotText[0] != "docs/chart.png" {
		t.Errorf("#7 not text %v", pr7.NotText)
	}
	// #3's broken script, still broken at #6 and #7, is the only reader
	// problem on an existing file.
	if rep.Totals.ProblemsOnExisting != 3 || rep.Totals.FindingsOnExisting["changelog-edit"] != 1 || rep.Totals.NotText != 1 {
		t.Errorf("totals: on existing %d, findings %v, not text %d", rep.Totals.ProblemsOnExisting, rep.Totals.FindingsOnExisting, rep.Totals.NotText)
	}
}
