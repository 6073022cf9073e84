package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
)

// A Python startup hook of the evaluation harness is not an engine patch;
// one that names the serving stack is.
func TestHarnessStartupHooks(t *testing.T) {
	script := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
	hook := func(body string) string {
		return "patch_dir=$(mktemp -d)\ncat > \"$patch_dir/sitecustomize.py\" <<'PY'\n" + body + "PY\nexport PYTHONPATH=\"$patch_dir\"\n"
	}
	cfgRunScenarios(t, []cfgScenario{
		{name: "lm-eval's filters patched through sitecustomize", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head[script] += hook("from lm_eval.filters import extraction as ex\nex.X = 1\n")
			},
			status: checks.Pass, want: []string{"=No engine/serving-stack patching."}},
		{name: "a copied lm-eval hook", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head[script] += "cp utils/evals/patches/lm_eval_sitecustomize.py \"$(mktemp -d)/sitecustomize.py\"\n"
			},
			status: checks.Pass, want: []string{"=No engine/serving-stack patching."}},
		{name: "a hook that also patches vLLM", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head[script] += hook("from lm_eval.filters import extraction as ex\nimport vllm.config\nvllm.config.X = 1\n")
			},
			status: checks.Fail, want: []string{"monkey-patches Python startup (sitecustomize)"}},
		{name: "a Python heredoc writes the engine file its command line names", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head[script] += "python3 - /sgl-workspace/sglang/python/sglang/srt/configs/model_config.py <<'PY'\nimport sys\np = sys.argv[1]\nsrc = open(p).read()\nwith open(p, 'w') as fh:\n    fh.write(src.replace('a', 'b'))\nPY\n"
			},
			status: checks.Fail, want: []string{"rewrites /sgl-workspace/sglang from a Python heredoc"}},
		{name: "a hook that names no harness", check: inferencex.EnginePatches,
			edit:   func(r *inferencextest.Repo) { r.Head[script] += hook("import json\n") },
			status: checks.Fail, want: []string{"monkey-patches Python startup (sitecustomize)"}},
	})
}

// What a workflow runs is its steps' run: scripts; prose elsewhere in it
// (a reviewer prompt listing what to look for) is not a command, nor is a
// job on a GitHub-hosted runner, which never serves a benchmark.
func TestWorkflowProseIsNotRun(t *testing.T) {
	for _, tc := range []struct {
		name, workflow string
		status         checks.Status
	}{
		{"prose in a prompt", "on: pull_request\njobs:\n  review:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: some/reviewer@v1\n        with:\n          prompt: |\n            Flag patches: git apply, sitecustomize, sed -i on site-packages/vllm.\n",
			checks.Pass},
		{"a run: script", "on: pull_request\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - run: |\n          echo setting up\n          git apply engine.patch\n",
			checks.Fail},
		{"a workflow that does not parse keeps every line", "on: [\njobs:\n  prompt: git apply engine.patch\n",
			checks.Fail},
		{"a job on a GitHub-hosted runner", "on: pull_request\njobs:\n  unit:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pip install --index-url https://download.pytorch.org/whl/cpu torch\n",
			checks.Pass},
		{"a job on a self-hosted runner", "on: pull_request\njobs:\n  unit:\n    runs-on: [self-hosted, b200]\n    steps:\n      - run: pip install --index-url https://download.pytorch.org/whl/cpu torch\n",
			checks.Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := inferencextest.NewRepo(inferencextest.Layouts()["legacy"])
			r.Head[".github/workflows/review.yml"] = tc.workflow
			r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "echo changed\n"
			res, _ := r.RunCheck(t, inferencex.EnginePatches)
			if res.Status != tc.status {
				t.Errorf("status %s, want %s: %s", res.Status, tc.status, res.Reason.EN)
			}
		})
	}
}

// The runner labels name machines, not how a job runs: a PR that only
// renumbers them adds no runtime line (Check 8 is N/A; Check 10, which
// applies to any changed config file, finds nothing).
func TestRunnerLabelsAreNotRuntimeLines(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		r := inferencextest.NewRepo(layout)
		labels := layout.ConfigsDir + "/runners.yaml"
		r.Base[strings.TrimPrefix(labels, layout.Root)] = "labels:\n  b300:\n    - b300-cw_0\n"
		r.Head[strings.TrimPrefix(labels, layout.Root)] = "labels:\n  b300:\n    - b300-cw_1\n    - b300-cw_2\n"
		for c, want := range map[*checks.Check]checks.Status{inferencex.ArchitectureHacks: checks.NA, inferencex.EnginePatches: checks.Pass} {
			if res, _ := r.RunCheck(t, c); res.Status != want {
				t.Errorf("%s: row %d: %s — %s", name, c.Number, res.Status, res.Reason.EN)
			}
		}
	}
}
