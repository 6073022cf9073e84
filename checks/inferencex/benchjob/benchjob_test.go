package benchjob

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/format/shell/trace"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

type files = trace.MapFiles

const master = `dsr1-fp8-h200-sglang-mtp:
  image: lmsysorg/sglang:v0.5.9
  model: deepseek-ai/DeepSeek-R1
  model-prefix: dsr1
  runner: h200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 1, spec-decoding: mtp, conc-list: [4, 8] }
`

func entry(t *testing.T) *repo.ConfigEntry {
	t.Helper()
	es, ps := repo.ParseMasterConfig("configs/nvidia-master.yaml", []byte(master))
	if len(ps) > 0 || len(es) != 1 {
		t.Fatalf("master config: %v %v", es, ps)
	}
	return es[0]
}

func TestJobsFollowTheWorkflow(t *testing.T) {
	labels, err := Runners([]byte("labels:\n  h200:\n    - h200-cw_00\n    - h200-cw_01\n    - h200-nb_00\n"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := Jobs(entry(t), labels)
	// Two concurrencies × two launchers (h200-cw, h200-nb).
	if len(jobs) != 4 {
		t.Fatalf("%d jobs: %+v", len(jobs), jobs)
	}
	j := jobs[0]
	for k, want := range map[string]string{"TP": "8", "EP_SIZE": "1", "CONC": "4", "SPEC_DECODING": "mtp", "ISL": "8192", "OSL": "1024",
		"MAX_MODEL_LEN": "9472", "MODEL": "deepseek-ai/DeepSeek-R1", "EXP_NAME": "dsr1_8k1k", "RUNNER_NAME": "h200-cw_00",
		"SCENARIO_SUBDIR": "fixed_seq_len/", "IS_AGENTIC": "0", "RUN_EVAL": "false"} {
		if j.Env[k] != want {
			t.Errorf("%s = %q, want %q", k, j.Env[k], want)
		}
	}
	if j.Launcher != "runners/launch_h200-cw.sh" || jobs[1].Launcher != "runners/launch_h200-nb.sh" || jobs[2].Env["CONC"] != "8" {
		t.Errorf("launchers and points: %+v", jobs)
	}
}

func TestRunReachesTheServer(t *testing.T) {
	repoFiles := files{
		"runners/launch_h200-cw.sh": `SCRIPT="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h200.sh"
docker run --rm -v "$GITHUB_WORKSPACE:/workspace" -e SPEC_DECODING="$SPEC_DECODING" "$IMAGE" bash "$SCRIPT"
`,
		"benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh": `source "$(dirname "$0")/../../benchmark_lib.sh"
NUM_SPEC="${NUM_SPEC:-3}"
python3 -m sglang.launch_server --model "$MODEL" --tp "$TP" --speculative-num-steps "$NUM_SPEC" &
run_client
`,
		"benchmarks/benchmark_lib.sh": "run_client() { python3 -m sglang.bench_serving --max-concurrency \"$CONC\"; }\n",
	}
	labels := map[string][]string{"h200": {"h200-cw_00"}}
	tr := Run(context.Background(), repoFiles, Jobs(entry(t), labels)[0], trace.Options{})
	if tr.Stopped != "" || len(tr.Unread) > 0 {
		t.Fatalf("stopped %q unread %v stderr %s", tr.Stopped, tr.Unread, tr.Stderr)
	}
	var got []string
	for _, s := range tr.Steps {
		if s.Kind == trace.Exec {
			got = append(got, strings.Join(s.Argv, " "))
		}
	}
	for _, want := range []string{
		"python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-R1 --tp 8 --speculative-num-steps 3",
		"python3 -m sglang.bench_serving --max-concurrency 4",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no %q among %q", want, got)
		}
	}
}

func TestWorkflowEnv(t *testing.T) {
	got := WorkflowEnv([]byte(`on: workflow_call
env:
  RANDOM_RANGE_RATIO: 0.8
  HF_HUB_CACHE: '/mnt/hf_hub_cache/'
  HF_TOKEN: ${{ secrets.TOKEN }}
  EXP_NAME: ${{ inputs.exp-name }}
  DEBUG: true
  NESTED: {a: 1}
jobs: {}
`))
	want := map[string]string{"RANDOM_RANGE_RATIO": "0.8", "HF_HUB_CACHE": "/mnt/hf_hub_cache/", "DEBUG": "true"}
	if !maps.Equal(got, want) {
		t.Errorf("WorkflowEnv = %v, want %v", got, want)
	}
	if got := WorkflowEnv([]byte("env: [unclosed")); len(got) != 0 {
		t.Errorf("an unreadable workflow gave %v", got)
	}
}

// A workflow file is the PR's to write: whatever it holds, reading its
// environment ends, with strings only.
func FuzzWorkflowEnv(f *testing.F) {
	for _, s := range []string{"env:\n  A: 1\n", "env: *x\n", "env: {a: [1, {b: 2}]}\n", "a: &a [*a]\n", strings.Repeat("[", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k, v := range WorkflowEnv([]byte(s)) {
			if strings.Contains(v, "${{") || k == "" && v == "" {
				t.Fatalf("WorkflowEnv(%q) kept %q=%q", s, k, v)
			}
		}
	})
}
