package shell

import "testing"

func TestWorkingDirectory(t *testing.T) {
	src := `#!/bin/bash
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
at_start
cd "$SCRIPT_DIR/.." && in_parent
git clone https://github.com/kvcache-ai/Mooncake.git
cd Mooncake && bash dependencies.sh
cd build && in_build
cd ../.. && out_again
git clone --depth 1 -b main https://example.com/org/tool.git /opt/tool
cd /opt/tool && in_tool
pushd /sgl-workspace/sglang && in_engine
popd && popped
WORK=$(mktemp -d)
cd "$WORK" && in_temp
cd "$SCRIPT_DIR/.." && mkdir -p results && cd results && in_results
cd /e1
cd /e2
cd - && back_again
tar -xzf pkg.tgz -C /opt/pkg && cd /opt/pkg/sub && in_pkg
cd /w
unzip -q w.zip -d wheels && cd wheels && in_wheels
git -C /src clone https://h/x/lib && cd /src/lib && in_lib
if [ -n "$A" ]; then cd /a; else cd /b; fi
after_if
cd /c
if [ -n "$B" ]; then echo no cd; fi
after_plain_if
if [ -z "$C" ]; then cd /d; exit 1; fi
after_exit_branch
install() {
  git clone https://github.com/x/Dep
  cd Dep && ./build.sh
}
(cd /sub && in_sub)
after_sub
cd "$UNKNOWN" && in_unknown
cd "$(dirname "$0")" && in_script_dir
`
	sc := mustParse(t, src)
	tests := []struct {
		prefix, dir string
		external    bool
	}{
		{"at_start", "$START", false},
		{"in_parent", "$SCRIPT_DIR/..", false},
		{"bash dependencies.sh", "$SCRIPT_DIR/../Mooncake", true},
		{"in_build", "$SCRIPT_DIR/../Mooncake/build", true},
		{"out_again", "$SCRIPT_DIR/..", false},
		{"in_tool", "/opt/tool", true},
		{"in_engine", "/sgl-workspace/sglang", false},
		{"popped", "/opt/tool", true},
		{"in_temp", "?", true},
		{"in_results", "$SCRIPT_DIR/../results", true},
		{"back_again", "/e1", false},
		{"in_pkg", "/opt/pkg/sub", true},
		{"in_wheels", "/w/wheels", true},
		{"in_lib", "/src/lib", true},
		{"after_if", "?", false},
		{"after_plain_if", "/c", false},
		{"after_exit_branch", "/c", false},
		{"./build.sh", "$CALLER_DIR/Dep", true},
		{"in_sub", "/sub", false},
		{"after_sub", "/c", false},
		{"in_unknown", "?", false},
		{"in_script_dir", "$SCRIPT_DIR", false},
	}
	for _, tt := range tests {
		c := find(t, sc, tt.prefix)
		got := c.Dir
		got.MadeBy, got.MadeLine = "", 0
		if got.String() != tt.dir || c.Dir.External() != tt.external {
			t.Errorf("%s: dir %s (external %v), want %s (external %v)", tt.prefix, c.Dir, c.Dir.External(), tt.dir, tt.external)
		}
	}
	if d := find(t, sc, "bash dependencies.sh").Dir; d.MadeBy != "git clone https://github.com/kvcache-ai/Mooncake.git" || d.MadeLine != 5 {
		t.Errorf("Mooncake made by %q line %d", d.MadeBy, d.MadeLine)
	}
	if d := find(t, sc, "in_temp").Dir; d.MadeBy != "mktemp -d" || d.MadeLine != 13 || find(t, sc, "in_wheels").Dir.MadeBy != "unzip" {
		t.Errorf("temp dir made by %q line %d", d.MadeBy, d.MadeLine)
	}
	if d := find(t, sc, "in_results").Dir; d.MadeBy != "mkdir -p" {
		t.Errorf("results made by %q", d.MadeBy)
	}
}

func TestSourcesAndPaths(t *testing.T) {
	src := `DIR=$(dirname "$(realpath "$0")")
source "$DIR/../benchmark_lib.sh"
. ./env.sh
source /infmax-workspace/benchmarks/lib.sh
source "$HELPER"
source "${BASH_SOURCE%/*}/common.sh"
cd /x && source rel.sh
`
	sc := mustParse(t, src)
	want := []struct {
		arg, path string
		ok        bool
	}{
		{`"$DIR/../benchmark_lib.sh"`, "$SCRIPT_DIR/../benchmark_lib.sh", true},
		{"./env.sh", "$START/env.sh", true},
		{"/infmax-workspace/benchmarks/lib.sh", "/infmax-workspace/benchmarks/lib.sh", true},
		{`"$HELPER"`, "?", false},
		{`"${BASH_SOURCE%/*}/common.sh"`, "$SCRIPT_DIR/common.sh", true},
		{"rel.sh", "/x/rel.sh", true},
	}
	got := sc.Sources()
	if len(got) != len(want) {
		t.Fatalf("%d sources, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Arg.Text != w.arg || g.Path.String() != w.path || g.OK != w.ok {
			t.Errorf("source %d = %q %s %v, want %q %s %v", i, g.Arg.Text, g.Path, g.OK, w.arg, w.path, w.ok)
		}
	}
}
