package inferencex_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// addMultiNode gives the fixture a multi-node disaggregated config whose
// job reaches its servers and client only through the cluster: the
// launcher runs the model's script, which submits a batch job, whose srun
// step starts one script per node; it picks its role by rank (rank 0
// serves prefill and runs the client once the decode node's barrier is
// passed, the last rank decodes), watching its server while it waits.
func addMultiNode(r *inferencextest.Repo, client string) {
	r.AppendEntry("configs/amd-master.yaml", `
exm-fp4-mi355x-sglang-disagg-mtp:
  image: lmsysorg/sglang:v0.5.16-rocm
  model: example/ExampleModel
  model-prefix: exm
  runner: mi355x-amds
  precision: fp4
  framework: sglang-disagg
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - spec-decoding: mtp
        conc-list: [ 8, 16 ]
        prefill: { num-worker: 1, tp: 8 }
        decode: { num-worker: 1, tp: 8 }
`)
	for p, c := range map[string]string{
		"runners/launch_mi355x-amds.sh":                         "#!/usr/bin/env bash\nbash \"benchmarks/multi_node/${MODEL_PREFIX}_${PRECISION}_mi355x_sglang-disagg.sh\"\n",
		"benchmarks/multi_node/exm_fp4_mi355x_sglang-disagg.sh": "#!/usr/bin/env bash\ncd \"$(dirname \"$0\")/amd_utils\"\nsbatch --parsable -N 2 -n 2 job.slurm\n",
		"benchmarks/multi_node/amd_utils/job.slurm":             "#!/bin/bash\nsrun bash -c 'NODE_RANK=$SLURM_PROCID NODES=$SLURM_NNODES bash /workspace/benchmarks/multi_node/amd_utils/server.sh'\n",
		"benchmarks/multi_node/amd_utils/server.sh": `#!/bin/bash
wait_or_die() {
    local watch=$1; shift
    "$@" & local cmd=$!
    while kill -0 "$cmd" 2>/dev/null; do
        kill -0 "$watch" 2>/dev/null || { echo "server $watch died" >&2; return 1; }
        sleep 5
    done
    wait "$cmd"
}
if [ "$NODE_RANK" -eq 0 ]; then
    python3 -m sglang.launch_server --model-path /models/exm --disaggregation-mode prefill --tp 8 &
    pid=$!
    wait_or_die "$pid" python3 sync.py barrier --wait-for-all-ports || exit 1
    ` + client + `
else
    SGLANG_SIMULATE_ACC_LEN=2.5 python3 -m sglang.launch_server --model-path /models/exm --disaggregation-mode decode --tp 8 \
        --speculative-algorithm EAGLE --speculative-num-steps 3 &
    pid=$!
    wait_or_die "$pid" python3 sync.py barrier --wait-for-all-ports || exit 1
fi
`,
	} {
		r.Head[p] = c
	}
}

// A multi-node config's client is found by running its job dry through
// the cluster's job script, and held to Check 9's rule.
func TestMultiNodeClientIsTraced(t *testing.T) {
	cfgRunScenarios(t, []cfgScenario{
		{name: "chat template on the traced client", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				addMultiNode(r, "python3 /workspace/utils/bench_serving/benchmark_serving.py --backend openai --use-chat-template --max-concurrency 8")
			},
			status: checks.Pass, want: []string{"exm-fp4-mi355x-sglang-disagg-mtp benchmark uses --use-chat-template (dry run)."}},
		{name: "no chat template on the traced client", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				addMultiNode(r, "python3 /workspace/utils/bench_serving/benchmark_serving.py --backend openai --max-concurrency 8")
			},
			status: checks.Fail, want: []string{"server.sh:15 runs the benchmark client without --use-chat-template in the dry run (config exm-fp4-mi355x-sglang-disagg-mtp)"}},
		{name: "a job that never reaches its client needs review", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				addMultiNode(r, "echo 'no client'")
			},
			status: checks.Fail, want: []string{"Needs human review: exm-fp4-mi355x-sglang-disagg-mtp: its dry run starts no benchmark client"}},
	})
}

// The dry run's server settings join the config's, each in the role its
// server serves; an engine reinstalled on the way is Check 10's.
func TestMultiNodeRolesComeFromTheServers(t *testing.T) {
	r := inferencextest.NewRepo(inferencextest.Layouts()["legacy"])
	addMultiNode(r, "python3 /workspace/utils/bench_serving/benchmark_serving.py --use-chat-template")
	pr, _ := r.PR(t)
	cs, bad := changeset.Of(context.Background(), pr)
	if bad != nil {
		t.Fatalf("change set: %s", bad.Reason.EN)
	}
	var got []string
	for _, f := range cs.Effective["exm-fp4-mi355x-sglang-disagg-mtp"] {
		if f.Kind != "trace" {
			continue
		}
		for _, s := range f.Settings {
			if s.Name == "SGLANG_SIMULATE_ACC_LEN" || s.Name == "--speculative-num-steps" || s.Name == "--tp" {
				got = append(got, s.Role+":"+s.Name+"="+s.Value)
			}
		}
	}
	want := []string{"prefill:--tp=8", "decode:--speculative-num-steps=3", "decode:--tp=8", "decode:SGLANG_SIMULATE_ACC_LEN=2.5"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("traced settings = %q, want %q", got, want)
	}
	if len(cs.DryRuns["exm-fp4-mi355x-sglang-disagg-mtp"].Head) == 0 {
		t.Errorf("the multi-node dry run's commands were not kept")
	}

	r = inferencextest.NewRepo(inferencextest.Layouts()["legacy"])
	addMultiNode(r, "pip install --force-reinstall 'git+https://github.com/sgl-project/sglang.git@main#subdirectory=python'\n    python3 /workspace/utils/bench_serving/benchmark_serving.py --use-chat-template")
	res, _ := r.RunCheck(t, inferencex.EnginePatches)
	inferencextest.Expect(t, res, checks.Fail, "server.sh:15 force-reinstalls packages")
}

// A config the base does not have is blamed for what its job runs only
// where the PR wrote it: a shared setup file's long-standing patch, spelled
// out on unchanged lines, is named as pre-existing; an unchanged helper
// handed new arguments by the new job is this PR's.
func TestNewMultiNodeConfigAndSharedFiles(t *testing.T) {
	shared := func(r *inferencextest.Repo, file, text string) {
		r.Base[file] = text
		r.Head[file] = text
	}
	cfgRunScenarios(t, []cfgScenario{
		{name: "a shared setup file's patch is pre-existing", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				shared(r, "benchmarks/multi_node/amd_utils/setup_deps.sh",
					"#!/bin/bash\npython3 -c 'open(\"/sgl-workspace/sglang/python/sglang/srt/x.py\", \"a\").write(\"y\")'\n")
				addMultiNode(r, "bash /workspace/benchmarks/multi_node/amd_utils/setup_deps.sh\n    python3 /workspace/utils/bench_serving/benchmark_serving.py --use-chat-template")
			},
			status: checks.Pass, want: []string{"pre-existing patch at {root}benchmarks/multi_node/amd_utils/setup_deps.sh:2", "not introduced by this PR"}},
		{name: "an unchanged helper handed new arguments", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				shared(r, "benchmarks/multi_node/amd_utils/pip.sh", "#!/bin/bash\npython3 -m pip install \"$@\"\n")
				addMultiNode(r, "bash /workspace/benchmarks/multi_node/amd_utils/pip.sh --no-deps --force-reinstall kvstore-engine==0.3.1\n    python3 /workspace/utils/bench_serving/benchmark_serving.py --use-chat-template")
			},
			status: checks.Fail, want: []string{"{root}benchmarks/multi_node/amd_utils/pip.sh:2 force-reinstalls packages (pip install --force-reinstall); no {root}docs/waiver/"}},
	})
}

// Only a complete dry run speaks for the servers' environment: one that
// stopped at a bound before a role's server leaves the static reading.
func TestMultiNodeServersOnlyFromCompleteDryRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stall   bool
		servers bool
	}{{"complete", false, true}, {"stopped at a bound", true, false}} {
		r := inferencextest.NewRepo(inferencextest.Layouts()["legacy"])
		addMultiNode(r, "python3 /workspace/utils/bench_serving/benchmark_serving.py --use-chat-template")
		if tc.stall {
			p := "benchmarks/multi_node/amd_utils/server.sh"
			r.Head[p] = strings.Replace(r.Head[p], "else\n", "else\n    until false; do sleep 5; done\n", 1)
		}
		pr, _ := r.PR(t)
		cs, bad := changeset.Of(context.Background(), pr)
		if bad != nil {
			t.Fatalf("change set: %s", bad.Reason.EN)
		}
		found := false
		for _, f := range cs.Effective["exm-fp4-mi355x-sglang-disagg-mtp"] {
			if f.Kind == "trace" {
				found = true
				if f.Servers != tc.servers {
					t.Errorf("%s: Servers = %v, want %v", tc.name, f.Servers, tc.servers)
				}
			}
		}
		if !found {
			t.Errorf("%s: no dry-run settings", tc.name)
		}
	}
}
