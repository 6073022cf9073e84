package serving

import "testing"

func TestLineIndicatorsGitApply(t *testing.T) {
	tests := []struct {
		line string
		hit  bool
	}{
		{"git apply /tmp/fix.patch", true},
		{"cd /sgl-workspace/sglang && git apply fix.patch", true},
		{"git -C /sgl-workspace/sglang apply fix.patch", true},
		{`os.system("git apply /tmp/fix.patch")`, true},
		{`subprocess.run(["git", "apply", "/tmp/fix.patch"], check=True)`, true},
		{`subprocess.run(['git', '-C', repo, 'apply', p])`, true},
		{"git am 0001-fix.patch", true},
		{"git clone https://github.com/x/y", false},
		{"echo applying nothing", false},
		{"# git apply fix.patch", false},
		{"legit apply", false},
	}
	for _, tt := range tests {
		what, _ := PatchingInLine(tt.line)
		if got := what == "applies a patch (git apply)"; got != tt.hit {
			t.Errorf("%q: indicator %q, want git apply hit %v", tt.line, what, tt.hit)
		}
	}
}

// A config's own framework is part of its serving stack: installing it
// over the image changes what is benchmarked, whatever the framework is
// called, while the same install is nothing to a config served otherwise.
func TestFrameworkIsInTheStack(t *testing.T) {
	for _, tc := range []struct {
		stack Stack
		line  string
		hit   bool
	}{
		{StackOf("tilert"), `"$PY" -m pip install "${_pa[@]}" "tilert==$TILERT_VERSION"`, true},
		{nil, `"$PY" -m pip install "${_pa[@]}" "tilert==$TILERT_VERSION"`, false},
		{StackOf("dynamo-sglang"), `pip install ai-dynamo dynamo==1.2`, true},
		{StackOf("vllm"), `pip install aiperf==0.3`, false},
		{nil, `pip install sglang==0.5`, true},
	} {
		what, _ := tc.stack.PatchingInLine(tc.line)
		if (what != "") != tc.hit {
			t.Errorf("stack %v, %q: %q, want a hit = %v", tc.stack, tc.line, what, tc.hit)
		}
	}
}
