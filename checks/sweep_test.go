package checks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

const h5NoSweep = "No passing sweep/eval was found on any commit in this PR. Run a passing full sweep on a current commit or re-anchor with /use <run_id>."

func TestSweepCheck(t *testing.T) {
	mid := "2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b"
	skipped := []checks.CheckRun{
		h5CR(1, "single-node 8k1k / p1 | dsr1 fp4 b200 sgl TP8 c64", "skipped", 30200000000),
		h5CR(2, "eval / p1 | dsr1 fp4 b200 sgl TP8 c64 | eval-only", "skipped", 30200000000),
		h5CR(3, "reuse-sweep-gate", "success", 30200000000),
		h5CR(4, "collect-evals", "success", 30200000000),
	}
	tests := []struct {
		name      string
		commits   checks.CommitList
		runs      map[string][]checks.CheckRun
		status    checks.Status
		reason    string // exact, or prefix when prefix is set
		prefix    bool
		wantRun   int64
		wantSHA   string
		noContain string
	}{
		{
			name:    "agentic-only PR passes",
			commits: h5Commits(h5Head),
			runs:    map[string][]checks.CheckRun{h5Head: h5Green(h5Run, "agentic /", "agentic eval /")},
			status:  checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: h5Run, wantSHA: h5Head,
		},
		{
			name:    "multi-node agentic eval is an eval group, not a benchmark",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{h5Head: {
				h5CR(1, "multi-node agentic eval / p1 | dsv4 fp4 gb300 dyn c8", "success", h5Run),
				h5CR(2, "collect-results", "success", h5Run),
			}},
			status: checks.Fail, reason: h5NoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, no benchmark job executed.",
		},
		{
			name:    "multi-node agentic passes",
			commits: h5Commits(h5Head),
			runs:    map[string][]checks.CheckRun{h5Head: h5Green(h5Run, "multi-node agentic /", "multi-node agentic eval /")},
			status:  checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: h5Run, wantSHA: h5Head,
		},
		{
			name:    "S2: sweep only on a rebased-out commit, head has skipped jobs",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{
				h5Old:  h5Green(h5Run, "single-node 8k1k /", "eval /"),
				h5Head: skipped,
			},
			status: checks.Fail, reason: h5NoSweep + " Newest sweep: run 30200000000 on 1a2b3c4, no benchmark job executed.",
		},
		{
			name:    "skipped reuse-gated jobs on head; the green older in-PR commit is chosen",
			commits: h5Commits(h5Old, h5Head),
			runs: map[string][]checks.CheckRun{
				h5Old:  h5Green(h5Run, "single-node 8k1k /", "eval /"),
				h5Head: skipped,
			},
			status: checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 0ff1ce0 (run 30123456789).",
			wantRun: h5Run, wantSHA: h5Old,
		},
		{
			name:    "aggregator green while every eval job was skipped",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{h5Head: {
				h5CR(1, "single-node 8k1k / p1 | dsr1 fp4 b200 sgl TP8 c64", "success", h5Run),
				h5CR(2, "eval / p1 | dsr1 fp4 b200 sgl TP8 c64 | eval-only", "skipped", h5Run),
				h5CR(3, "collect-evals", "success", h5Run),
			}},
			status: checks.Fail, reason: h5NoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, no eval job executed.",
		},
		{
			name:    "a failed benchmark job disqualifies its run",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{h5Head: append(h5Green(h5Run, "single-node 1k1k /", "eval /"),
				h5CR(5, "single-node 1k1k / p2 | dsr1 fp4 b200 sgl TP4 c4", "failure", h5Run))},
			status: checks.Fail, reason: h5NoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, single-node 1k1k / p2 | dsr1 fp4 b200 sgl TP4 c4 concluded failure.",
		},
		{
			name:    "a re-run supersedes the failed attempt of the same job",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{h5Head: append(h5Green(h5Run, "single-node 1k1k /", "eval /"),
				// Same name as job 1 but started earlier: superseded.
				func() checks.CheckRun {
					c := h5CR(0, "single-node 1k1k / p1 | qwen3.5 fp8 mi355x sgl TP4 c8", "failure", h5Run)
					return c
				}())},
			status: checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: h5Run, wantSHA: h5Head,
		},
		{
			name:    "a job still running does not count as green",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{h5Head: append(h5Green(h5Run, "agentic /", "agentic eval /"),
				checks.CheckRun{ID: 9, Name: "agentic / p2 | x", Status: "in_progress", DetailsURL: "https://github.com/o/r/actions/runs/30123456789/job/1"})},
			status: checks.Fail, reason: h5NoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, agentic / p2 | x is still in_progress.",
		},
		{
			name:    "the newer of two runs on one commit is judged first; an older green run still qualifies",
			commits: h5Commits(h5Head),
			runs: map[string][]checks.CheckRun{h5Head: append(h5Green(h5Run, "canary /", "eval /"),
				h5CR(7, "canary / p1 | y", "failure", h5Run+1))},
			status: checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: h5Run, wantSHA: h5Head,
		},
		{
			name:    "no jobs at all",
			commits: h5Commits(h5Head),
			status:  checks.Fail, reason: h5NoSweep + " No benchmark or eval job ran on any of its commits.",
		},
		{
			name:    "250-commit cap is stated when nothing passes",
			commits: func() checks.CommitList { c := h5Commits(h5Old, mid); c.Truncated = true; return c }(),
			status:  checks.Fail,
			reason:  h5NoSweep + " No benchmark or eval job ran on any of its commits. The PR's commit list is capped at 250 commits; commits beyond the cap were not examined.",
		},
		{
			name:    "250-commit cap: head outside the capped list is still examined",
			commits: func() checks.CommitList { c := h5Commits(h5Old, mid); c.Truncated = true; return c }(),
			runs:    map[string][]checks.CheckRun{h5Head: h5Green(h5Run, "agentic /", "agentic eval /")},
			status:  checks.Pass,
			reason:  "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789). The PR's commit list is capped at 250 commits; commits beyond the cap were not examined.",
			wantRun: h5Run, wantSHA: h5Head,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &checkstest.Source{CommitList: tc.commits, Runs: tc.runs}
			pr := h5PR(src)
			r := h5RunChecks(t, pr, checks.SweepCheck())[1]
			if r.Status != tc.status || r.Reason.EN != tc.reason {
				t.Fatalf("got %s %q\nwant %s %q", r.Status, r.Reason.EN, tc.status, tc.reason)
			}
			if r.Reason.ZH == r.Reason.EN {
				t.Errorf("Chinese reason missing: %q", r.Reason.ZH)
			}
			sel, ok := r.Data.(*checks.SweepSelection)
			if tc.status != checks.Pass {
				if ok {
					t.Errorf("failing row carries a selection")
				}
				return
			}
			if !ok || sel.RunID != tc.wantRun || sel.HeadSHA != tc.wantSHA || len(sel.Eval) == 0 || len(sel.Benchmark) == 0 {
				t.Fatalf("selection %+v", sel)
			}
			if sel.RunURL != "https://github.com/o/r/actions/runs/30123456789" {
				t.Errorf("run url %q", sel.RunURL)
			}
		})
	}
}

// Commits are judged newest first in windows; the newest qualifying commit
// wins even when an older one in a later window also qualifies, and commits
// older than the winner's window are never fetched.
func TestSweepNewestCommitWinsAndStopsEarly(t *testing.T) {
	var shas []string
	for i := range 12 {
		shas = append(shas, strings.Repeat(string(rune('a'+i)), 40))
	}
	src := &checkstest.Source{CommitList: h5Commits(shas...), Runs: map[string][]checks.CheckRun{
		shas[2]:  h5Green(h5Run, "agentic /", "agentic eval /"),
		shas[9]:  h5Green(h5Run+5, "agentic /", "agentic eval /"),
		shas[10]: h5Green(h5Run+9, "agentic /", "agentic eval /"),
	}}
	pr := h5PR(src)
	pr.HeadSHA = shas[11]
	r := h5RunChecks(t, pr, checks.SweepCheck())[1]
	sel, _ := r.Data.(*checks.SweepSelection)
	if r.Status != checks.Pass || sel == nil || sel.HeadSHA != shas[10] {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
	if n := src.Calls["CheckRuns"]; n != 4 {
		t.Errorf("fetched %d commits, want one window of 4", n)
	}
}

type h5ErrSource struct{ *checkstest.Source }

func (s h5ErrSource) CheckRuns(ctx context.Context, sha string) ([]checks.CheckRun, error) {
	if sha == h5Head {
		return nil, errors.New("HTTP 502")
	}
	return s.Source.CheckRuns(ctx, sha)
}

func TestSweepUnreadableNewerCommitIsUnverified(t *testing.T) {
	src := &checkstest.Source{CommitList: h5Commits(h5Old, h5Head), Runs: map[string][]checks.CheckRun{
		h5Old: h5Green(h5Run, "agentic /", "agentic eval /"),
	}}
	pr := h5PR(src)
	pr.Source = h5ErrSource{src}
	r := h5RunChecks(t, pr, checks.SweepCheck())[1]
	if r.Status != checks.Fail || !strings.HasPrefix(r.Reason.EN, "could not be verified: check runs of commit 1a2b3c4 are unreadable: HTTP 502") {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
}

func TestClassifyJob(t *testing.T) {
	s := checks.Defaults()
	tests := map[string]checks.JobKind{
		"single-node 8k1k / p1 | qwen3.5 fp8 b200 sgl TP8 mtp c64": checks.JobBenchmark,
		"multi-node 1k1k / p1 | dsr1 fp4 gb200 dyn c64":            checks.JobBenchmark,
		"agentic / p1 | qwen3.5 fp8 mi355x sgl TP4 c8":             checks.JobBenchmark,
		"multi-node agentic / p1 | dsv4 fp4 gb300 dyn c8":          checks.JobBenchmark,
		"canary / p1 | x": checks.JobBenchmark,
		"eval / p1 | qwen3.5 fp8 b200 sgl TP8 c64 | eval-only": checks.JobEval,
		"agentic eval / p1 | x":                                checks.JobEval,
		"multi-node eval / p1 | x":                             checks.JobEval,
		"multi-node agentic eval / p1 | x":                     checks.JobEval,
		"collect-evals":                                        checks.JobAggregator,
		"collect-results":                                      checks.JobAggregator,
		"setup":                                                checks.JobAggregator,
		"reuse-sweep-gate":                                     checks.JobAggregator,
		"lint":                                                 checks.JobOther,
		"evaluate-something":                                   checks.JobOther,
	}
	for name, want := range tests {
		if got := checks.ClassifyJob(&s, name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

func TestRunIDFromURL(t *testing.T) {
	for u, want := range map[string]int64{
		"https://github.com/o/r/actions/runs/30123456789/job/1": 30123456789,
		"https://github.com/o/r/actions/runs/42":                42,
		"https://github.com/o/r/actions/runs/42x/job/1":         0,
		"https://ci.example.com/build/7":                        0,
		"":                                                      0,
	} {
		if got := checks.RunIDFromURL(u); got != want {
			t.Errorf("%q: %d, want %d", u, got, want)
		}
	}
}
