package inferencex_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
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
		if got := repo.TouchesBenchmarks(l, []checks.ChangedFile{{Path: tt.path}}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.path, got, tt.want)
		}
	}
}

// The InferenceX preset detects its repository in either layout, and in
// histories older than its checklist, and leaves any other repository to
// the next preset.
func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name   string
		files  []string
		config string
		want   bool
	}{
		{"e2e marker", []string{repo.E2EMarker, "README.md"}, "", true},
		{"legacy checklist", []string{"docs/PR_REVIEW_CHECKLIST.md"}, "", true},
		{"layout pinned", []string{"README.md"}, "layout: legacy\n", true},
		{"perf changelog at the root", []string{"perf-changelog.yaml", "README.md"}, "", true},
		{"benchmarks beside runners", []string{"benchmarks/a.sh", "runners/b.sh", "utils/c.py"}, "", true},
		{"benchmarks alone", []string{"benchmarks/a.sh", "src/x.go"}, "", false},
		{"a plain repository", []string{"README.md", "src/x.go", ".github/pull_request_template.md"}, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{}
			for _, f := range tt.files {
				src.SetFile("main", f, "x\n")
			}
			got, err := inferencex.Preset.Detect(t.Context(), src, "main", []byte(tt.config))
			if err != nil || got != tt.want {
				t.Fatalf("Detect = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	src := &checkstest.Source{ListDirError: errors.New("tree unreadable")}
	if _, err := inferencex.Preset.Detect(t.Context(), src, "main", nil); err == nil {
		t.Error("an unreadable root was taken for a plain repository")
	}
}
