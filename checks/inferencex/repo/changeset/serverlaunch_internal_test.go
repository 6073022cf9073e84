package changeset

import (
	"testing"

	"github.com/verdict-bot/verdict/checks/format/shell/trace"
)

// The reason a dry run that never started a server gives is the script's
// own last words, not set -x's echo nor the workflow's complaint after.
func TestGaveUpQuotesTheScript(t *testing.T) {
	tr := &trace.Trace{Stderr: "+ hf download m\nDownloaded model snapshot is incomplete: \n+ exit 1\n    continued\nRun failed: Benchmark result x.json not found.\n"}
	if got, want := gaveUp(tr), " (Downloaded model snapshot is incomplete:)"; got != want {
		t.Errorf("gaveUp = %q, want %q", got, want)
	}
	if got := gaveUp(&trace.Trace{Stderr: "+ wait\n"}); got != "" {
		t.Errorf("gaveUp of xtrace alone = %q", got)
	}
}
