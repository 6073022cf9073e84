package sweep_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

func pinned(t *testing.T, body string) commands.Reuse {
	t.Helper()
	cmd, err := commands.ParseReuse(body)
	if err != commands.OK {
		t.Fatalf("ParseReuse(%q): %v", body, err)
	}
	return cmd
}

func TestReuseEligibilityPinned(t *testing.T) {
	target := sweep.ReuseTarget{Number: 12, HeadRef: "feat"}
	tests := []struct {
		cmd      string
		eligible bool
		reason   string
	}{
		{"/use 30123456789", true, "run 30123456789 (success) on bbbbbbb with results_bmk, eval_results_all"},
		{"/reuse-sweep-run 777", true, "run 777 (cancelled) on aaaaaaa with results_bmk"},
		{"/use 778", true, "run 778 (failure) on aaaaaaa with eval_results_all"},
		{"/use 560", true, "run 560 (success) on aaaaaaa with bmk_agentic_qwen3.5"},
		{"/use 563", true, "run 563 (success) on aaaaaaa with results_bmk"},
		{"/use 779", false, "run 779 concluded skipped; a pinned run must be success, failure or cancelled"},
		{"/use 555", false, "run 555 was triggered by push, not pull_request"},
		{"/use 556", false, "run 556 is from .github/workflows/other.yml, not .github/workflows/run-sweep.yml"},
		{"/reuse-sweep-run 557", false, "head ddddddd of run 557 is not in PR #12's commit list"},
		{"/use 558", false, "the reusable artifacts of run 558 have expired (results_bmk, eval_results_all)"},
		{"/use 559", false, "run 559 has no reusable artifacts (results_bmk, eval_results_all, bmk_agentic_*)"},
		{"/use 561", false, "run 561 is in_progress, not completed"},
		{"/use 562", false, "run 562 has no head SHA"},
		{"/use 404", false, "run 404 was not found in this repository"},
		{"/use 0", false, "run 0 was not found in this repository"},
		{"/use 99999999999999999999", false, "run 99999999999999999999 was not found in this repository"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			d := sweep.ReuseEligibility(context.Background(), inferencextest.ReuseSource(), nil, target, pinned(t, tt.cmd))
			if d.Err != nil {
				t.Fatalf("unexpected error %v", d.Err)
			}
			if d.Eligible != tt.eligible || d.Reason.EN != tt.reason {
				t.Errorf("got %v %q, want %v %q", d.Eligible, d.Reason.EN, tt.eligible, tt.reason)
			}
			if d.Reason.ZH == "" || d.Reason.ZH == d.Reason.EN {
				t.Errorf("missing Chinese reason: %q", d.Reason.ZH)
			}
		})
	}
}

func TestReuseEligibilityLabels(t *testing.T) {
	for _, label := range []string{"evals-only", "agentx-fast", "Evals-Only"} {
		src := inferencextest.ReuseSource()
		target := sweep.ReuseTarget{Number: 12, HeadRef: "feat", Labels: []string{"full-sweep-enabled", label}}
		d := sweep.ReuseEligibility(context.Background(), src, nil, target, pinned(t, "/use 30123456789"))
		want := "PR #12 carries the reuse-incompatible label " + label
		if d.Eligible || d.Reason.EN != want {
			t.Errorf("label %s: got %v %q, want rejection %q", label, d.Eligible, d.Reason.EN, want)
		}
		if src.Calls["WorkflowRun"] != 0 {
			t.Errorf("label %s: the run was read although the label already rejects", label)
		}
	}
	// Configurable: with no incompatible labels the same PR is eligible.
	s := repo.Defaults()
	s.ReuseIncompatibleLabels = nil
	d := sweep.ReuseEligibility(context.Background(), inferencextest.ReuseSource(), &s,
		sweep.ReuseTarget{Number: 12, HeadRef: "feat", Labels: []string{"evals-only"}}, pinned(t, "/use 30123456789"))
	if !d.Eligible {
		t.Errorf("label rule not configurable: %q", d.Reason.EN)
	}
}

func TestReuseEligibilityTruncatedCommits(t *testing.T) {
	src := inferencextest.ReuseSource()
	src.CommitsValue.Truncated = true
	d := sweep.ReuseEligibility(context.Background(), src, nil, sweep.ReuseTarget{Number: 3, HeadRef: "feat"}, pinned(t, "/use 557"))
	if d.Eligible || !strings.Contains(d.Reason.EN, "is not in PR #3's commit list (GitHub lists only the first 250 commits)") {
		t.Errorf("got %v %q", d.Eligible, d.Reason.EN)
	}
}

func TestReuseEligibilityAutoSelect(t *testing.T) {
	target := sweep.ReuseTarget{Number: 12, HeadRef: "feat"}
	auto := commands.Reuse{Name: "/reuse-sweep-run"}
	base := inferencextest.ReuseSource()
	r := func(id int64) checks.WorkflowRun { return base.Workflow[id] }
	tests := []struct {
		name   string
		runs   []checks.WorkflowRun // newest first
		wantID int64                // 0 = rejected
	}{
		// The latest success has only gate no-op artifacts; an older one has eval results.
		{"skips run without reusable artifacts", []checks.WorkflowRun{r(559), r(778), r(30123456789)}, 30123456789},
		{"unpinned cancelled or failed is not accepted", []checks.WorkflowRun{r(777), r(778)}, 0},
		{"skips rebased-out head and expired artifacts", []checks.WorkflowRun{r(557), r(558), r(560)}, 560},
		{"skips other events and paths", []checks.WorkflowRun{r(555), r(556), r(563)}, 563},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := inferencextest.ReuseSource()
			src.RunList = tt.runs
			d := sweep.ReuseEligibility(context.Background(), src, nil, target, auto)
			if d.Err != nil {
				t.Fatal(d.Err)
			}
			if tt.wantID == 0 {
				want := "no successful run-sweep.yml pull_request run on branch feat has a head in PR #12 and reusable artifacts; pin a run with `/use <run_id>`"
				if d.Eligible || d.Reason.EN != want {
					t.Errorf("got %v %q, want rejection %q", d.Eligible, d.Reason.EN, want)
				}
				return
			}
			if !d.Eligible || d.Run.ID != tt.wantID {
				t.Errorf("got eligible=%v run %d (%q), want run %d", d.Eligible, d.Run.ID, d.Reason.EN, tt.wantID)
			}
		})
	}
}

var errBoom = errors.New("502 bad gateway")

// failing makes src's method fail with a transient error.
func failing(src *checkstest.Source, method string) *checkstest.Source {
	switch method {
	case "Commits":
		src.CommitsError = errBoom
	case "WorkflowRun":
		src.WorkflowRunError = errBoom
	case "WorkflowRuns":
		src.WorkflowRunsError = errBoom
	case "Artifacts":
		src.ArtifactsError = errBoom
	}
	return src
}

func TestReuseEligibilityErrors(t *testing.T) {
	target := sweep.ReuseTarget{Number: 12, HeadRef: "feat"}
	for _, tc := range []struct{ fail, cmd string }{
		{"Commits", "/use 30123456789"},
		{"WorkflowRun", "/use 30123456789"},
		{"Artifacts", "/use 30123456789"},
		{"WorkflowRuns", "/reuse-sweep-run"},
		{"Artifacts", "/reuse-sweep-run"},
	} {
		src := inferencextest.ReuseSource()
		src.RunList = []checks.WorkflowRun{src.Workflow[30123456789]}
		d := sweep.ReuseEligibility(context.Background(), failing(src, tc.fail), nil, target, pinned(t, tc.cmd))
		if d.Eligible || !errors.Is(d.Err, errBoom) || !strings.HasPrefix(d.Reason.EN, "could not be verified: ") {
			t.Errorf("%s failing for %s: eligible=%v err=%v reason=%q", tc.fail, tc.cmd, d.Eligible, d.Err, d.Reason.EN)
		}
	}
}
