package trace

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// Scripts that take locks, keep tables keyed by several values, compute
// with awk, parse salloc's answer with grep -P, choose an RDMA rail or
// read PIPESTATUS get past those points to their server, as on a healthy
// machine; each case failed before (the interpreter refused the script,
// or the dry run answered as a broken machine).
func TestScriptsReachTheirServer(t *testing.T) {
	for _, tc := range []struct {
		name, script string
	}{
		{"lock on fd 9", `exec 9>"/shared/.lock"
flock -w 600 9 || { echo 'no lock'; exit 1; }
{ flock 8; } 8>/shared/.lock2
exec {fd}>/shared/.lock3
serve --model m
`},
		{"associative table keyed by several values", `declare -A TOKENS=(
  # ISL:TP:CONC
  [1024:8:4]=4
  [8192:2:1]=6
)
ISL=8192 TP=2 CONC=1
N="${TOKENS[${ISL}:${TP}:${CONC}]:-3}"
serve --model m --num-speculative-tokens "$N"
`},
		{"awk comparison", `RATIO=0.5
if awk -v r="$RATIO" -v cap=0.75 'BEGIN { exit !(r > cap) }'; then echo "ratio too high" >&2; exit 1; fi
SUM=$(printf '1 2\n3 4\n' | awk '{ s += $2 } END { print s }')
serve --model m --sum "$SUM"
`},
		{"salloc's job ID", `set -euo pipefail
JOB_ID=$(salloc --partition=p --no-shell 2>&1 | tee /dev/stderr | grep -oP 'Granted job allocation \K[0-9]+')
[ -n "$JOB_ID" ] || { echo "salloc failed" >&2; exit 1; }
srun --jobid="$JOB_ID" bash -c 'echo "on $SLURMD_NODENAME" >/dev/null; serve --model m --job '"$JOB_ID"
`},
		{"RDMA rail", `RAIL=""
for d in mlx5_0 mlx5_1; do
  if grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null; then RAIL="$d"; break; fi
done
[ -n "$RAIL" ] || exit 1
[ -d /sys/class/infiniband ] || exit 1
serve --model m --rail "$RAIL"
`},
		{"tools installed into a virtual environment", `D=/tmp/job
curl -LsSf https://astral.sh/uv/install.sh | UV_INSTALL_DIR="$D/uv" sh
[ -x "$D/uv/uv" ] || { echo "uv installation did not create $D/uv/uv" >&2; exit 1; }
"$D/uv/uv" venv --python "$(command -v python3)" "$D/venv"
"$D/uv/uv" pip install --python "$D/venv/bin/python" aiperf
[ -x "$D/venv/bin/aiperf" ] || { echo "environment incomplete" >&2; exit 1; }
python3 -m venv /tmp/other && [ -x /tmp/other/bin/python ] || exit 1
serve --model m
`},
		{"PIPESTATUS under set -u", `set -u
client | tee log
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit 1
serve --model m
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := Run(context.Background(), files{"run.sh": tc.script}, "run.sh", Options{})
			var served string
			for _, e := range execs(tr) {
				if strings.HasPrefix(e, "serve ") {
					served = e
				}
			}
			if served == "" {
				t.Fatalf("never reached the server (exit %d, stopped %q): %q\n%s", tr.Exit, tr.Stopped, execs(tr), tr.Stderr)
			}
			want := map[string]string{"associative table keyed by several values": "--num-speculative-tokens 6",
				"awk comparison": "--sum 6", "salloc's job ID": "--job 1000", "RDMA rail": "--rail mlx5_0"}[tc.name]
			if !strings.Contains(served, want) {
				t.Errorf("server %q, want %q in it", served, want)
			}
		})
	}
}

// An awk program runs as awk, but can neither run commands nor touch
// files, nor run past its bound.
func TestAwkIsContained(t *testing.T) {
	repo := files{"run.sh": `awk 'BEGIN { system("rm -rf /") }' && echo ran > /tmp/system
awk 'BEGIN { print "x" > "/tmp/awk-file" }' && echo wrote > /tmp/file
awk 'BEGIN { while (1) {} }'; echo "$?" > /tmp/loop
awk 'BEGIN { getline l < "/etc/passwd"; print l }' > /tmp/read
awk '{ print $1 }' data.txt > /tmp/fields
awk 'BEGIN {' ; echo "$?" > /tmp/syntax
`, "data.txt": "a b\nc d\n"}
	tr := Run(context.Background(), repo, "run.sh", Options{})
	for file, want := range map[string]string{"/tmp/loop": "2\n", "/tmp/fields": "a\nc\n", "/tmp/syntax": "2\n", "/tmp/read": ""} {
		if w, ok := find(tr, Write, file); !ok || w.Content != want {
			t.Errorf("%s = %+v, want %q", file, w, want)
		}
	}
	for _, file := range []string{"/tmp/system", "/tmp/file", "/tmp/awk-file"} {
		if _, ok := find(tr, Write, file); ok {
			t.Errorf("%s was written: awk escaped its box", file)
		}
	}
	if slices.ContainsFunc(execs(tr), func(e string) bool { return strings.HasPrefix(e, "rm") }) {
		t.Error("awk's system() ran a command")
	}
}

// Rewriting a script for the interpreter keeps every line where it is, so
// steps cite the lines they are written on.
func TestPreparedScriptsKeepTheirLines(t *testing.T) {
	src := "#!/usr/bin/env bash\nexec 9>/l\ndeclare -A M=(\n [a:b]=1\n)\nx=${M[$A:$B]}\nfoo | bar; echo ${PIPESTATUS[0]}\n"
	out := prepare(src)
	if strings.Count(out, "\n") != strings.Count(src, "\n") {
		t.Fatalf("lines moved:\n%s", out)
	}
	for i, line := range strings.Split(out, "\n") {
		orig := strings.Split(src, "\n")[i]
		if strings.Contains(orig, "declare") != strings.Contains(line, "declare") {
			t.Errorf("line %d became %q", i+1, line)
		}
	}
}
