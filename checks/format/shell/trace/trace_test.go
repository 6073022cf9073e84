package trace

import (
	"context"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// files is a repository in memory.
type files = MapFiles

// execs are the argv of the trace's exec steps, joined by spaces.
func execs(tr *Trace) []string {
	var out []string
	for _, s := range tr.Steps {
		if s.Kind == Exec {
			out = append(out, strings.Join(s.Argv, " "))
		}
	}
	return out
}

func find(tr *Trace, kind Kind, prefix string) (Step, bool) {
	for _, s := range tr.Steps {
		if s.Kind == kind && (strings.HasPrefix(strings.Join(s.Argv, " "), prefix) || strings.HasPrefix(s.Path, prefix)) {
			return s, true
		}
	}
	return Step{}, false
}

func TestValuesResolveAsBashResolvesThem(t *testing.T) {
	repo := files{
		"benchmarks/lib.sh": `
serve_args() { echo "--tp $TP"; }
SPEC_NUM_TOKENS="${SPEC_NUM_TOKENS:-2}"
`,
		"benchmarks/run.sh": `#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/lib.sh"
trap 'echo bye' EXIT INT TERM
MODEL_DIR="${DRAFT_MODEL_PATH:-/models/draft}"
ARGS=(--model "$MODEL" $(serve_args))
if [[ "$SPEC" == "mtp" ]]; then
  ARGS+=(--speculative-config "{\"num_speculative_tokens\":$SPEC_NUM_TOKENS,\"model\":\"$MODEL_DIR\"}")
fi
NAME=${MODEL//\//_}
printf '%q\n' "$NAME" > /tmp/name.txt
vllm serve "${ARGS[@]}" &
wait
`,
	}
	tr := Run(context.Background(), repo, "benchmarks/run.sh", Options{Env: map[string]string{"MODEL": "org/m", "TP": "8", "SPEC": "mtp"}})
	if tr.Stopped != "" || tr.Exit != 0 {
		t.Fatalf("stopped %q exit %d stderr %s", tr.Stopped, tr.Exit, tr.Stderr)
	}
	want := `vllm serve --model org/m --tp 8 --speculative-config {"num_speculative_tokens":2,"model":"/models/draft"}`
	if !slices.Contains(execs(tr), want) {
		t.Errorf("no %q among %q", want, execs(tr))
	}
	w, ok := find(tr, Write, "/tmp/name.txt")
	if !ok || w.Content != "org_m\n" {
		t.Errorf("write of /tmp/name.txt = %+v", w)
	}
	if s, ok := find(tr, Source, "/repo/benchmarks/lib.sh"); !ok || s.File != "benchmarks/run.sh" || s.Line != 3 {
		t.Errorf("source step %+v", s)
	}
	// A value the configuration sets overrides the script's default.
	tr = Run(context.Background(), repo, "benchmarks/run.sh", Options{Env: map[string]string{"MODEL": "org/m", "TP": "8", "SPEC": "mtp", "SPEC_NUM_TOKENS": "4"}})
	if !slices.ContainsFunc(execs(tr), func(s string) bool { return strings.Contains(s, `"num_speculative_tokens":4`) }) {
		t.Errorf("the configuration's SPEC_NUM_TOKENS did not win: %q", execs(tr))
	}
}

func TestScriptsHeredocsAndCopiesAreFollowed(t *testing.T) {
	repo := files{
		"runners/launch.sh": `
export ENGINE_FLAG=1
JOB=$(bash benchmarks/multi/submit.sh "$CONFIG")
echo "job $JOB" > /tmp/job
./benchmarks/multi/direct.sh
bash -c 'pip install "git+https://example.test/transformers@main"'
`,
		"benchmarks/multi/submit.sh": "cat > /tmp/patch.py <<'END'\nimport vllm, os\nEND\npython3 /tmp/patch.py\n" +
			"cp benchmarks/multi/fix.py /usr/lib/python3/site-packages/vllm/fix.py\necho 42\n",
		"benchmarks/multi/fix.py":    "print('patched')\n",
		"benchmarks/multi/direct.sh": "sglang_launch --flag \"$ENGINE_FLAG\"\n",
	}
	tr := Run(context.Background(), repo, "runners/launch.sh", Options{Env: map[string]string{"CONFIG": "c1"}})
	if tr.Stopped != "" {
		t.Fatalf("stopped: %s", tr.Stopped)
	}
	for _, want := range []string{"python3 /tmp/patch.py", "sglang_launch --flag 1", "pip install git+https://example.test/transformers@main"} {
		if !slices.Contains(execs(tr), want) {
			t.Errorf("no %q among %q", want, execs(tr))
		}
	}
	if w, ok := find(tr, Write, "/tmp/job"); !ok || w.Content != "job 42\n" {
		t.Errorf("a nested script's output was not captured: %+v", w)
	}
	if w, ok := find(tr, Write, "/tmp/patch.py"); !ok || !strings.Contains(w.Content, "import vllm") {
		t.Errorf("heredoc write = %+v", w)
	}
	if w, ok := find(tr, Write, "/usr/lib/python3/site-packages/vllm/fix.py"); !ok || w.Content != "print('patched')\n" {
		t.Errorf("copy = %+v", w)
	}
	s, ok := find(tr, Script, "/repo/benchmarks/multi/submit.sh")
	if !ok || s.Argv[0] != "c1" || s.Env["ENGINE_FLAG"] != "1" || s.Depth != 1 {
		t.Errorf("nested script step %+v", s)
	}
}

func TestBounds(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		opt          Options
		stopped      string
	}{
		{"an endless loop of builtins", "while true; do :; done\n", Options{MaxSteps: 500}, "more than 500 commands"},
		{"a loop waiting on a cluster", "while ! grep -q done /tmp/state; do sleep 1; done\n", Options{MaxSteps: 500}, "more than 500 commands"},
		{"scripts that start themselves", "bash benchmarks/s.sh\n", Options{MaxDepth: 4}, "nest deeper than 4"},
		{"a script that does not parse", "if then fi (\n", Options{}, "does not parse"},
		{"a write past the budget", "for i in $(seq 1 200); do echo 0123456789012345678901234567890123456789 >> /tmp/big; done\n", Options{MaxWritten: 4096}, "wrote more than 4096 bytes"},
		{"slow", "while true; do sleep 0; done\n", Options{MaxSteps: 1 << 30, Timeout: 50 * time.Millisecond}, "longer than 50ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := files{"benchmarks/s.sh": tc.script}
			tr := Run(context.Background(), repo, "benchmarks/s.sh", tc.opt)
			if !strings.Contains(tr.Stopped, tc.stopped) {
				t.Fatalf("stopped %q, want it to say %q", tr.Stopped, tc.stopped)
			}
		})
	}
}

func TestUnreadFilesAreListed(t *testing.T) {
	repo := files{"benchmarks/s.sh": "source benchmarks/missing_lib.sh\nbash benchmarks/gone.sh\nvllm serve m\n"}
	tr := Run(context.Background(), repo, "benchmarks/s.sh", Options{})
	if !slices.Equal(tr.Unread, []string{"benchmarks/missing_lib.sh", "benchmarks/gone.sh"}) {
		t.Errorf("unread %q", tr.Unread)
	}
	if !slices.Contains(execs(tr), "vllm serve m") {
		t.Errorf("the trace stopped at an unread file: %q", execs(tr))
	}
	if tr := Run(context.Background(), repo, "benchmarks/none.sh", Options{}); !strings.Contains(tr.Stopped, "cannot be read") {
		t.Errorf("a missing script: %q", tr.Stopped)
	}
}

func TestSubshellFunctions(t *testing.T) {
	repo := files{
		"lib.sh": "run_it() (\n  local dir=\"$1\"\n  tool --dir \"$dir\"\n  exit 3\n)\n",
		"s.sh":   "source lib.sh\nrun_it /d\necho \"rc=$?\" > /tmp/rc\n",
	}
	tr := Run(context.Background(), repo, "s.sh", Options{})
	if !slices.Contains(execs(tr), "tool --dir /d") {
		t.Fatalf("the function's command: %q (stderr %s)", execs(tr), tr.Stderr)
	}
	if w, ok := find(tr, Write, "/tmp/rc"); !ok || w.Content != "rc=3\n" {
		t.Errorf("the function's exit status did not stay its own: %+v", w)
	}
	if got := subshellFuncs("f() ( a; b )\n"); got != "f() {  a; b ;}\n" {
		t.Errorf("rewrite %q", got)
	}
}

func TestStubsAnswerProbes(t *testing.T) {
	repo := files{"s.sh": "if nvidia-smi --query-gpu=name --format=csv | grep -q H100; then GPU=h100; else GPU=other; fi\n" +
		"HOST=$(hostname)\necho \"$GPU $HOST\" > /tmp/out\n"}
	tr := Run(context.Background(), repo, "s.sh", Options{Stubs: map[string]Stub{"nvidia-smi": {Out: "NVIDIA H100 80GB\n"}}})
	if w, _ := find(tr, Write, "/tmp/out"); w.Content != "h100 runner\n" {
		t.Errorf("probes: %q", w.Content)
	}
}

// A dry run touches nothing on this machine, whatever the script says.
func TestNothingIsExecutedOrWritten(t *testing.T) {
	dir := t.TempDir()
	target := path.Join(dir, "should-not-exist")
	keep := path.Join(dir, "keep")
	if err := os.WriteFile(keep, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "touch " + target + "\necho x > " + target + "\nbash -c 'touch " + target + "'\nrm -rf " + dir + "\n"
	tr := Run(context.Background(), files{"s.sh": script}, "s.sh", Options{})
	if len(tr.Steps) < 4 {
		t.Fatalf("steps %+v", tr.Steps)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a dry run wrote a file")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal("a dry run removed a file")
	}
}

// FuzzTrace runs arbitrary scripts: a trace never panics, never touches
// this machine, and always ends within its bounds.
func FuzzTrace(f *testing.F) {
	f.Add("while true; do :; done")
	f.Add("f() ( f ); f")
	f.Add("source s.sh")
	f.Add("x=${y:-$(bash s.sh)}; cat > /tmp/a <<END\n$x\nEND\ncp /tmp/a /tmp/b")
	f.Add("trap 'exit 2' INT; printf '%q' a; set -e; false; echo after")
	f.Add("serve & p=$!; ( x & kill -0 $! ) & while kill -0 $p; do kill -s 0 g9 -- g1; kill -9 $p; sleep 1; done; wait $p")
	f.Add("sbatch -N 99999999999 -n 3-9 --wrap 'srun --ntasks=-1 bash s.sh'")
	f.Add("echo a,b,c | cut -d, -f2-,1 -c 3-2; cut -f 0; cut -d '' -f1 s.sh")
	f.Add("command -v x || pip install x; command -V x; command -v /bin/x; s=$(date +%s); sleep 1d; date +%s%N")
	f.Add("source s.sh & { a & } & wait")
	f.Add("printf 'a\\nb\\n' | paste -sd, ; paste -s -d '' s.sh; paste -sd; paste a b; docker run -e X -e Y=1 --env-file f i bash -c 'echo $X'")
	f.Add("salloc -N 4; mapfile -t H < <(scontrol show hostnames \"$(squeue -o %N)\" 'n[0-99999999999999999999],x[1-2]'); srun --export=ALL,=,A=1,B bash -c 'echo $A' --x")
	f.Fuzz(func(t *testing.T, script string) {
		start := time.Now()
		tr := Run(context.Background(), files{"s.sh": script}, "s.sh", Options{MaxSteps: 2000, MaxDepth: 4, MaxWritten: 1 << 16, Timeout: 2 * time.Second,
			Lasting: func(argv []string) bool { return len(argv) > 0 && argv[0] == "serve" }})
		if time.Since(start) > 5*time.Second {
			t.Fatalf("a trace took %v", time.Since(start))
		}
		if len(tr.Steps) > 2000*4+100 {
			t.Fatalf("%d steps past the bound", len(tr.Steps))
		}
	})
}

// A container or cluster launcher runs its command on the same files: the
// trace follows it.
func TestLaunchersAreFollowed(t *testing.T) {
	repo := files{
		"runners/launch.sh": "docker run --rm --gpus all -v \"$PWD:/repo\" -e SPEC=mtp --name bench img:1 bash benchmarks/run.sh 8\n" +
			"srun --nodes=1 -N 1 --container-image=img --exclusive bash -c 'echo from-srun > /tmp/srun'\n" +
			"sbatch --wrap 'trtllm-serve --tp 4'\n",
		"benchmarks/run.sh": "vllm serve --tp \"$1\" --spec \"$SPEC\"\n",
	}
	tr := Run(context.Background(), repo, "runners/launch.sh", Options{})
	for _, want := range []string{"vllm serve --tp 8 --spec mtp", "trtllm-serve --tp 4"} {
		if !slices.Contains(execs(tr), want) {
			t.Errorf("no %q among %q", want, execs(tr))
		}
	}
	if w, ok := find(tr, Write, "/tmp/srun"); !ok || w.Content != "from-srun\n" {
		t.Errorf("srun's command was not followed: %+v", w)
	}
}

func TestPrintfAsBash(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []string
		want   string
	}{
		{`{"n":%d,"al":%.2f}`, []string{"3", "2.781"}, `{"n":3,"al":2.78}`},
		{`%s=%q\n`, []string{"a", "b c"}, "a='b c'\n"},
		{`%s,`, []string{"1", "2", "3"}, "1,2,3,"},
		{`%5s|%-3d|%%`, []string{"ab", "7"}, "   ab|7  |%"},
		{`%s %s`, []string{"only"}, "only "},
	} {
		if got := bashPrintf(tc.format, tc.args); got != tc.want {
			t.Errorf("printf %q %q = %q, want %q", tc.format, tc.args, got, tc.want)
		}
	}
}

// A command of a function defined in a sourced file is cited at that file
// and line, wherever it is called from.
func TestStepsCiteTheFileTheyAreWrittenIn(t *testing.T) {
	repo := files{
		"lib.sh": "# helpers\n\nengine_pip() {\n  python3 -m pip install \"$@\"\n}\n",
		"s.sh":   "source lib.sh\n\nengine_pip --force-reinstall x\necho done > /tmp/done\n",
	}
	tr := Run(context.Background(), repo, "s.sh", Options{})
	pip, ok := find(tr, Exec, "python3 -m pip install --force-reinstall x")
	if !ok || pip.File != "lib.sh" || pip.Line != 4 {
		t.Errorf("the install is cited at %s:%d, want lib.sh:4", pip.File, pip.Line)
	}
	if w, ok := find(tr, Write, "/tmp/done"); !ok || w.File != "s.sh" {
		t.Errorf("the script's own write is cited at %s, want s.sh", w.File)
	}
}

// A script waiting for its background server's log must see it however
// busy the machine is: the wait is the same dry run every time, never a
// race between the loop and the job it waits on.
func TestWaitingOnABackgroundJobIsDeterministic(t *testing.T) {
	script := `SERVER_LOG=/tmp/r/server.log
CMD=(vllm serve /models/m --port 8000)
"${CMD[@]}" > "$SERVER_LOG" 2>&1 &
while [[ ! -f "$SERVER_LOG" ]]; do
    sleep 1
done
echo ready
aiperf profile --url http://localhost:8000
`
	repo := files{"benchmarks/s.sh": script}
	// Load the machine as a replay does: many traces side by side and
	// goroutines that never block.
	stop := make(chan struct{})
	defer close(stop)
	for range 8 {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	const runs = 64
	results := make(chan *Trace, runs)
	for range runs {
		go func() {
			results <- Run(context.Background(), repo, "benchmarks/s.sh", Options{MaxSteps: 300})
		}()
	}
	sleeps := map[int]int{}
	for range runs {
		tr := <-results
		if tr.Stopped != "" {
			t.Fatalf("stopped: %s", tr.Stopped)
		}
		if _, ok := find(tr, Exec, "aiperf profile"); !ok {
			t.Fatalf("the client after the wait was not reached: %v", execs(tr))
		}
		n := 0
		for _, s := range tr.Steps {
			if s.Kind == Exec && len(s.Argv) > 0 && s.Argv[0] == "sleep" {
				n++
			}
		}
		sleeps[n]++
	}
	if len(sleeps) != 1 {
		t.Errorf("the wait took different numbers of sleeps across runs: %v", sleeps)
	}
}

// A background loop that watches the machine runs once per foreground
// sleep, and ends when the foreground waits for its jobs: the dry run
// neither races it nor spends its bounds on it.
func TestBackgroundLoopsTakeTurns(t *testing.T) {
	script := `( while true; do nvidia-smi --query-gpu=power.draw --format=csv; sleep 5; done ) > /tmp/power.csv &
MON=$!
bash benchmarks/server.sh > /tmp/server.log 2>&1 &
for i in 1 2 3; do sleep 1; done
kill "$MON"
wait
echo done
`
	repo := files{"benchmarks/s.sh": script, "benchmarks/server.sh": "vllm serve /models/m &\nsleep 2\nwait\n"}
	for range 20 {
		tr := Run(context.Background(), repo, "benchmarks/s.sh", Options{MaxSteps: 2000, Timeout: 10 * time.Second})
		if tr.Stopped != "" {
			t.Fatalf("stopped: %s", tr.Stopped)
		}
		polls := 0
		for _, c := range execs(tr) {
			if strings.HasPrefix(c, "nvidia-smi") {
				polls++
			}
		}
		// Once when started, once after each of the three sleeps.
		if polls != 4 {
			t.Fatalf("the monitor polled %d times: %v", polls, execs(tr))
		}
		if _, ok := find(tr, Exec, "vllm serve"); !ok {
			t.Fatalf("the server script was not followed: %v", execs(tr))
		}
	}
}

// A job that exits early is done all the same: the next sleep does not
// wait for it until the time bound.
func TestBackgroundJobThatExitsIsDone(t *testing.T) {
	script := "check() { exit 1; }\ncheck &\nexit 2 &\nsleep 1\necho after\nwait\n"
	tr := Run(context.Background(), files{"benchmarks/s.sh": script}, "benchmarks/s.sh", Options{Timeout: 2 * time.Second})
	if tr.Stopped != "" {
		t.Fatalf("stopped: %s", tr.Stopped)
	}
	if _, ok := find(tr, Exec, "sleep 1"); !ok {
		t.Fatalf("steps %v", execs(tr))
	}
}

// Process substitutions make no named pipe here: their commands are
// traced, what an input one prints is read back, and neither is a write
// of the trace; in a script and in a sourced file alike.
func TestProcessSubstitutionsAreTracedWithoutPipes(t *testing.T) {
	script := "exec > >(tee /tmp/run.log)\ndiff <(sort a.txt) <(sort b.txt)\nmapfile -t H < <(scontrol show hostnames node[001-003]; echo extra)\nvllm serve /models/m --hosts \"${H[*]}\"\n"
	for name, repo := range map[string]files{
		"script":  {"benchmarks/s.sh": script},
		"sourced": {"benchmarks/s.sh": "source /repo/benchmarks/lib.sh\n", "benchmarks/lib.sh": script},
	} {
		tr := Run(context.Background(), repo, "benchmarks/s.sh", Options{Timeout: 2 * time.Second})
		if tr.Stopped != "" {
			t.Fatalf("%s: stopped: %s", name, tr.Stopped)
		}
		for _, want := range []string{"tee /tmp/run.log", "sort a.txt", "sort b.txt", "diff /dev/verdict-psub/", "vllm serve /models/m --hosts node001 node002 node003 extra"} {
			if _, ok := find(tr, Exec, want); !ok {
				t.Errorf("%s: no step %q in %v", name, want, execs(tr))
			}
		}
		for _, s := range tr.Steps {
			if s.Kind == Write && strings.HasPrefix(s.Path, psubDir) {
				t.Errorf("%s: a process substitution is a write: %+v", name, s)
			}
		}
	}
}

// A sleep passes its time on the dry run's clock: a loop with a deadline
// on $SECONDS ends as it would, however long the process it waits on
// stays alive, and the clock is no setting of the steps.
func TestSleepsAdvanceTheClock(t *testing.T) {
	script := `stop() {
    kill -TERM "$1"
    local deadline=$((SECONDS + 30))
    while kill -0 "$1" && [[ $SECONDS -lt $deadline ]]; do
        sleep 1
    done
}
stop 42
sleep 1m 30s
echo "$SECONDS" > /tmp/clock
vllm serve /models/m
`
	tr := Run(context.Background(), files{"benchmarks/s.sh": script}, "benchmarks/s.sh", Options{MaxSteps: 1000})
	if tr.Stopped != "" {
		t.Fatalf("stopped: %s", tr.Stopped)
	}
	sleeps := 0
	for _, s := range tr.Steps {
		if s.Kind == Exec && s.Argv[0] == "sleep" {
			sleeps++
		}
		if _, ok := s.Env["SECONDS"]; ok {
			t.Errorf("step %v carries the clock", s.Argv)
		}
	}
	if sleeps != 31 {
		t.Errorf("%d sleeps, want 30 in the loop and one more", sleeps)
	}
	if w, ok := find(tr, Write, "/tmp/clock"); !ok || w.Content != "120\n" {
		t.Errorf("clock %+v", w)
	}
	if _, ok := find(tr, Exec, "vllm serve"); !ok {
		t.Errorf("steps %v", execs(tr))
	}
	for _, tc := range []struct {
		args []string
		want int
	}{{[]string{"1"}, 1}, {[]string{"0.2"}, 1}, {[]string{"2m", "5"}, 125}, {[]string{"1d"}, 86400}, {[]string{"x"}, 0}, {[]string{"-1"}, 0}, {[]string{"inf"}, 0}} {
		if got := sleepSeconds(tc.args); got != tc.want {
			t.Errorf("sleepSeconds(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}

// A script that changes into a directory of the checkout (which does not
// exist on the machine running the trace) goes on from there: cd, and
// test -d/-r/-x, answer from the checkout, not from this machine.
func TestChangingIntoTheCheckout(t *testing.T) {
	repo := files{
		"benchmarks/multi/run.sh": `set -e
cd "$(dirname "$0")/utils" || exit 1
[ -x ./submit.sh ] && [ -r models.yaml ] && [ -d ../utils ]
bash ./submit.sh 4
`,
		"benchmarks/multi/utils/submit.sh":   "sglang_launch --nodes \"$1\"\n",
		"benchmarks/multi/utils/models.yaml": "m: 1\n",
	}
	tr := Run(context.Background(), repo, "benchmarks/multi/run.sh", Options{})
	if tr.Stopped != "" || tr.Exit != 0 {
		t.Fatalf("stopped %q, exit %d:\n%s", tr.Stopped, tr.Exit, tr.Stderr)
	}
	if !slices.Contains(execs(tr), "sglang_launch --nodes 4") {
		t.Errorf("the script after cd did not run: %q\n%s", execs(tr), tr.Stderr)
	}
	repo["benchmarks/multi/run.sh"] = "cd \"$(dirname \"$0\")/missing\" || exit 3\n"
	if tr := Run(context.Background(), repo, "benchmarks/multi/run.sh", Options{}); tr.Exit != 3 {
		t.Errorf("cd into a directory the checkout lacks: exit %d, want 3", tr.Exit)
	}
}

// grep reads the files it names from the checkout.
func TestGrepReadsFiles(t *testing.T) {
	repo := files{
		"run.sh": `if grep -q "^model-b:" models.yaml; then echo found > /tmp/out; fi
grep -c ':' models.yaml > /tmp/count
grep -q x missing.yaml || echo "$?" > /tmp/missing
`,
		"models.yaml": "model-a:\n  x: 1\nmodel-b:\n  y: 2",
	}
	tr := Run(context.Background(), repo, "run.sh", Options{})
	for file, want := range map[string]string{"/tmp/out": "found\n", "/tmp/count": "4\n", "/tmp/missing": "2\n"} {
		if w, ok := find(tr, Write, file); !ok || w.Content != want {
			t.Errorf("%s = %+v, want %q\n%s", file, w, want, tr.Stderr)
		}
	}
}

// A multi-node job as Slurm runs it: sbatch prints the job's ID (the
// batch script's output goes to its log), srun's task runs as rank 0 with
// Slurm's variables whatever options it is given, bash -lc runs its
// string, and the model storage the environment points at is there.
func TestSlurmJobsRunAsSlurmRunsThem(t *testing.T) {
	repo := files{
		"submit.sh": `JOB=$(sbatch --parsable -N 2 --output log-%j.out job.slurm)
echo "job $JOB" > /tmp/submitted
`,
		"job.slurm": `echo "batch output"
[ -d "$MODEL_PATH/weights-v2" ] || exit 7
srun --nodelist=n1 --kill-on-bad-exit=1 --unbuffered bash -lc 'set -u; echo "rank $SLURM_PROCID of job $SLURM_JOB_ID" > /tmp/rank; sglang_serve --model "$MODEL_PATH/weights-v2"'
`,
	}
	models := regexp.MustCompile(`^MODEL_PATH$`)
	tr := Run(context.Background(), repo, "submit.sh", Options{Env: map[string]string{"MODEL_PATH": "/shared/models"}, Provided: models})
	if w, ok := find(tr, Write, "/tmp/submitted"); !ok || w.Content != "job 1000\n" {
		t.Errorf("sbatch --parsable printed %+v, want the job ID alone\n%s", w, tr.Stderr)
	}
	if w, ok := find(tr, Write, "/tmp/rank"); !ok || w.Content != "rank 0 of job 1000\n" {
		t.Errorf("the srun task's variables: %+v\n%s", w, tr.Stderr)
	}
	if !slices.Contains(execs(tr), "sglang_serve --model /shared/models/weights-v2") {
		t.Errorf("the task's server did not run: %q\n%s", execs(tr), tr.Stderr)
	}
	// Storage no variable points at is not there: the root, or any
	// path when the caller names no such variables.
	for _, o := range []Options{{Env: map[string]string{"MODEL_PATH": "/"}, Provided: models},
		{Env: map[string]string{"MODEL_PATH": "/shared/models"}}} {
		tr = Run(context.Background(), repo, "submit.sh", o)
		if w, ok := find(tr, Write, "/tmp/rank"); ok {
			t.Errorf("with %v the job went past the weights check: %+v", o.Env, w)
		}
	}
}
