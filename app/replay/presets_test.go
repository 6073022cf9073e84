package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/replay"
	"github.com/verdict-bot/verdict/checks"
	checklistpreset "github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// TestReplayAsksThePreset: the replay's sign-off and changelog come from
// the preset. One that cannot synthesize a sign-off leaves every PR not
// verifiable, saying why, instead of judging an empty sign-off; one that
// keeps no changelog has nothing to compare.
func TestReplayAsksThePreset(t *testing.T) {
	noSample := *inferencex.Preset
	noSample.Name, noSample.Sample = "inferencex-without-sample", nil
	g, _ := history(t, nil)
	repo := openRepo(t, g.Dir)
	for _, tt := range []struct {
		name      string
		preset    *checks.Preset
		err       string
		signer    string
		changelog string // #6's changelog status
	}{
		{"inferencex", inferencex.Preset, "", "amd-owner", "skipped"},
		{"checklist", checklistpreset.Preset, "", "amd-owner", "no-changelog"},
		{"without Sample", &noSample, "the inferencex-without-sample preset cannot synthesize a sign-off; its changes can be verified only with a real one", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := replay.Run(context.Background(), repo, replay.Options{Tool: replay.ToolOff, Limit: 3, Presets: []*checks.Preset{tt.preset}})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.PRs {
				if tt.err != "" {
					if !strings.Contains(r.Error, tt.err) || len(r.Rows) > 0 {
						t.Errorf("#%d: error %q with %d rows, want %q and no rows", r.Number, r.Error, len(r.Rows), tt.err)
					}
					continue
				}
				if r.Error != "" || len(r.Rows) != len(tt.preset.Rows) {
					t.Errorf("#%d: error %q, %d rows", r.Number, r.Error, len(r.Rows))
				}
				if r.Number == 6 && (r.Signer != tt.signer || r.Changelog.Status != tt.changelog) {
					t.Errorf("#6: signed by %q, changelog %s; want %q, %s", r.Signer, r.Changelog.Status, tt.signer, tt.changelog)
				}
			}
			if tt.err != "" && rep.Totals.Errors != len(rep.PRs) {
				t.Errorf("%d of %d PRs not verifiable", rep.Totals.Errors, len(rep.PRs))
			}
		})
	}
}
