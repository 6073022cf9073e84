package main

import (
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// groupCheck is Verdict's check run and status on a merge group's commit
// (nil, "" while there are none).
func (a *app) groupCheck(sha string) (*github.CheckRun, string) {
	var run *github.CheckRun
	for _, r := range a.gh.CheckRuns(e2eRepo, sha) {
		if r.GetExternalID() == "merge-group@"+sha && (run == nil || r.GetID() > run.GetID()) {
			run = &r
		}
	}
	state := ""
	for _, s := range a.gh.Statuses(e2eRepo, sha) {
		if s.GetContext() == "codeowner-signoff-verify" {
			state = s.GetState()
			break
		}
	}
	return run, state
}

// waitGroup waits until the group's check run is completed and returns it
// with the status.
func (a *app) waitGroup(sha string) (*github.CheckRun, string) {
	a.t.Helper()
	a.waitFor("Verdict's check on merge group "+sha[:7], func() bool {
		run, state := a.groupCheck(sha)
		return run.GetStatus() == "completed" && state != "" && state != "pending"
	})
	return a.groupCheck(sha)
}

// A merge queue through serve: a PASS PR's group on the commit its verdict
// read the rules at succeeds without verifying again; on a base whose
// CODEOWNERS no longer let the signer own the change it fails naming the
// PR and the row; on a base changed elsewhere it verifies again and
// succeeds; a destroyed group's check is cancelled.
func TestMergeQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppWith(t, func(fx *fixture.Fixture) {
		owners := string(fx.Tree("main").Resolved()[".github/CODEOWNERS"])
		fx.Trees["owners-changed"] = &fixture.Tree{Base: "main", Files: map[string]string{
			".github/CODEOWNERS": strings.Replace(owners, "amd-master.yaml @amd-owner-a @amd-owner-b", "amd-master.yaml @amd-owner-b", 1)}}
		fx.Trees["readme-changed"] = &fixture.Tree{Base: "main", Files: map[string]string{"README.md": "moved on\n"}}
		r := fx.Repo(e2eRepo)
		r.Commit("main-owners", "owners-changed")
		r.Commit("main-readme", "readme-changed")
	})
	// Queued before any verdict stands (Verdict was down, say): the PR's
	// sign-off is verified for the group, with nothing published on it.
	ref0, sha0 := a.gh.AddMergeGroup(e2eRepo, e2ePR, "main", "group-0")
	a.flowDeliver("merge_group", a.gh.MergeGroupEvent("checks_requested", e2eRepo, ref0, ""))
	if run, state := a.waitGroup(sha0); run.GetConclusion() != "success" || state != "success" {
		t.Fatalf("group before any verdict: check run %s, status %s\n%s", run.GetConclusion(), state, run.GetOutput().GetSummary())
	}
	if len(a.verdicts()) != 0 {
		t.Error("checking a merge group published a verdict on the PR")
	}

	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	a.settle()

	// The base has not moved: the standing PASS is the answer.
	ref, sha := a.gh.AddMergeGroup(e2eRepo, e2ePR, "main", "group-1")
	a.gh.ResetCounts()
	a.flowDeliver("merge_group", a.gh.MergeGroupEvent("checks_requested", e2eRepo, ref, ""))
	run, state := a.waitGroup(sha)
	if run.GetConclusion() != "success" || state != "success" {
		t.Fatalf("group on the assessed base: check run %s, status %s\n%s", run.GetConclusion(), state, run.GetOutput().GetSummary())
	}
	if !strings.Contains(run.GetOutput().GetSummary(), "#3412") || !strings.Contains(run.GetOutput().GetSummary(), "中文") {
		t.Errorf("summary:\n%s", run.GetOutput().GetSummary())
	}
	for uri := range a.gh.URICallCounts() {
		if strings.Contains(uri, "/contents/") || strings.Contains(uri, "/git/trees/") {
			t.Errorf("the group on the assessed base read %s: it should rely on the standing verdict", uri)
		}
	}

	// CODEOWNERS changed underneath: amd-owner-a no longer owns the config.
	a.gh.MoveBranch(e2eRepo, "main", "main-owners")
	ref, sha = a.gh.AddMergeGroup(e2eRepo, e2ePR, "main-owners", "group-2")
	a.flowDeliver("merge_group", a.gh.MergeGroupEvent("checks_requested", e2eRepo, ref, ""))
	run, state = a.waitGroup(sha)
	sum := run.GetOutput().GetSummary()
	if run.GetConclusion() != "failure" || state != "failure" || !strings.Contains(sum, "#3412") || !strings.Contains(sum, "Check 0") {
		t.Fatalf("group on a base whose CODEOWNERS changed: check run %s, status %s\n%s", run.GetConclusion(), state, sum)
	}
	// The PR's own verdict is untouched: nothing was published on it.
	if h := header(a.verdicts()[sampleReviewKey].Body); h != passHeader {
		t.Errorf("the PR's verdict became %s", h)
	}

	// Dequeued: the group's check is cancelled.
	a.flowDeliver("merge_group", a.gh.MergeGroupEvent("destroyed", e2eRepo, ref, "dequeued"))
	a.waitFor("the destroyed group's check run cancelled", func() bool {
		run, _ := a.groupCheck(sha)
		return run.GetConclusion() == "cancelled"
	})

	// A base changed elsewhere: verified again with its rules, success.
	a.gh.MoveBranch(e2eRepo, "main", "main-readme")
	ref, sha = a.gh.AddMergeGroup(e2eRepo, e2ePR, "main-readme", "group-3")
	a.flowDeliver("merge_group", a.gh.MergeGroupEvent("checks_requested", e2eRepo, ref, ""))
	run, state = a.waitGroup(sha)
	if run.GetConclusion() != "success" || state != "success" || !strings.Contains(run.GetOutput().GetSummary(), "verified again") {
		t.Fatalf("group on a base changed elsewhere: check run %s, status %s\n%s", run.GetConclusion(), state, run.GetOutput().GetSummary())
	}

	// A group queued behind that one is built on its commit, which no
	// branch names: its rules are read there, and the PR ahead is part of
	// it.
	behind, behindSHA := a.gh.AddMergeGroup(e2eRepo, e2ePR, sha, "group-4")
	a.flowDeliver("merge_group", a.gh.MergeGroupEvent("checks_requested", e2eRepo, behind, ""))
	run, state = a.waitGroup(behindSHA)
	if run.GetConclusion() != "success" || state != "success" || !strings.Contains(run.GetOutput().GetSummary(), sha[:7]) {
		t.Fatalf("group behind another: check run %s, status %s\n%s", run.GetConclusion(), state, run.GetOutput().GetSummary())
	}
}
