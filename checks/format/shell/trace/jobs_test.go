package trace

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// servers marks the test's server commands as lasting.
func servers(argv []string) bool { return len(argv) > 0 && argv[0] == "serve" }

// A job is alive to kill -0 until it is done or killed; one that started
// a server stays alive; an ID the trace did not hand out is alive.
func TestKillZeroFollowsTheJobs(t *testing.T) {
	watch := `
wait_or_die() {
    local watch=$1; shift
    "$@" & local cmd=$!
    while kill -0 "$cmd" 2>/dev/null; do
        kill -0 "$watch" 2>/dev/null || { echo "server died"; return 1; }
        sleep 5
    done
    wait "$cmd"
}
`
	for _, tc := range []struct {
		name, script string
		want, not    []string
	}{
		{"a barrier under a live server ends and the script goes on",
			watch + "serve --port 1 &\npid=$!\nwait_or_die \"$pid\" bash -c 'barrier --all'\nclient --chat\n",
			[]string{"barrier --all", "client --chat"}, nil},
		{"a killed server is dead",
			watch + "serve --port 1 &\npid=$!\nkill -TERM \"$pid\"\nwait_or_die \"$pid\" bash -c 'barrier --all' || exit 1\nclient --chat\n",
			[]string{"barrier --all"}, []string{"client --chat"}},
		{"a job that is done is not alive",
			"setup --once &\npid=$!\nsleep 1\nif kill -0 $pid; then still; else gone; fi\n",
			[]string{"gone"}, []string{"still"}},
		{"an ID read from elsewhere is alive",
			"echo 4242 > /tmp/server.pid\npid=$(cat /tmp/server.pid)\nkill -0 \"$pid\" && alive\n",
			[]string{"alive"}, nil},
		{"an empty ID is no process",
			"kill -0 \"$NOPE\" && alive || gone\n",
			[]string{"gone"}, []string{"alive"}},
		{"a sourced file's jobs are counted too",
			"source /repo/lib.sh\nserve --port 1 &\npid=$!\nwait_or_die \"$pid\" bash -c 'barrier --all'\nclient --chat\n",
			[]string{"barrier --all", "client --chat"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := RunText(context.Background(), files{"lib.sh": watch}, "x.sh", tc.script, Options{Lasting: servers, MaxSteps: 500})
			if tr.Stopped != "" {
				t.Fatalf("stopped: %s", tr.Stopped)
			}
			got := execs(tr)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q not run: %q", w, got)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(got, w) {
					t.Errorf("%q run: %q", w, got)
				}
			}
		})
	}
	// Without Lasting nothing is known to end: the old answer, alive.
	tr := RunText(context.Background(), files{}, "x.sh", "setup &\npid=$!\nsleep 1\nkill -0 $pid && alive\n", Options{})
	if !slices.Contains(execs(tr), "alive") {
		t.Errorf("without Lasting kill -0 failed: %q", execs(tr))
	}
}

// An srun step runs as its first task and, when it has more, its last,
// each with its rank; sbatch's -N and -n size the allocation.
func TestSrunFollowsTheFirstAndLastTask(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"the allocation's nodes", "sbatch -N 4 job.slurm", []string{"role 0", "role 3"}},
		{"the step's tasks", "srun --ntasks=2 bash -c 'role $SLURM_PROCID'", []string{"role 0", "role 1"}},
		{"one task", "sbatch --nodes=3 one.slurm", []string{"role 0"}},
		{"no size", "srun bash -c 'role $SLURM_PROCID'", []string{"role 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs := files{"job.slurm": "srun bash -c 'role $SLURM_PROCID'\n", "one.slurm": "srun --nodes=1 --ntasks=1 bash -c 'role $SLURM_PROCID'\n"}
			tr := RunText(context.Background(), jobs, "x.sh", tc.script, Options{})
			var got []string
			for _, e := range execs(tr) {
				if strings.HasPrefix(e, "role ") {
					got = append(got, e)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tasks ran %q, want %q\n%s", got, tc.want, tr.Stderr)
			}
		})
	}
}

// date +%s moves with the dry run's sleeps, so a deadline loop on it ends.
func TestDateMovesWithTheClock(t *testing.T) {
	script := `start=$(date +%s)
while :; do
  resp=$(curl -sf http://localhost:8000/flush_cache || true)
  echo "$resp" | grep -qi "flushed" && break
  (( $(date +%s) - start >= 120 )) && break
  sleep 3
done
after --loop
`
	tr := RunText(context.Background(), files{}, "x.sh", script, Options{MaxSteps: 2000})
	if tr.Stopped != "" || !slices.Contains(execs(tr), "after --loop") {
		t.Fatalf("the deadline loop did not end: %s %q", tr.Stopped, execs(tr))
	}
	if n := strings.Count(strings.Join(execs(tr), "\n"), "sleep 3"); n != 40 {
		t.Errorf("slept %d times, want 40 (120 s in 3 s steps)", n)
	}
}

// cut selects fields and characters as GNU cut does.
func TestCut(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`echo "rdma0,rdma1,rdma2" | cut -d, -f1`, "rdma0\n"},
		{`echo "a:b:c:d" | cut -d ':' -f 2-3`, "b:c\n"},
		{`echo "a:b:c:d" | cut -d: -f3-`, "c:d\n"},
		{`echo "a:b:c:d" | cut --delimiter=: --fields=1,4`, "a:d\n"},
		{`echo "nodelim" | cut -d, -f2`, "nodelim\n"},
		{`echo "nodelim" | cut -s -d, -f2`, ""},
		{`echo "abcdef" | cut -c2-4`, "bcd\n"},
		{`printf 'x\ty\n' | cut -f2`, "y\n"},
	} {
		tr := RunText(context.Background(), files{}, "x.sh", "v=$("+tc.script+"); printf '%s' \"$v\" > /tmp/out\n", Options{})
		w, _ := find(tr, Write, "/tmp/out")
		if want := strings.TrimSuffix(tc.want, "\n"); w.Content != want {
			t.Errorf("%s → %q, want %q", tc.script, w.Content, want)
		}
	}
}

// A tool looked up, missing, then installed is found on the next lookup;
// one never installed stays missing; a script that finds its tool missing
// after an install gives up.
func TestInstalledToolsAreFound(t *testing.T) {
	script := `need() {
  if command -v ibv_devinfo >/dev/null 2>&1; then present; return 0; fi
  apt-get install -y ibverbs-utils
  command -v ibv_devinfo >/dev/null 2>&1 || { echo missing; exit 1; }
}
need
command -v never_installed >/dev/null || absent
after --install
`
	tr := RunText(context.Background(), files{}, "x.sh", script, Options{})
	got := execs(tr)
	for _, w := range []string{"apt-get install -y ibverbs-utils", "absent", "after --install"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q not run: %q (%s)", w, got, tr.Stderr)
		}
	}
	if slices.Contains(got, "present") {
		t.Errorf("the tool was found before its install: %q", got)
	}
}

// The cluster grants the nodes an allocation asks for: squeue names them
// as a host list, scontrol expands it, srun --export sets a task's
// variables, and an option the table does not know does not swallow the
// long option after it.
func TestTheClusterNamesItsNodes(t *testing.T) {
	script := `salloc --nodes=3 --no-shell --job-name=j
JOB=$(squeue --name=j -h -o %A | head -n1)
mapfile -t HOSTS < <(scontrol show hostnames "$(squeue -j "$JOB" -h -o %N)")
[[ "${#HOSTS[@]}" -ge 3 ]] || { echo "got ${HOSTS[*]}"; exit 1; }
srun --jobid="$JOB" --nodelist="${HOSTS[2]}" --no-container-entrypoint --export=ALL,ROLE=decode,PEER="${HOSTS[0]}" bash -c 'role "$ROLE" "$PEER" "$SLURMD_NODENAME"'
`
	tr := RunText(context.Background(), files{}, "x.sh", script, Options{})
	if !slices.Contains(execs(tr), "role decode node001 node001") {
		t.Errorf("the task did not run as asked: %q\n%s", execs(tr), tr.Stderr)
	}
	for _, tc := range []struct {
		list string
		want []string
	}{
		{"node[001-003]", []string{"node001", "node002", "node003"}},
		{"gpu[1,3-4],cpu7", []string{"gpu1", "gpu3", "gpu4", "cpu7"}},
		{"a[09-10]b", []string{"a09b", "a10b"}},
		{"n[5-2]", nil},
		{"n[" + strings.Repeat("0", 5000) + "1-2]", nil},
		{"", nil},
	} {
		if got := expandHostlist(tc.list); !slices.Equal(got, tc.want) {
			t.Errorf("expandHostlist(%q) = %q, want %q", tc.list, got, tc.want)
		}
	}
	if got := len(expandHostlist("n[0-99999999]")); got != maxNodes {
		t.Errorf("a huge host list expands to %d names, want the bound %d", got, maxNodes)
	}
}

// A sourced file's sleeps move $SECONDS as a script's do, so its deadline
// loops end; a sleep inside a process substitution (a subshell, whose
// clock is its own) keeps both rewrites.
func TestSourcedSleepsMoveTheClock(t *testing.T) {
	lib := `wait_until() {
  local deadline=$((SECONDS + 30))
  while ps -o stat= -p 4242 >/dev/null && [[ $SECONDS -lt $deadline ]]; do
    sleep 1
  done
}
wait_until
mapfile -t X < <(sleep 2)
after --deadline "$SECONDS"
`
	tr := RunText(context.Background(), files{"lib.sh": lib}, "x.sh", "source /repo/lib.sh\n", Options{MaxSteps: 1000})
	if tr.Stopped != "" || !slices.Contains(execs(tr), "after --deadline 30") {
		t.Fatalf("the sourced deadline loop: %s %q\n%s", tr.Stopped, execs(tr), tr.Stderr)
	}
}

// A container's environment is what docker run hands it: -e NAME=VALUE,
// and a host variable only when -e names it; with an --env-file the dry
// run cannot read, the host's is kept.
func TestContainerEnvironment(t *testing.T) {
	for _, tc := range []struct{ run, want string }{
		{`docker run --rm -e B=2 -e C img bash -c 'printf "%s|%s|%s" "$A" "$B" "$C" > /tmp/o'`, "|2|3"},
		{`podman run --env=B=2 img bash -c 'printf "%s|%s|%s" "$A" "$B" "$C" > /tmp/o'`, "|2|"},
		{`docker run --env-file vars.env img bash -c 'printf "%s|%s|%s" "$A" "$B" "$C" > /tmp/o'`, "1||3"},
		{`srun bash -c 'printf "%s|%s|%s" "$A" "$B" "$C" > /tmp/o'`, "1||3"},
	} {
		tr := RunText(context.Background(), files{}, "x.sh", "export A=1 C=3\n"+tc.run+"\n", Options{})
		w, _ := find(tr, Write, "/tmp/o")
		if w.Content != tc.want {
			t.Errorf("%s: the command saw %q, want %q", tc.run, w.Content, tc.want)
		}
	}
}

// A file names itself through BASH_SOURCE, at its top level and in the
// functions it defines, wherever they are called from.
func TestBashSourceNamesTheFile(t *testing.T) {
	repoFiles := files{
		"benchmarks/run.sh": `SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$SCRIPT_DIR/lib/helpers.sh"
here --script "$SCRIPT_DIR" --self "$BASH_SOURCE"
patches_dir
`,
		"benchmarks/lib/helpers.sh": `patches_dir() { there --lib "$(dirname "${BASH_SOURCE}")"; }
`,
	}
	tr := Run(context.Background(), repoFiles, "benchmarks/run.sh", Options{})
	got := execs(tr)
	for _, want := range []string{"here --script /repo/benchmarks --self /repo/benchmarks/run.sh", "there --lib /repo/benchmarks/lib"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q not run: %q\n%s", want, got, tr.Stderr)
		}
	}
}
