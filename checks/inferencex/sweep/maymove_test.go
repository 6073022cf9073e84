package sweep

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// TestMayMoveCurves: a PR can move a curve only by changing
// a file that can, in either layout.
func TestMayMoveCurves(t *testing.T) {
	files := func(paths ...string) []checks.ChangedFile {
		var out []checks.ChangedFile
		for _, p := range paths {
			out = append(out, checks.ChangedFile{Path: p})
		}
		return out
	}
	e2e, legacy := repo.E2ELayout(), repo.LegacyLayout()
	for _, tt := range []struct {
		name  string
		l     repo.Layout
		files []checks.ChangedFile
		want  bool
	}{
		{"master config", e2e, files("inferencex-e2e/configs/amd-master.yaml"), true},
		{"changelog", legacy, files("perf-changelog.yaml"), true},
		{"benchmark script", legacy, files("benchmarks/single_node/agentic/x.sh"), true},
		{"runner", e2e, files("inferencex-e2e/runners/launch.sh"), true},
		{"renamed out of the benchmarks", legacy, []checks.ChangedFile{{Path: "attic/x.sh", PreviousPath: "benchmarks/x.sh"}}, true},
		{"documentation only", e2e, files("inferencex-e2e/docs/MODELS.md", "README.md"), false},
		{"documentation under the benchmarks", legacy, files("benchmarks/README.md"), false},
		{"the other layout's configs", e2e, files("configs/amd-master.yaml"), false},
		{"nothing", legacy, nil, false},
	} {
		if got := MayMoveCurves(tt.l, tt.files); got != tt.want {
			t.Errorf("%s: MayMoveCurves = %v, want %v", tt.name, got, tt.want)
		}
	}
}
