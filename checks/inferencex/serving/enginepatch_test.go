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
