package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// minimizations counts the (un)minimizeComment mutations GitHub answered.
func (a *app) minimizations() (hide, show int) {
	for _, w := range a.gh.Writes() {
		body := string(w.Body)
		switch {
		case !strings.HasSuffix(w.Path, "/graphql"):
		case strings.Contains(body, "unminimizeComment("):
			show++
		case strings.Contains(body, "minimizeComment("):
			hide++
		}
	}
	return hide, show
}

// hiddenComments are the comments hidden on the PR, by ID, with why.
func (a *app) hiddenComments() map[int64]string {
	out := map[int64]string{}
	for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
		if why := a.gh.Minimized(c.ID); why != "" {
			out[c.ID] = why
		}
	}
	return out
}

// A verdict superseded by a newer sign-off's is hidden as outdated, once,
// whatever is redelivered or restarted; withdrawing the newer sign-off
// shows the older verdict again and hides the withdrawn one. A person's
// comment is never hidden.
func TestOutdatedVerdictsHidden(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	if h := a.hiddenComments(); len(h) != 0 {
		t.Fatalf("hidden after the first verdict: %v", h)
	}

	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `amd-owner-b`\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	key := fmt.Sprintf("issuecomment-%d", id)
	created := a.flowCommentEvent("created", id, body, "amd-owner-b", "MEMBER")
	a.flowDeliver("issue_comment", created)
	a.waitVerdict(key, rejectedHeader, "failure")
	a.settle()
	older := a.verdicts()[sampleReviewKey].ID
	if h := a.hiddenComments(); len(h) != 1 || h[older] != "OUTDATED" {
		t.Fatalf("after a newer sign-off's verdict, hidden = %v; want the review's verdict %d as OUTDATED", h, older)
	}

	// The same delivery again (GitHub's redelivery), a recheck and a
	// restart followed by another recheck change nothing more.
	a.flowDeliver("issue_comment", created)
	a.recheck()
	a.settle()
	a.restart()
	a.recheck()
	a.settle()
	if hide, show := a.minimizations(); hide != 1 || show != 0 {
		t.Errorf("after redelivery, rechecks and a restart: %d hidden, %d shown; want 1 and 0", hide, show)
	}

	// Withdrawing the newer sign-off: the review's PASS stands again.
	if _, err := a.gh.Client().Issues.DeleteComment(context.Background(), "SemiAnalysisAI", "InferenceX", id); err != nil {
		t.Fatal(err)
	}
	a.flowDeliver("issue_comment", a.flowCommentEvent("deleted", id, body, "amd-owner-b", "MEMBER"))
	a.waitVerdict(key, withdrawnHeader, "success")
	a.settle()
	withdrawn := a.verdicts()[key].ID
	if h := a.hiddenComments(); len(h) != 1 || h[withdrawn] != "OUTDATED" {
		t.Errorf("after the withdrawal, hidden = %v; want only the withdrawn verdict %d", h, withdrawn)
	}
	if hide, show := a.minimizations(); hide != 2 || show != 1 {
		t.Errorf("after the withdrawal: %d hidden, %d shown; want 2 and 1", hide, show)
	}
	for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
		if !strings.HasSuffix(c.User, "[bot]") && a.gh.Minimized(c.ID) != "" {
			t.Errorf("a person's comment (%s, %d) was hidden", c.User, c.ID)
		}
	}
}

// minimize_outdated: false leaves every verdict shown.
func TestOutdatedVerdictsKeptWhenDisabled(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppWith(t, func(fx *fixture.Fixture) {
		fx.Tree("main").Put(".github/verdict.yml", "minimize_outdated: false\n")
	})
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `amd-owner-b`\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, body, "amd-owner-b", "MEMBER"))
	a.waitVerdict(fmt.Sprintf("issuecomment-%d", id), rejectedHeader, "failure")
	a.settle()
	if hide, show := a.minimizations(); hide+show != 0 {
		t.Errorf("minimize_outdated: false, yet %d hidden and %d shown", hide, show)
	}
}

// The invalid-configuration notice is hidden as outdated once a verdict
// shows the configuration reads again, once whatever is redelivered, and
// shown again when the configuration breaks again.
func TestConfigNoticeHiddenOnceFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	// The configuration is read on the default branch, here "trunk" (the
	// fixture's commit named "main" would shadow a branch of that name).
	a := startAppWith(t, func(fx *fixture.Fixture) {
		fx.Tree("broken").Base = "main"
		fx.Tree("broken").Put(".github/verdict.yml", "sign_off_phrase: As a PR reviewer\n")
		r := fx.Repo(e2eRepo)
		r.Commit("main-broken", "broken")
		r.DefaultBranch = "trunk"
		r.Branch("trunk", "main-broken")
	})
	notice := func() fixture.Comment {
		for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
			if strings.HasPrefix(c.Body, configErrorMarker+"\n") {
				return c
			}
		}
		return fixture.Comment{}
	}
	review := a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a")
	a.flowDeliver("pull_request_review", review)
	a.waitFor("the invalid-configuration notice", func() bool { return notice().ID != 0 })
	a.settle()

	a.gh.MoveBranch(e2eRepo, "trunk", "main") // fixed: the sample's own configuration
	a.recheck()
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	a.settle()
	if why := a.gh.Minimized(notice().ID); why != "OUTDATED" {
		t.Fatalf("after the fix the notice is hidden as %q, want OUTDATED", why)
	}
	a.recheck()
	a.settle()
	if hide, show := a.minimizations(); hide != 1 || show != 0 {
		t.Errorf("after a second verdict: %d hidden, %d shown; want 1 and 0", hide, show)
	}

	a.gh.MoveBranch(e2eRepo, "trunk", "main-broken")
	a.recheck()
	a.waitFor("the notice shown again", func() bool { return a.gh.Minimized(notice().ID) == "" })
	if hide, show := a.minimizations(); hide != 1 || show != 1 {
		t.Errorf("after breaking it again: %d hidden, %d shown; want 1 and 1", hide, show)
	}
}
