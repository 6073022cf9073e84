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
docker run --rm -v "$GITHUB_WORKSPACE:/workspace" -e SPEC_DECODING="$SPEC_DECODING" -e MODEL -e TP -e CONC \
  -e HOST_ONLY="$RUNNER_NAME" "$IMAGE" bash "$SCRIPT"
`,
		"benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh": `source "$(dirname "$0")/../../benchmark_lib.sh"
# A container's environment is what docker run hands it: the workflow's
# RUNNER_TYPE stays on the host.
echo "in ${RUNNER_TYPE:-no runner type} on $HOST_ONLY" > /tmp/where
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
	if w := writeOf(tr, "/tmp/where"); w != "in no runner type on h200-cw_00\n" {
		t.Errorf("the container's environment: %q", w)
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

// The job starts where the workflow starts it: the launch step's script,
// with its env and its expressions resolved, sets what the benchmark
// script requires (RESULT_FILENAME) before it calls the launcher, and its
// commands are cited at their workflow lines.
func TestRunStartsAtTheWorkflowStep(t *testing.T) {
	repoFiles := files{
		".github/workflows/benchmark-tmpl.yml": `on: workflow_call
env:
  RANDOM_RANGE_RATIO: 0.8
jobs:
  benchmark:
    steps:
      - name: Launch job script
        env:
          RUNNER_NAME: ${{ runner.name }}
          RESULT_FILENAME_BASE: ${{ env.EXP_NAME }}_tp${{ env.TP }}_conc${{ env.CONC }}_${{ runner.name }}
          TOKEN: ${{ secrets.TOKEN }}
        run: |
          export RESULT_FILENAME="$RESULT_FILENAME_BASE"
          echo "RESULT_FILENAME=${RESULT_FILENAME}" >> "$GITHUB_ENV"
          bash ./runners/launch_${RUNNER_NAME%%_*}.sh
          if [ "${{ inputs.eval-only }}" = "true" ]; then echo eval-only; fi
`,
		"runners/launch_h200-cw.sh": `bash "benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h200.sh"
`,
		"benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh": `for v in RESULT_FILENAME RANDOM_RANGE_RATIO; do [ -n "${!v:-}" ] || exit 1; done
python3 -m sglang.launch_server --model "$MODEL" --result "$RESULT_FILENAME" --token "$TOKEN" &
`,
	}
	labels := map[string][]string{"h200": {"h200-cw_00"}}
	tr := Run(context.Background(), repoFiles, Jobs(entry(t), labels)[0], trace.Options{})
	var server trace.Step
	for _, s := range tr.Steps {
		if s.Kind == trace.Exec && len(s.Argv) > 2 && s.Argv[2] == "sglang.launch_server" {
			server = s
		}
		if s.Kind == trace.Exec && strings.HasPrefix(strings.Join(s.Argv, " "), "bash ./runners/launch_h200-cw.sh") &&
			(s.File != ".github/workflows/benchmark-tmpl.yml" || s.Line != 16) {
			t.Errorf("the launcher call is cited at %s:%d, want the workflow's line 16", s.File, s.Line)
		}
	}
	// A secret is nothing a dry run can know: empty, not the expression.
	want := "python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-R1 --result dsr1_8k1k_tp8_conc4_h200-cw_00 --token "
	if got := strings.Join(server.Argv, " "); got != want {
		t.Errorf("server = %q, want %q\nstderr %s", got, want, tr.Stderr)
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

// writeOf is what a trace last wrote to path.
func writeOf(tr *trace.Trace, path string) string {
	out := ""
	for _, s := range tr.Steps {
		if s.Kind == trace.Write && s.Path == path {
			out = s.Content
		}
	}
	return out
}

// An agentic job replays traces: the sweep hands it "0" for both sequence
// lengths, which scripts check are set.
func TestAgenticJobsHaveZeroSequenceLengths(t *testing.T) {
	es, ps := repo.ParseMasterConfig("configs/amd-master.yaml", []byte(`kimik3-fp4-mi355x-vllm-agentic-mtp:
  image: vllm/vllm-openai-rocm:v0.27.1
  model: moonshotai/Kimi-K3
  model-prefix: kimik3
  runner: mi355x
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, spec-decoding: mtp, conc-list: [4] }
`))
	if len(ps) > 0 || len(es) != 1 {
		t.Fatalf("master config: %v %v", es, ps)
	}
	j := Jobs(es[0], nil)[0]
	for k, want := range map[string]string{"ISL": "0", "OSL": "0", "IS_AGENTIC": "1", "SCENARIO_SUBDIR": "agentic/"} {
		if j.Env[k] != want {
			t.Errorf("%s = %q, want %q", k, j.Env[k], want)
		}
	}
	if _, ok := j.Env["MAX_MODEL_LEN"]; ok {
		t.Errorf("an agentic job has no MAX_MODEL_LEN from sequence lengths: %q", j.Env["MAX_MODEL_LEN"])
	}
}
