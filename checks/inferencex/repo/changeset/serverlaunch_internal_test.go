package changeset

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/format/shell/trace"
)

// Each engine's server is recognised however it is started; clients,
// installs and other Python modules are not servers.
func TestServerLaunches(t *testing.T) {
	for _, tc := range []struct {
		argv   string
		server bool
	}{
		{"vllm serve /models/m --port 8000", true},
		{"sglang serve --model-path m --tp 8", true},
		{"python3 -m sglang.launch_server --model-path m", true},
		{"python -m vllm.entrypoints.openai.api_server --model m", true},
		{"python3 -m atom.entrypoints.openai_server --model m", true},
		{"/usr/local/bin/trtllm-serve m", true},
		{"python3 -m sglang.bench_serving --max-concurrency 4", false},
		{"vllm bench serve --model m", false},
		{"pip install sglang", false},
		{"sglang version", false},
	} {
		if got := isServerLaunch(strings.Fields(tc.argv)); got != tc.server {
			t.Errorf("%q: server = %v, want %v", tc.argv, got, tc.server)
		}
	}
}

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
