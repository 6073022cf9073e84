package inferencextest

import (
	"fmt"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

// The reuse fixture's commits: two in the PR (ReuseHeadSHA is the newer)
// and one rebased out of it.
const (
	ReuseSHA     = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	ReuseHeadSHA = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	RebasedSHA   = "dddddddddddddddddddddddddddddddddddddddd"
	// sweepWorkflow is the preset's sweep workflow.
	sweepWorkflow = ".github/workflows/run-sweep.yml"
)

// SweepWorkflowRun is a completed pull_request run of the sweep workflow on
// branch feat.
func SweepWorkflowRun(id int64, conclusion, head string) checks.WorkflowRun {
	return checks.WorkflowRun{
		ID: id, Name: "Run Sweep", Path: sweepWorkflow, Event: "pull_request", Status: "completed",
		Conclusion: conclusion, HeadSHA: head, HeadBranch: "feat", HTMLURL: fmt.Sprintf("https://github.com/o/r/actions/runs/%d", id),
	}
}

// RunArtifact is an artifact of run.
func RunArtifact(run int64, name string, expired bool) checks.Artifact {
	return checks.Artifact{ID: run*10 + int64(len(name)), Name: name, RunID: run, Expired: expired}
}

// ReuseSource is a PR with two commits and a run catalogue covering every
// rule of reuse eligibility.
func ReuseSource() *checkstest.Source {
	src := &checkstest.Source{
		CommitsValue: checks.CommitList{Commits: []checks.Commit{{SHA: ReuseSHA}, {SHA: ReuseHeadSHA}}},
		Workflow:     map[int64]checks.WorkflowRun{},
		RunArtifacts: map[int64][]checks.Artifact{},
	}
	add := func(r checks.WorkflowRun, arts ...checks.Artifact) {
		src.Workflow[r.ID] = r
		src.RunArtifacts[r.ID] = arts
	}
	add(SweepWorkflowRun(30123456789, "success", ReuseHeadSHA), RunArtifact(30123456789, "results_bmk", false), RunArtifact(30123456789, "eval_results_all", false))
	add(SweepWorkflowRun(777, "cancelled", ReuseSHA), RunArtifact(777, "results_bmk", false))
	add(SweepWorkflowRun(778, "failure", ReuseSHA), RunArtifact(778, "eval_results_all", false))
	add(SweepWorkflowRun(779, "skipped", ReuseSHA), RunArtifact(779, "results_bmk", false))
	push := SweepWorkflowRun(555, "success", ReuseSHA)
	push.Event = "push"
	add(push, RunArtifact(555, "results_bmk", false))
	other := SweepWorkflowRun(556, "success", ReuseSHA)
	other.Path = ".github/workflows/other.yml"
	add(other, RunArtifact(556, "results_bmk", false))
	add(SweepWorkflowRun(557, "success", RebasedSHA), RunArtifact(557, "results_bmk", false))
	add(SweepWorkflowRun(558, "success", ReuseSHA), RunArtifact(558, "results_bmk", true), RunArtifact(558, "eval_results_all", true))
	add(SweepWorkflowRun(559, "success", ReuseSHA), RunArtifact(559, "reuse-gate-noop", false))
	add(SweepWorkflowRun(560, "success", ReuseSHA), RunArtifact(560, "bmk_agentic_qwen3.5", false))
	running := SweepWorkflowRun(561, "", ReuseSHA)
	running.Status = "in_progress"
	add(running)
	add(SweepWorkflowRun(562, "success", ""), RunArtifact(562, "results_bmk", false))
	noPath := SweepWorkflowRun(563, "success", ReuseSHA)
	noPath.Path = ""
	add(noPath, RunArtifact(563, "results_bmk", false))
	return src
}
