package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// Sign-off integrity through the App (checks/inferencex/RULES.md,
// "Sign-off integrity"): tamper marks, withdrawals and who can author a
// sign-off at all.

const (
	sampleReview    = int64(3900000001)
	sampleReviewKey = "pullrequestreview-3900000001"
	passHeader      = "## ✅✅✅ **Verdict: PASS** ✅✅✅"
	rejectedHeader  = "## ❌❌❌ **REJECTED** ❌❌❌"
	withdrawnHeader = "## ➖ **Sign-off withdrawn** ➖"
)

// header is the line after a verdict comment's marker.
func header(body string) string {
	_, rest, _ := strings.Cut(body, "\n")
	h, _, _ := strings.Cut(rest, "\n")
	return h
}

// status is the newest Verdict commit status on H ("" when none).
func (a *app) status() (state, desc, url string) {
	for _, s := range a.gh.Statuses(e2eRepo, a.head) {
		if s.GetContext() == "codeowner-signoff-verify" {
			return s.GetState(), s.GetDescription(), s.GetTargetURL()
		}
	}
	return "", "", ""
}

// checkRun is the conclusion of key's newest check run on H ("" while it
// is not completed).
func (a *app) checkRun(key string) string {
	var id int64
	concl := ""
	for _, r := range a.gh.CheckRuns(e2eRepo, a.head) {
		if r.GetExternalID() == key+"@"+a.head && r.GetID() > id {
			id, concl = r.GetID(), r.GetConclusion()
		}
	}
	return concl
}

// waitVerdict waits until key's verdict comment announces want (a header)
// and the status has settled to state.
func (a *app) waitVerdict(key, want, state string) fixture.Comment {
	a.t.Helper()
	a.waitFor(key+" "+want+" with status "+state, func() bool {
		st, _, _ := a.status()
		return header(a.verdicts()[key].Body) == want && st == state
	})
	a.settle()
	return a.verdicts()[key]
}

func (a *app) reviewBody() string {
	a.t.Helper()
	rv, _, err := a.gh.Client().PullRequests.GetReview(context.Background(), "SemiAnalysisAI", "InferenceX", e2ePR, sampleReview)
	if err != nil {
		a.t.Fatal(err)
	}
	return rv.GetBody()
}

// reviewEdit is the pull_request_review.edited delivery of an edit of the
// sample review (by amd-owner-a) made by editor.
func (a *app) reviewEdit(body, before, editor string) map[string]any {
	return a.gh.PullRequestReviewEvent("edited", e2eRepo, e2ePR,
		githubtest.EventReview{ID: sampleReview, Body: body, User: "amd-owner-a", Association: "MEMBER", PreviousBody: before}, editor)
}

func (a *app) recheck() {
	a.t.Helper()
	cmd := "/verdict recheck\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: cmd})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, cmd, "maintainer-a", "OWNER"))
}

// A maintainer with write access edits the code owner's review sign-off:
// REJECTED for that key, naming both; the author's own edit clears it.
func TestIntegrityEditByAnotherUser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	body := a.reviewBody()
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, body, "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")

	edited := body + "\nPS: reviewed again.\n"
	a.gh.EditReview(sampleReview, edited, "maintainer-a")
	a.flowDeliver("pull_request_review", a.reviewEdit(edited, body, "maintainer-a"))
	v := a.waitVerdict(sampleReviewKey, rejectedHeader, "failure")
	for _, s := range []string{"edited by @maintainer-a, not by its author @amd-owner-a",
		"the author must re-confirm by editing or posting it again", "由 @maintainer-a 编辑，而非其作者 @amd-owner-a"} {
		if !strings.Contains(v.Body, s) {
			t.Errorf("tampered verdict lacks %q:\n%s", s, v.Body)
		}
	}
	if got := a.checkRun(sampleReviewKey); got != "failure" {
		t.Errorf("check run after the tamper = %q, want failure", got)
	}

	// The mark stays through a recheck ...
	a.recheck()
	a.waitFor("the recheck", func() bool { return a.gh.PathCalls("POST", "/graphql") > 0 })
	a.settle()
	if h := header(a.verdicts()[sampleReviewKey].Body); h != rejectedHeader {
		t.Fatalf("a recheck cleared the tamper mark: %s", h)
	}
	// ... and goes when the author edits the sign-off again.
	a.gh.EditReview(sampleReview, body, "amd-owner-a")
	a.flowDeliver("pull_request_review", a.reviewEdit(body, edited, "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	if got := a.checkRun(sampleReviewKey); got != "success" {
		t.Errorf("check run after the author's edit = %q, want success", got)
	}
}

// The edit webhook never arrives: the body changed since the last authentic
// version, and the edit history names the editor at the next recheck.
func TestIntegrityMissedEditWebhook(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	body := a.reviewBody()
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, body, "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")

	a.gh.EditReview(sampleReview, body+"\n(edited)\n", "maintainer-b")
	a.recheck()
	v := a.waitVerdict(sampleReviewKey, rejectedHeader, "failure")
	if !strings.Contains(v.Body, "edited by @maintainer-b, not by its author @amd-owner-a") {
		t.Errorf("verdict does not name the editor:\n%s", v.Body)
	}
}

// A deleted sign-off: its verdict says withdrawn and the status fails,
// unless another sign-off's verdict stands for the commit; a dismissed
// review is withdrawn the same way.
func TestIntegrityWithdrawal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")

	// A newer sign-off by the other code owner fails Check 5: the shared
	// status follows it, the newest.
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `amd-owner-b`\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	key := fmt.Sprintf("issuecomment-%d", id)
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, body, "amd-owner-b", "MEMBER"))
	a.waitVerdict(key, rejectedHeader, "failure")

	// Deleting it withdraws it; the review's PASS stands again.
	if _, err := a.gh.Client().Issues.DeleteComment(context.Background(), "SemiAnalysisAI", "InferenceX", id); err != nil {
		t.Fatal(err)
	}
	a.flowDeliver("issue_comment", a.flowCommentEvent("deleted", id, body, "amd-owner-b", "MEMBER"))
	v := a.waitVerdict(key, withdrawnHeader, "success")
	for _, s := range []string{"was deleted by @amd-owner-b", "签核已撤回", "> " + rejectedHeader, "Assessed commit: `" + a.head + "`."} {
		if !strings.Contains(v.Body, s) {
			t.Errorf("withdrawn verdict lacks %q:\n%s", s, v.Body)
		}
	}
	reviewURL := fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", e2eRepo, e2ePR, a.verdicts()[sampleReviewKey].ID)
	if _, _, url := a.status(); url != reviewURL {
		t.Errorf("status points at %s, want the review's verdict", url)
	}
	if got := a.checkRun(key); got != "success" {
		t.Errorf("withdrawn sign-off's check run = %q, want the standing verdict's success", got)
	}

	// Dismissing the review withdraws the last sign-off: failure.
	a.gh.DismissReview(sampleReview)
	dismissed := a.reviewEvent("dismissed", sampleReview, a.reviewBody(), "maintainer-a")
	dismissed["review"].(map[string]any)["user"] = a.gh.User("amd-owner-a", "User")
	dismissed["review"].(map[string]any)["state"] = "dismissed"
	a.flowDeliver("pull_request_review", dismissed)
	v = a.waitVerdict(sampleReviewKey, withdrawnHeader, "failure")
	if !strings.Contains(v.Body, "was dismissed by @maintainer-a") || !strings.Contains(v.Body, "> "+passHeader) {
		t.Errorf("dismissed verdict:\n%s", v.Body)
	}
	if _, desc, _ := a.status(); !strings.Contains(desc, "Sign-off withdrawn") {
		t.Errorf("status description %q", desc)
	}
	if got := a.checkRun(sampleReviewKey); got != "failure" {
		t.Errorf("dismissed sign-off's check run = %q, want failure", got)
	}
	// A recheck finds no sign-off left to verify.
	writes := a.settle()
	a.recheck()
	time.Sleep(time.Second)
	a.settle()
	if h := header(a.verdicts()[sampleReviewKey].Body); h != withdrawnHeader {
		t.Errorf("recheck after the withdrawal republished %s (%d writes before)", h, writes)
	}
}

// A drive-by account quoting the phrase is no sign-off, on its own event or
// at a maintainer's bare recheck: the code owner's verdict stands. A bot's
// comment with the phrase is none either, whoever edits it.
func TestIntegrityCandidates(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")

	drive := "As a PR reviewer and CODEOWNER, I have reviewed this and have: nothing.\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-dev-x", Association: "CONTRIBUTOR", Body: drive})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, drive, "amd-dev-x", "CONTRIBUTOR"))
	botBody := "Reminder: " + drive
	bot := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "helper[bot]", UserType: "Bot", Body: botBody})
	a.gh.EditCommentAs(bot, botBody+"(edited)\n", "maintainer-a")
	ev := a.flowCommentEvent("edited", bot, botBody+"(edited)\n", "maintainer-a", "OWNER")
	ev["comment"].(map[string]any)["user"] = a.gh.User("helper[bot]", "Bot")
	a.flowDeliver("issue_comment", ev)

	statuses := countWrites(a.gh.Writes(), "POST", "/statuses/")
	a.recheck()
	a.waitFor("the recheck", func() bool { return countWrites(a.gh.Writes(), "POST", "/statuses/") > statuses })
	a.settle()
	vs := a.verdicts()
	if len(vs) != 1 || header(vs[sampleReviewKey].Body) != passHeader {
		t.Fatalf("verdicts %v; want only the review's PASS", keys(vs))
	}
	if st, _, _ := a.status(); st != "success" {
		t.Errorf("status = %s, want the code owner's success", st)
	}
}

// verdict check has no webhook: it reads the edit history over GraphQL (at
// /graphql, or /api/graphql beside a GHES /api/v3/), and says so in Check
// 0's row when the server cannot tell. (Check 3 cannot reach the published
// pages from here, so only Check 0's row is asserted.)
func TestCheckEditHistory(t *testing.T) {
	const row0 = "Check 0 (CODEOWNER): "
	for _, tt := range []struct {
		name   string
		ghes   bool
		noGQL  bool
		editor string // who edits the review; "" leaves it alone
		want   string
	}{
		{name: "edited by another user", editor: "maintainer-b",
			want: row0 + "FAIL — the sign-off was edited by @maintainer-b, not by its author @amd-owner-a; the author must re-confirm"},
		{name: "edited by another user, GHES", ghes: true, editor: "maintainer-b",
			want: row0 + "FAIL — the sign-off was edited by @maintainer-b, not by its author @amd-owner-a"},
		{name: "edited by its author", editor: "amd-owner-a", want: row0 + "PASS — @amd-owner-a owns"},
		{name: "never edited", want: row0 + "PASS — @amd-owner-a owns"},
		{name: "no GraphQL: a review's editor cannot be determined", noGQL: true, editor: "maintainer-b",
			want: row0 + "PASS — @amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule); other paths default to core. (Whether the sign-off was edited, and by whom, could not be determined: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := tokenSample(t)
			if tt.editor != "" {
				rv, _, err := srv.Client().PullRequests.GetReview(context.Background(), "SemiAnalysisAI", "InferenceX", e2ePR, sampleReview)
				if err != nil {
					t.Fatal(err)
				}
				srv.EditReview(sampleReview, rv.GetBody()+"\n", tt.editor)
			}
			if tt.noGQL {
				srv.AddFault(githubtest.Fault{Path: "graphql$", Status: 404})
			}
			base := srv.BaseURL()
			if tt.ghes {
				base += "api/v3/"
			}
			var out, errb strings.Builder
			code := cmdCheck(context.Background(), []string{"--github-url", base, "--token", samplePAT, "--repo", e2eRepo,
				"--pr", "3412", "--date", "2026-11-20", "--signoff", sampleReviewKey}, &out, &errb)
			if code == exitError {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out.String())
			}
			path := "/graphql"
			if tt.ghes {
				path = "/api/graphql"
			}
			if srv.PathCalls("POST", path) == 0 {
				t.Errorf("no GraphQL query at %s", path)
			}
		})
	}
}
