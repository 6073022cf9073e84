package replay_test

import (
	"context"
	"os"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/replay"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// BenchmarkReplayHistory replays the whole history of the clone named by
// VERDICT_REPLAY_DIR (for example a bare mirror of SemiAnalysisAI/InferenceX)
// and reports the time per pull request. VERDICT_REPLAY_TOOL picks the
// changelog comparison mode (entries, full or off; default entries).
func BenchmarkReplayHistory(b *testing.B) {
	dir := os.Getenv("VERDICT_REPLAY_DIR")
	if dir == "" {
		b.Skip("VERDICT_REPLAY_DIR is not set")
	}
	benchReplay(b, dir, os.Getenv("VERDICT_REPLAY_TOOL"))
}

// BenchmarkReplaySynthetic replays the tests' small synthetic history
// without the changelog tool: the Go side's cost per pull request.
func BenchmarkReplaySynthetic(b *testing.B) {
	g, _ := history(b, nil)
	benchReplay(b, g.Bare(), replay.ToolOff)
}

func benchReplay(b *testing.B, dir, mode string) {
	for i := 0; i < b.N; i++ {
		repo, err := gitsource.Open(context.Background(), dir, gitsource.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := replay.Run(context.Background(), repo, replay.Options{Tool: mode, Presets: []*checks.Preset{inferencex.Preset}})
		repo.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(rep.PRs)), "PRs")
		b.ReportMetric(rep.Seconds*1000/float64(len(rep.PRs)), "ms/PR")
	}
}
