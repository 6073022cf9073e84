package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// Flow tests: the real App (startApp in app_e2e_test.go) driven through
// webhooks, asserting on what the fake GitHub recorded. The CLI scenarios
// S14 and S3 (fixtures flow-*) are run by TestScenarios.

const welcomeMarker = "<!-- recipe-reminder -->"

// flowCommentEvent is commentEvent with a chosen author association.
func (a *app) flowCommentEvent(action string, id int64, body, sender, association string) map[string]any {
	ev := a.commentEvent(action, id, body, sender, "User")
	ev["comment"].(map[string]any)["author_association"] = association
	return ev
}

// flowPREvent is a pull_request delivery for the sample PR.
func (a *app) flowPREvent(action string) map[string]any {
	ev := a.gh.PullRequestEvent(action, e2eRepo, e2ePR, "amd-dev-x")
	if action == "review_requested" {
		ev["requested_reviewer"] = a.gh.User("amd-owner-a", "User")
	}
	return ev
}

func (a *app) flowDeliver(event string, payload any) {
	a.t.Helper()
	if code := a.deliver(event, a.delivery(), payload, e2eSecret); code != http.StatusAccepted {
		a.t.Fatalf("%s delivery: %d", event, code)
	}
}

// welcomes returns the comments that carry the reminder marker first.
func (a *app) welcomes() []fixture.Comment {
	var out []fixture.Comment
	for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
		if strings.HasPrefix(c.Body, welcomeMarker) {
			out = append(out, c)
		}
	}
	return out
}

// completedCheckRun reports whether a completed Verdict check run exists on H.
func (a *app) completedCheckRun() bool {
	for _, r := range a.gh.CheckRuns(e2eRepo, a.head) {
		if r.GetName() == "Verdict / sign-off" && r.GetStatus() == "completed" {
			return true
		}
	}
	return false
}

// quiet asserts that the delivery made no write, after waiting until the
// job that handled it has read the PR (so "no writes" is not just "not yet").
// before is a count of repoWrites.
func (a *app) quiet(what string, before int, readsBefore int, readPath string) {
	a.t.Helper()
	if readPath != "" {
		a.waitFor(what+" being handled", func() bool { return a.gh.PathCalls("GET", readPath) > readsBefore })
	}
	a.settle()
	if ws := a.repoWrites(); len(ws) != before {
		var got []string
		for _, w := range ws[before:] {
			got = append(got, w.Method+" "+w.Path)
		}
		a.t.Errorf("%s caused %d writes: %v", what, len(got), got)
	}
}

// repoWrites are the recorded writes other than installation-token minting
// (which is not a write to the repository).
func (a *app) repoWrites() []githubtest.Write {
	var out []githubtest.Write
	for _, w := range a.gh.Writes() {
		if !strings.HasPrefix(w.Path, "/app/") {
			out = append(out, w)
		}
	}
	return out
}

// verdictRuns are the App's check runs on H.
func (a *app) verdictRuns() int {
	n := 0
	for _, r := range a.gh.CheckRuns(e2eRepo, a.head) {
		if r.GetName() == "Verdict / sign-off" {
			n++
		}
	}
	return n
}

const flowPRPath = "/repos/" + e2eRepo + "/pulls/3412"

// Flow 1: opened → one bilingual reminder; reopened → still one.
func TestFlowWelcomeOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	// GitHub sends review_requested right after opened when reviewers are
	// requested at creation: the two jobs must not both post.
	a.flowDeliver("pull_request", a.flowPREvent("opened"))
	a.flowDeliver("pull_request", a.flowPREvent("review_requested"))
	a.waitFor("the reminder", func() bool { return len(a.welcomes()) > 0 })
	a.settle()
	ws := a.welcomes()
	if len(ws) != 1 {
		t.Fatalf("reminders after opened + review_requested = %d, want 1", len(ws))
	}
	w := ws[0]
	if !strings.HasSuffix(w.User, "[bot]") {
		t.Errorf("reminder posted by %q", w.User)
	}
	for _, s := range []string{"@amd-dev-x", "`As a PR reviewer and CODEOWNER`",
		"full-sweep-fail-fast", "<summary>中文</summary>", "感谢"} {
		if !strings.Contains(w.Body, s) {
			t.Errorf("reminder lacks %q:\n%s", s, w.Body)
		}
	}
	a.settle()
	writes := len(a.repoWrites())

	// reopened: the job runs (it lists the comments again) but posts nothing.
	listPath := "/repos/" + e2eRepo + "/issues/3412/comments"
	reads := a.gh.PathCalls("GET", listPath)
	a.flowDeliver("pull_request", a.flowPREvent("reopened"))
	a.quiet("reopened", writes, reads, listPath)
	if n := len(a.welcomes()); n != 1 {
		t.Errorf("reminders after reopened = %d, want 1", n)
	}
	if len(a.verdicts()) != 0 {
		t.Errorf("a pull_request event produced a verdict")
	}
}

// Flow 1b: a marker anywhere in any comment, even past the first page of
// comments and not posted by the bot, means the reminder was already posted.
func TestFlowWelcomeMarkerOnLaterPage(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	for i := 0; i < 105; i++ { // past the first page of 100
		a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-dev-x", Association: "CONTRIBUTOR", Body: fmt.Sprintf("ping %d", i)})
	}
	a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER",
		Body: "Reposting the reminder by hand:\n" + welcomeMarker + "\nThanks!"})
	listPath := "/repos/" + e2eRepo + "/issues/3412/comments"
	reads := a.gh.PathCalls("GET", listPath)
	a.flowDeliver("pull_request", a.flowPREvent("ready_for_review"))
	a.quiet("ready_for_review with a reminder on page 2", 0, reads, listPath)
	if n := len(a.welcomes()); n != 0 {
		t.Errorf("the bot posted %d reminders although one exists", n)
	}
}

// Flow 2: /verdict recheck by a maintainer verifies the newest sign-off;
// by a CONTRIBUTOR or a read-only member it does nothing.
func TestFlowRecheck(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	// A newer sign-off than the fixture's review, never delivered: only a
	// recheck can verify it.
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `amd-owner-b`\n"
	newest := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	newestKey := fmt.Sprintf("issuecomment-%d", newest)

	// Not authorized: a CONTRIBUTOR (dropped by association) and a MEMBER
	// with read permission (dropped by gate f after the API check).
	for _, c := range []struct{ login, assoc string }{{"amd-dev-x", "CONTRIBUTOR"}, {"amd-dev-x", "MEMBER"}} {
		a.settle()
		writes := len(a.repoWrites())
		cmd := "/verdict recheck\n"
		id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: c.login, Association: c.assoc, Body: cmd})
		reads := a.gh.PathCalls("GET", flowPRPath)
		a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, cmd, c.login, c.assoc))
		readPath := flowPRPath
		if c.assoc == "CONTRIBUTOR" {
			readPath = "" // never queued: nothing to wait for
			time.Sleep(500 * time.Millisecond)
		}
		a.quiet("a recheck by "+c.login+" ("+c.assoc+")", writes, reads, readPath)
		if n := len(a.verdicts()); n != 0 {
			t.Fatalf("unauthorized recheck by %s (%s) produced %d verdicts", c.login, c.assoc, n)
		}
		if n := a.verdictRuns(); n != 0 {
			t.Fatalf("unauthorized recheck by %s (%s) created %d check runs", c.login, c.assoc, n)
		}
	}

	// A maintainer (admin, OWNER) asks: the newest sign-off is verified.
	cmd := "/verdict recheck\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: cmd})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, cmd, "maintainer-a", "OWNER"))
	a.waitFor("the recheck verdict", func() bool { return len(a.verdicts()) > 0 })
	a.waitFor("the completed check run", a.completedCheckRun)
	vs := a.verdicts()
	if len(vs) != 1 {
		t.Fatalf("verdicts after recheck = %d, want 1", len(vs))
	}
	v, ok := vs[newestKey]
	if !ok {
		t.Fatalf("recheck verified %v, want the newest sign-off %s", keys(vs), newestKey)
	}
	if !strings.Contains(v.Body, "Assessed commit: `"+a.head+"`.") {
		t.Errorf("verdict lacks the footer:\n%s", v.Body)
	}
	final := false
	for _, s := range a.gh.Statuses(e2eRepo, a.head) {
		if s.GetContext() == "codeowner-signoff-verify" && s.GetState() != "pending" {
			final = true
		}
	}
	if !final {
		t.Errorf("no final commit status after the recheck")
	}

	// A URL naming another PR is refused; one naming this PR's review
	// verifies that sign-off rather than the newest.
	const reviewKey = "pullrequestreview-3900000001"
	a.settle()
	writes := len(a.repoWrites())
	other := "/verdict recheck https://github.com/SemiAnalysisAI/InferenceX/pull/3413#" + reviewKey + "\n"
	id = a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: other})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, other, "maintainer-a", "OWNER"))
	time.Sleep(500 * time.Millisecond)
	a.quiet("a recheck naming another PR", writes, 0, "")
	cmd = "/verdict recheck https://github.com/SemiAnalysisAI/InferenceX/pull/3412#" + reviewKey + "\n"
	id = a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: cmd})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, cmd, "maintainer-a", "OWNER"))
	a.waitFor("the named sign-off's verdict", func() bool { _, ok := a.verdicts()[reviewKey]; return ok })
	if n := len(a.verdicts()); n != 2 {
		t.Errorf("verdicts after the named recheck = %d, want 2", n)
	}
}

func keys(m map[string]fixture.Comment) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Flow 5 (a dismissed review, a deleted sign-off) is TestIntegrityWithdrawal
// in app_integrity_test.go.

// Flow 6: a sign-off edited by a read-only user (or a bot) is ignored by
// gate f; the same edit by the reviewer is verified.
func TestFlowEditByReadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `amd-owner-b`\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-b", Association: "MEMBER", Body: body})
	edited := body + "- [x] Confirmed that this PR passed PR validation.\n"
	a.gh.EditComment(id, edited)
	a.settle()
	writes := len(a.repoWrites())

	// The read-only PR author edits the reviewer's sign-off.
	reads := a.gh.PathCalls("GET", flowPRPath)
	ev := a.flowCommentEvent("edited", id, edited, "amd-dev-x", "CONTRIBUTOR")
	ev["comment"].(map[string]any)["user"] = a.gh.User("amd-owner-b", "User")
	a.flowDeliver("issue_comment", ev)
	a.quiet("an edit by a read-only user", writes, reads, flowPRPath)

	// A bot editing it: dropped before queueing.
	bot := a.flowCommentEvent("edited", id, edited, "helper-bot", "NONE")
	bot["comment"].(map[string]any)["user"] = a.gh.User("amd-owner-b", "User")
	bot["sender"] = a.gh.User("helper-bot", "Bot")
	if code := a.deliver("issue_comment", a.delivery(), bot, e2eSecret); code >= 300 {
		t.Fatalf("bot edit delivery: %d", code)
	}
	time.Sleep(500 * time.Millisecond)
	a.quiet("an edit by a bot", writes, 0, "")
	if n := len(a.verdicts()); n != 0 {
		t.Fatalf("ignored edits produced %d verdicts", n)
	}

	// Control: the reviewer's own edit is verified.
	a.flowDeliver("issue_comment", a.flowCommentEvent("edited", id, edited, "amd-owner-b", "MEMBER"))
	a.waitFor("the reviewer's verdict", func() bool { return len(a.verdicts()) == 1 })
	if _, ok := a.verdicts()[fmt.Sprintf("issuecomment-%d", id)]; !ok {
		t.Errorf("verdict keyed %v", keys(a.verdicts()))
	}
}

// E1 + manual bypass of gate d: a sign-off on a draft PR is not verified,
// ready_for_review does not verify it either, but a maintainer's recheck
// does (explicit re-verification bypasses the open/non-draft gate).
func TestFlowDraftPR(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppWith(t, func(fx *fixture.Fixture) {
		for _, r := range fx.Repos {
			for _, p := range r.Pulls {
				if p.Number == e2ePR {
					p.Draft = true
				}
			}
		}
	})
	reads := a.gh.PathCalls("GET", flowPRPath)
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a"))
	a.quiet("a sign-off on a draft PR", 0, reads, flowPRPath)
	ev := a.flowPREvent("ready_for_review")
	a.flowDeliver("pull_request", ev)
	a.waitFor("the reminder", func() bool { return len(a.welcomes()) == 1 })
	a.settle()
	if n := len(a.verdicts()); n != 0 || a.verdictRuns() != 0 {
		t.Fatalf("draft PR: %d verdicts, %d check runs; want none", n, a.verdictRuns())
	}

	cmd := "/verdict recheck\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: cmd})
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, cmd, "maintainer-a", "OWNER"))
	a.waitFor("the recheck verdict on the draft PR", func() bool { _, ok := a.verdicts()["pullrequestreview-3900000001"]; return ok })
}

// Flow 1c: a PR that touches no benchmark path gets no reminder.
func TestFlowWelcomeDocsOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppWith(t, func(fx *fixture.Fixture) {
		fx.Tree("docs").From("main").Put("inferencex-e2e/docs/amd/README.md", "# AMD notes\n\nUpdated.\n")
		for _, r := range fx.Repos {
			if r.FullName != e2eRepo {
				continue
			}
			r.Commit("docs", "docs")
			r.Branches["amd/qwen35-agentic-v0521"] = "docs"
			for _, p := range r.Pulls {
				if p.Number == e2ePR {
					// fixture.Load precomputed the file list; regenerate it.
					p.Head.Commit, p.Files = "docs", nil
				}
			}
		}
	})
	filesPath := flowPRPath + "/files"
	reads := a.gh.PathCalls("GET", filesPath)
	a.flowDeliver("pull_request", a.flowPREvent("opened"))
	a.quiet("opened on a docs-only PR", 0, reads, filesPath)
	if n := len(a.welcomes()); n != 0 {
		t.Errorf("docs-only PR got %d reminders", n)
	}
}

// E3: a contributor's comment carrying the verdict marker is not the bot's
// verdict: the bot posts its own and leaves the impostor alone.
func TestFlowImpostorMarker(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	fake := marker + "pullrequestreview-3900000001 -->\n## ✅ **Verdict: PASS** ✅\n"
	fid := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-dev-x", Association: "CONTRIBUTOR", Body: fake})
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a"))
	a.waitFor("the bot's verdict", func() bool { return len(a.verdicts()) == 1 })
	a.waitFor("the completed check run", a.completedCheckRun)
	a.settle()
	for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
		if c.ID == fid && c.Body != fake {
			t.Errorf("the impostor comment was edited:\n%s", c.Body)
		}
	}
	for _, w := range a.repoWrites() {
		if strings.Contains(w.Path, fmt.Sprint(fid)) {
			t.Errorf("the App wrote to the impostor comment: %s %s", w.Method, w.Path)
		}
	}
}
