package inferencex_test

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
)

// A patch file's lines are engine source (applying it is Check 10's): the
// model fields its code names are not architecture overrides of a run;
// the same field set in a script still is.
func TestArchHacksSkipPatchFiles(t *testing.T) {
	patch := "--- a/vllm/model_executor/models/kimi.py\n+++ b/vllm/model_executor/models/kimi.py\n@@ -1,3 +1,3 @@\n-        self.n = config.num_experts\n+        self.num_experts = moe.num_experts\n"
	cfgRunScenarios(t, []cfgScenario{
		{name: "a patch file naming num_experts", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/agentic/patches/engine.patch"] = patch
			},
			status: checks.Pass, want: []string{"No architecture-override knobs"}},
		{name: "a script setting num_experts", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "export OVERRIDE='{\"num_experts\": 8}'\n"
			},
			status: checks.Fail, want: []string{"Needs human review: architecture override"}},
	})
}
