package inferencex_test

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestIsDocFile(t *testing.T) {
	for p, want := range map[string]bool{
		"inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/mi355x-fp8-mtp/README.md": true,
		"runners/NOTES.MD":                    true,
		"benchmarks/multi_node/guide.rst":     true,
		"benchmarks/single_node/agentic/x.sh": false,
		"benchmarks/single_node/recipe.yaml":  false,
		"runners/srt-slurm/patches/a.patch":   false,
		"benchmarks/README":                   false,
		"benchmarks/requirements.txt":         false,
	} {
		if got := repo.IsDocFile(p); got != want {
			t.Errorf("IsDocFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// A README next to recipes and scripts is documentation, not a runtime
// file: rows 8, 10 and 14 are N/A for it, even when it quotes a launch
// command or a patch-like snippet.
func TestDocFileUnderBenchmarksIsNotRuntime(t *testing.T) {
	for name, l := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(l)
			r.Head["runners/README.md"] = "# Runners\n\nLaunch with `SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1` only for experiments.\n"
			r.Head["benchmarks/single_node/README.md"] = "# Single-node scripts\n\n```bash\n" +
				"sed -i 's/a/b/' /usr/local/lib/python3.12/site-packages/vllm/config.py\n" +
				"vllm serve x --hf-overrides '{\"num_hidden_layers\": 2}'\n```\n"
			for _, c := range []struct {
				check *checks.Check
				want  string
			}{
				{inferencex.ArchitectureHacks, "PR changes no benchmark serving configuration"},
				{inferencex.EnginePatches, "PR touches no benchmark scripts"},
				{inferencex.ParetoCoverage, "No change in this PR can affect a benchmark curve."},
			} {
				res, _ := r.RunCheck(t, c.check)
				inferencextest.Expect(t, res, checks.NA, c.want)
			}
		})
	}
}
