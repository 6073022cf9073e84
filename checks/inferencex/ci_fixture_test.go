package inferencex_test

import (
	"fmt"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Shared fixtures for the tests of Checks 1, 2 and 14.

const (
	ciHead    = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
	ciOld     = "0ff1ce0ff1ce0ff1ce0ff1ce0ff1ce0ff1ce0ff1"
	ciDefault = "defa017defa017defa017defa017defa017defa0"
	ciRun     = int64(30123456789)
)

var ciT0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// ciCR is a completed check run of workflow run run.
func ciCR(id int64, name, conclusion string, run int64) checks.CheckRun {
	return checks.CheckRun{
		ID: id, Name: name, Status: "completed", Conclusion: conclusion,
		StartedAt:  ciT0.Add(time.Duration(id) * time.Minute),
		DetailsURL: fmt.Sprintf("https://github.com/o/r/actions/runs/%d/job/%d", run, 9000+id),
	}
}

// ciGreen is a passing sweep of run: one benchmark and one eval job of the
// given groups, plus aggregators.
func ciGreen(run int64, bench, eval string) []checks.CheckRun {
	return []checks.CheckRun{
		ciCR(1, bench+" p1 | qwen3.5 fp8 mi355x sgl TP4 c8", "success", run),
		ciCR(2, eval+" p1 | qwen3.5 fp8 mi355x sgl TP4 c8 | eval-only", "success", run),
		ciCR(3, "collect-results", "success", run),
		ciCR(4, "collect-evals", "success", run),
	}
}

func ciCommits(shas ...string) checks.CommitList {
	var cl checks.CommitList
	for i, s := range shas {
		cl.Commits = append(cl.Commits, checks.Commit{SHA: s, Date: ciT0.Add(time.Duration(i) * time.Hour)})
	}
	return cl
}

func ciPR(src *checkstest.Source) *checks.PR {
	return checkstest.NewPR(src, inferencextest.Preset(repo.LegacyLayout()),
		checkstest.Identity("o", "r", 2600),
		checkstest.Commits(ciHead, "ba5e", "ba5e", ciDefault),
		func(pr *checks.PR) { pr.ReviewDate = ciT0 })
}
