package inferencex_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

const ciNoSweep = "No passing sweep/eval was found on any commit in this PR. Run a passing full sweep on a current commit or re-anchor with `/use <run_id>`."

func TestSweepCheck(t *testing.T) {
	mid := "2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b"
	skipped := []checks.CheckRun{
		ciCR(1, "single-node 8k1k / p1 | dsr1 fp4 b200 sgl TP8 c64", "skipped", 30200000000),
		ciCR(2, "eval / p1 | dsr1 fp4 b200 sgl TP8 c64 | eval-only", "skipped", 30200000000),
		ciCR(3, "reuse-sweep-gate", "success", 30200000000),
		ciCR(4, "collect-evals", "success", 30200000000),
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
			commits: ciCommits(ciHead),
			runs:    map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")},
			status:  checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: ciRun, wantSHA: ciHead,
		},
		{
			name:    "multi-node agentic eval is an eval group, not a benchmark",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{ciHead: {
				ciCR(1, "multi-node agentic eval / p1 | dsv4 fp4 gb300 dyn c8", "success", ciRun),
				ciCR(2, "collect-results", "success", ciRun),
			}},
			status: checks.Fail, reason: ciNoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, no benchmark job executed.",
		},
		{
			name:    "multi-node agentic passes",
			commits: ciCommits(ciHead),
			runs:    map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "multi-node agentic /", "multi-node agentic eval /")},
			status:  checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: ciRun, wantSHA: ciHead,
		},
		{
			name:    "S2: sweep only on a rebased-out commit, head has skipped jobs",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{
				ciOld:  ciGreen(ciRun, "single-node 8k1k /", "eval /"),
				ciHead: skipped,
			},
			status: checks.Fail, reason: ciNoSweep + " Newest sweep: run 30200000000 on 1a2b3c4, no benchmark job executed.",
		},
		{
			name:    "skipped reuse-gated jobs on head; the green older in-PR commit is chosen",
			commits: ciCommits(ciOld, ciHead),
			runs: map[string][]checks.CheckRun{
				ciOld:  ciGreen(ciRun, "single-node 8k1k /", "eval /"),
				ciHead: skipped,
			},
			status: checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 0ff1ce0 (run 30123456789).",
			wantRun: ciRun, wantSHA: ciOld,
		},
		{
			name:    "aggregator green while every eval job was skipped",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{ciHead: {
				ciCR(1, "single-node 8k1k / p1 | dsr1 fp4 b200 sgl TP8 c64", "success", ciRun),
				ciCR(2, "eval / p1 | dsr1 fp4 b200 sgl TP8 c64 | eval-only", "skipped", ciRun),
				ciCR(3, "collect-evals", "success", ciRun),
			}},
			status: checks.Fail, reason: ciNoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, no eval job executed.",
		},
		{
			name:    "a failed benchmark job disqualifies its run",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{ciHead: append(ciGreen(ciRun, "single-node 1k1k /", "eval /"),
				ciCR(5, "single-node 1k1k / p2 | dsr1 fp4 b200 sgl TP4 c4", "failure", ciRun))},
			status: checks.Fail, reason: ciNoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, single-node 1k1k / p2 | dsr1 fp4 b200 sgl TP4 c4 concluded failure.",
		},
		{
			name:    "a re-run supersedes the failed attempt of the same job",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{ciHead: append(ciGreen(ciRun, "single-node 1k1k /", "eval /"),
				// Same name as job 1 but started earlier: superseded.
				func() checks.CheckRun {
					c := ciCR(0, "single-node 1k1k / p1 | qwen3.5 fp8 mi355x sgl TP4 c8", "failure", ciRun)
					return c
				}())},
			status: checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: ciRun, wantSHA: ciHead,
		},
		{
			name:    "a job still running does not count as green",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{ciHead: append(ciGreen(ciRun, "agentic /", "agentic eval /"),
				checks.CheckRun{ID: 9, Name: "agentic / p2 | x", Status: "in_progress", DetailsURL: "https://github.com/o/r/actions/runs/30123456789/job/1"})},
			status: checks.Fail, reason: ciNoSweep + " Newest sweep: run 30123456789 on 1a2b3c4, agentic / p2 | x is still in_progress.",
		},
		{
			name:    "the newer of two runs on one commit is judged first; an older green run still qualifies",
			commits: ciCommits(ciHead),
			runs: map[string][]checks.CheckRun{ciHead: append(ciGreen(ciRun, "canary /", "eval /"),
				ciCR(7, "canary / p1 | y", "failure", ciRun+1))},
			status: checks.Pass, reason: "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789).",
			wantRun: ciRun, wantSHA: ciHead,
		},
		{
			name:    "no jobs at all",
			commits: ciCommits(ciHead),
			status:  checks.Fail, reason: ciNoSweep + " No benchmark or eval job ran on any of its commits.",
		},
		{
			name:    "250-commit cap is stated when nothing passes",
			commits: func() checks.CommitList { c := ciCommits(ciOld, mid); c.Truncated = true; return c }(),
			status:  checks.Fail,
			reason:  ciNoSweep + " No benchmark or eval job ran on any of its commits. The PR's commit list is capped at 250 commits; commits beyond the cap were not examined.",
		},
		{
			name:    "250-commit cap: head outside the capped list is still examined",
			commits: func() checks.CommitList { c := ciCommits(ciOld, mid); c.Truncated = true; return c }(),
			runs:    map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")},
			status:  checks.Pass,
			reason:  "Green benchmark + eval jobs on in-PR commit 1a2b3c4 (run 30123456789). The PR's commit list is capped at 250 commits; commits beyond the cap were not examined.",
			wantRun: ciRun, wantSHA: ciHead,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &checkstest.Source{CommitsValue: tc.commits, Runs: tc.runs}
			pr := ciPR(src)
			r := checkstest.Run(t, pr, inferencex.PassingSweep)[1]
			if r.Status != tc.status || r.Reason.EN != tc.reason {
				t.Fatalf("got %s %q\nwant %s %q", r.Status, r.Reason.EN, tc.status, tc.reason)
			}
			if r.Reason.ZH == r.Reason.EN {
				t.Errorf("Chinese reason missing: %q", r.Reason.ZH)
			}
			found, err := sweep.SearchFact.Of(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			sel, ok := found.Selection, found.Selection != nil
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
	src := &checkstest.Source{CommitsValue: ciCommits(shas...), Runs: map[string][]checks.CheckRun{
		shas[2]:  ciGreen(ciRun, "agentic /", "agentic eval /"),
		shas[9]:  ciGreen(ciRun+5, "agentic /", "agentic eval /"),
		shas[10]: ciGreen(ciRun+9, "agentic /", "agentic eval /"),
	}}
	pr := ciPR(src)
	pr.HeadSHA = shas[11]
	r := checkstest.Run(t, pr, inferencex.PassingSweep)[1]
	found, _ := sweep.SearchFact.Of(context.Background(), pr)
	sel := found.Selection
	if r.Status != checks.Pass || sel == nil || sel.HeadSHA != shas[10] {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
	if n := src.Calls["CheckRuns"]; n != 4 {
		t.Errorf("fetched %d commits, want one window of 4", n)
	}
}

// Past the newest window, only commits something ran on are read: a sweep
// on the oldest of many commits costs one question about them all and two
// windows of reads, and decides as reading every commit does (also when
// the source cannot tell which commits have checks).
func TestSweepSkipsCommitsWithoutChecks(t *testing.T) {
	var shas []string
	for i := range 40 {
		shas = append(shas, fmt.Sprintf("%040x", i+1))
	}
	runs := map[string][]checks.CheckRun{
		shas[0]:  ciGreen(ciRun, "agentic /", "agentic eval /"),
		shas[1]:  ciGreen(ciRun+1, "agentic /", "agentic eval /"),
		shas[30]: {{ID: 1, Name: "lint", Status: "completed", Conclusion: "success"}},
	}
	runs[shas[1]][0].Conclusion = "failure"
	for _, tt := range []struct {
		name      string
		askErr    error
		wantReads int
	}{
		{"the source tells", nil, 4 + 3},
		{"the source cannot tell", checks.ErrUnavailable, 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{CommitsValue: ciCommits(shas...), Runs: runs, CommitsWithChecksError: tt.askErr}
			pr := ciPR(src)
			pr.HeadSHA = shas[39]
			r := checkstest.Run(t, pr, inferencex.PassingSweep)[1]
			found, _ := sweep.SearchFact.Of(context.Background(), pr)
			if r.Status != checks.Pass || found.Selection == nil || found.Selection.HeadSHA != shas[0] {
				t.Fatalf("got %s %q", r.Status, r.Reason.EN)
			}
			if n := src.Calls["CheckRuns"]; n != tt.wantReads {
				t.Errorf("read the check runs of %d commits, want %d", n, tt.wantReads)
			}
		})
	}
}

type ciErrSource struct{ *checkstest.Source }

func (s ciErrSource) CheckRuns(ctx context.Context, sha string) ([]checks.CheckRun, error) {
	if sha == ciHead {
		return nil, errors.New("HTTP 502")
	}
	return s.Source.CheckRuns(ctx, sha)
}

func TestSweepUnreadableNewerCommitIsUnverified(t *testing.T) {
	src := &checkstest.Source{CommitsValue: ciCommits(ciOld, ciHead), Runs: map[string][]checks.CheckRun{
		ciOld: ciGreen(ciRun, "agentic /", "agentic eval /"),
	}}
	pr := ciPR(src)
	pr.Source = ciErrSource{src}
	r := checkstest.Run(t, pr, inferencex.PassingSweep)[1]
	if r.Status != checks.Fail || !strings.HasPrefix(r.Reason.EN, "could not be verified: check runs of commit 1a2b3c4 are unreadable: HTTP 502") {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
}
