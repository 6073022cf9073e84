package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Every row of the preset runs through the real runner on the fixture
// repository, in both layouts, without reading anything it does not declare
// and without crashing: either would turn the row into an internal error.
func TestPresetRowsDeclareWhatTheyRead(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			// Touch a spec-decode config and add a changelog entry so the
			// rows reading the change set get past N/A.
			r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
				"lmsysorg/sglang:v0.5.12-cu130", "lmsysorg/sglang:v0.5.13-cu130", 1)
			r.AppendChangelog("dsr1-fp4-b200-sglang-mtp")
			pr, _ := r.PR(t)
			reg := inferencex.Registry()
			rows := checks.Run(t.Context(), reg, pr, nil)
			if len(rows) != 16 {
				t.Fatalf("%d rows, want 16", len(rows))
			}
			for i, o := range rows {
				if o.Number != i || o.Name != inferencex.Name(i) {
					t.Errorf("row %d is %d %q", i, o.Number, o.Name.EN)
				}
				if strings.Contains(o.Result.Reason.EN, "internal error") {
					t.Errorf("row %d: %s", o.Number, o.Result.Reason.EN)
				}
			}
		})
	}
}

func TestTouchesBenchmarks(t *testing.T) {
	l := repo.E2ELayout()
	tests := []struct {
		path string
		want bool
	}{
		{"inferencex-e2e/configs/amd-master.yaml", true},
		{"inferencex-e2e/perf-changelog.yaml", true},
		{"inferencex-e2e/benchmarks/single_node/x.sh", true},
		{"inferencex-e2e/configs/runners.yaml", false},
		{"README.md", false},
		{"configs/amd-master.yaml", false},
	}
	for _, tt := range tests {
		if got := inferencex.TouchesBenchmarks(l, []checks.ChangedFile{{Path: tt.path}}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.path, got, tt.want)
		}
	}
}
