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

// GitHub does not promise to deliver events in order, and a delivery can
// come back hours later (a 503 retried, missed-webhook recovery). What a
// sign-off's verdict says must depend on who wrote the body that is there,
// never on the order its deliveries arrived in.

// edit is one edit of a conversation sign-off and the delivery GitHub
// built for it when it happened.
type edit struct {
	editor   string
	body     string
	delivery map[string]any
}

// editAs changes the sign-off's body as editor and returns the edit with
// the delivery GitHub would send for it then (not yet sent).
func (a *app) editAs(id int64, editor, body, before string) edit {
	a.t.Helper()
	a.gh.EditCommentAs(id, body, editor)
	var c fixture.Comment
	for _, x := range a.gh.Comments(e2eRepo, e2ePR) {
		if x.ID == id {
			c = x
		}
	}
	ev := a.gh.IssueCommentEvent("edited", e2eRepo, e2ePR, githubtest.EventComment{ID: id, Body: body, User: c.User,
		Association: "MEMBER", CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, PreviousBody: before}, editor, "User")
	return edit{editor, body, ev}
}

func TestSignOffVerdictIsIndependentOfDeliveryOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	for _, tt := range []struct {
		name string
		// editors edit the owner's sign-off in this order; the last one
		// decides.
		editors []string
		// order delivers the edits' deliveries by index (a repeat is a
		// redelivery under a new delivery ID).
		order      []int
		wantHeader string
		wantState  string
	}{
		{"owner then maintainer, in order", []string{"amd-owner-a", "maintainer-a"}, []int{0, 1}, rejectedHeader, "failure"},
		{"owner then maintainer, the owner's delivery late", []string{"amd-owner-a", "maintainer-a"}, []int{1, 0}, rejectedHeader, "failure"},
		{"owner then maintainer, the owner's redelivered", []string{"amd-owner-a", "maintainer-a"}, []int{0, 1, 0}, rejectedHeader, "failure"},
		{"maintainer then owner, in order", []string{"maintainer-a", "amd-owner-a"}, []int{0, 1}, passHeader, "success"},
		{"maintainer then owner, the maintainer's delivery late", []string{"maintainer-a", "amd-owner-a"}, []int{1, 0}, passHeader, "success"},
		{"maintainer then owner, the maintainer's redelivered", []string{"maintainer-a", "amd-owner-a"}, []int{0, 1, 0}, passHeader, "success"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := startApp(t)
			body := a.reviewBody() // the sample's passing sign-off text
			id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-owner-a", Association: "MEMBER", Body: body})
			key := fmt.Sprintf("issuecomment-%d", id)
			a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, body, "amd-owner-a", "MEMBER"))
			a.waitVerdict(key, passHeader, "success")

			var edits []edit
			prev := body
			for i, who := range tt.editors {
				next := body + fmt.Sprintf("\nEdit %d by %s.\n", i+1, who)
				edits = append(edits, a.editAs(id, who, next, prev))
				prev = next
			}
			for _, i := range tt.order {
				a.flowDeliver("issue_comment", edits[i].delivery)
				// Each delivery is verified before the next arrives, the
				// worst case: a late one finds the newer verdict there.
				a.waitFor("the delivery's verification", func() bool {
					return strings.Contains(a.verdicts()[key].Body, "Assessed commit")
				})
				a.settle()
			}
			v := a.verdicts()[key]
			st, desc, _ := a.status()
			if header(v.Body) != tt.wantHeader || st != tt.wantState {
				t.Fatalf("after deliveries %v: %s with status %s (%s), want %s with %s\n%s", tt.order, header(v.Body), st, desc, tt.wantHeader, tt.wantState, v.Body)
			}
			if tt.wantState == "failure" && !strings.Contains(v.Body, "edited by @maintainer-a, not by its author @amd-owner-a") {
				t.Errorf("the verdict does not name the editor:\n%s", v.Body)
			}
		})
	}
}

// A sign-off is given for the code its author saw. After a push, a recheck
// (by anyone) of the same sign-off does not put success on the new head:
// the verdict says the author must re-confirm, and their edit does.
func TestSignOffFromBeforeAPushNeverPassesTheNewHead(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	h1 := a.head
	body := a.reviewBody()
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, body, "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")

	h2 := a.gh.Push(e2eRepo, e2ePR, "push-1")
	a.flowDeliver("pull_request", a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, h1, "amd-dev-x"))
	a.waitFor("the sign-off-needed status on the pushed head", func() bool { return a.statusOn(h2) != nil })
	a.settle()
	a.head = h2
	a.recheck()
	v := a.waitVerdict(sampleReviewKey, rejectedHeader, "failure")
	for _, s := range []string{"the sign-off was given for commit `" + h1[:12] + "`", "@amd-owner-a must re-confirm it", "签核针对的是提交"} {
		if !strings.Contains(v.Body, s) {
			t.Errorf("the verdict lacks %q:\n%s", s, v.Body)
		}
	}
	// The author's edit gives it for the new head.
	edited := body + "\nRe-checked after the push.\n"
	a.gh.EditReview(sampleReview, edited, "amd-owner-a")
	a.flowDeliver("pull_request_review", a.reviewEdit(edited, body, "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
}

// A user who could not sign off posts the phrase and deletes it at once:
// the passing status stays; nothing is published for a sign-off that is
// gone before its verification ran.
func TestDeletedCandidateChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	writes := len(a.repoWrites())

	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "amd-dev-x", Association: "CONTRIBUTOR", Body: body})
	if _, err := a.gh.Client().Issues.DeleteComment(context.Background(), "SemiAnalysisAI", "InferenceX", id); err != nil {
		t.Fatal(err)
	}
	calls := a.gh.PathCalls("GET", fmt.Sprintf("/repos/%s/issues/comments/%d", e2eRepo, id))
	a.flowDeliver("issue_comment", a.flowCommentEvent("created", id, body, "amd-dev-x", "CONTRIBUTOR"))
	a.waitFor("the candidate read", func() bool {
		return a.gh.PathCalls("GET", fmt.Sprintf("/repos/%s/issues/comments/%d", e2eRepo, id)) > calls
	})
	a.settle()
	a.flowDeliver("issue_comment", a.flowCommentEvent("deleted", id, body, "amd-dev-x", "CONTRIBUTOR"))
	a.settle()
	time.Sleep(500 * time.Millisecond)
	a.settle()
	if st, desc, _ := a.status(); st != "success" {
		t.Fatalf("status after a deleted drive-by candidate: %s (%s)", st, desc)
	}
	for _, w := range a.repoWrites()[writes:] {
		// Deleting the test's own comment is the only write expected.
		if w.Method != "DELETE" {
			t.Errorf("a deleted candidate caused %s %s", w.Method, w.Path)
		}
	}
}
