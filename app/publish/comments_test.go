package publish

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks"
)

func TestFinishCreatesThenReplayWritesNothing(t *testing.T) {
	e := newEnv(t)
	pub, err := e.publish(keyA, e.head, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Action != Created || !pub.Wrote || pub.CommentURL == "" {
		t.Fatalf("first publish = %+v", pub)
	}
	e.s.ResetCounts()
	again, err := e.publish(keyA, e.head, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Action != Unchanged || again.Wrote || again.CommentID != pub.CommentID {
		t.Fatalf("replay = %+v", again)
	}
	if w := e.commentWrites(); len(w) != 0 {
		t.Errorf("replay wrote comments: %+v", w)
	}
	if n := len(e.s.Comments(fullName, prNum)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
}

func TestEditTouchesOnlyItsOwnSignOff(t *testing.T) {
	e := newEnv(t)
	markerA := render.Marker(keyA)
	// Spoofs: a human pasting our marker, a bot comment with the marker not
	// at the start, and another sign-off's verdict.
	spoofHuman := e.s.AddComment(fullName, prNum, fixture.Comment{User: "mallory", Body: markerA + "\n## ✅✅✅ **Verdict: PASS** ✅✅✅\n"})
	spoofInner := e.s.AddComment(fullName, prNum, fixture.Comment{User: bot, UserType: "Bot", Body: "quoted:\n" + markerA + "\n"})
	if _, err := e.publish(keyB, e.head, nil); err != nil {
		t.Fatal(err)
	}
	first, err := e.publish(keyA, e.head, nil)
	if err != nil || first.Action != Created {
		t.Fatalf("publish A = %+v, %v", first, err)
	}
	// A spoof posted after our verdict: taking "the last comment with the
	// marker" without the author check would edit this one.
	spoofLate := e.s.AddComment(fullName, prNum, fixture.Comment{User: "mallory", Body: markerA + "\nfake\n"})
	before := map[int64]string{}
	for _, c := range e.s.Comments(fullName, prNum) {
		before[c.ID] = c.Body
	}

	e.s.ResetCounts()
	second, err := e.publish(keyA, e.head, map[int]checks.Status{4: checks.Warn})
	if err != nil {
		t.Fatal(err)
	}
	if second.Action != Updated || second.CommentID != first.CommentID {
		t.Fatalf("edit = %+v, want update of %d", second, first.CommentID)
	}
	w := e.commentWrites()
	if len(w) != 1 || w[0].Method != http.MethodPatch || !strings.HasSuffix(w[0].Path, fmt.Sprint(first.CommentID)) {
		t.Fatalf("writes = %+v, want one PATCH of %d", w, first.CommentID)
	}
	after := e.s.Comments(fullName, prNum)
	if len(after) != len(before) {
		t.Fatalf("%d comments after edit, %d before", len(after), len(before))
	}
	for _, c := range after {
		if c.ID != first.CommentID && c.Body != before[c.ID] {
			t.Errorf("comment %d (%s) was changed", c.ID, c.User)
		}
	}
	for _, id := range []int64{spoofHuman, spoofInner, spoofLate} {
		found := false
		for _, c := range after {
			found = found || c.ID == id
		}
		if !found {
			t.Errorf("spoof comment %d disappeared", id)
		}
	}
}

func TestUpsertTakesTheLastOwnComment(t *testing.T) {
	e := newEnv(t)
	b := e.body(keyA, e.head, nil).Markdown()
	m := render.Marker(keyA)
	old := e.s.AddComment(fullName, prNum, fixture.Comment{User: "GitHub-Actions[bot]", Body: m + "\nold\n"})
	last := e.s.AddComment(fullName, prNum, fixture.Comment{User: bot, Body: m + "\nolder run\n"})
	pub, err := e.p.Upsert(e.ctx, owner, name, prNum, m, b)
	if err != nil {
		t.Fatal(err)
	}
	if pub.CommentID != last || pub.Action != Updated {
		t.Fatalf("upsert = %+v, want update of %d (not %d)", pub, last, old)
	}
}

func TestUpsertPaginates(t *testing.T) {
	e := newEnv(t)
	m := render.Marker(keyA)
	for i := range 250 {
		e.s.AddComment(fullName, prNum, fixture.Comment{User: "someone", Body: fmt.Sprintf("comment %d", i)})
	}
	own := e.s.AddComment(fullName, prNum, fixture.Comment{User: bot, Body: m + "\nstale\n"})
	b := e.body(keyA, e.head, nil).Markdown()
	pub, err := e.p.Upsert(e.ctx, owner, name, prNum, m, b)
	if err != nil {
		t.Fatal(err)
	}
	if pub.CommentID != own || pub.Action != Updated {
		t.Fatalf("upsert = %+v, want update of %d on page 3", pub, own)
	}
}

func TestPatch404Recreates(t *testing.T) {
	e := newEnv(t)
	first, err := e.publish(keyA, e.head, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.s.AddFault(githubtest.Fault{Method: http.MethodPatch, Path: `/issues/comments/[0-9]+$`, Status: http.StatusNotFound, Times: 1})
	second, err := e.publish(keyA, e.head, map[int]checks.Status{15: checks.Warn})
	if err != nil {
		t.Fatal(err)
	}
	if second.Action != Recreated || !second.Wrote || second.CommentID == first.CommentID {
		t.Fatalf("after 404 = %+v", second)
	}
	if sts := e.s.Statuses(fullName, e.head); sts[0].GetTargetURL() != second.CommentURL {
		t.Errorf("status points at %s, want the recreated comment %s", sts[0].GetTargetURL(), second.CommentURL)
	}
}

func TestPatchErrorsPropagate(t *testing.T) {
	for _, code := range []int{http.StatusForbidden, http.StatusUnprocessableEntity, http.StatusInternalServerError} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			e := newEnv(t)
			if _, err := e.publish(keyA, e.head, nil); err != nil {
				t.Fatal(err)
			}
			e.s.AddFault(githubtest.Fault{Method: http.MethodPatch, Path: `/issues/comments/[0-9]+$`, Status: code})
			e.s.ResetCounts()
			h := Handle{Owner: owner, Repo: name, SHA: e.head}
			_, err := e.p.Finish(e.ctx, h, prNum, e.body(keyA, e.head, map[int]checks.Status{1: checks.Fail}))
			var ge *github.ErrorResponse
			if err == nil || !asErr(err, &ge) || ge.Response.StatusCode != code {
				t.Fatalf("Finish error = %v, want the %d", err, code)
			}
			for _, w := range e.s.Writes() {
				if w.Method == http.MethodPost {
					t.Errorf("wrote %s %s after a failed edit", w.Method, w.Path)
				}
			}
		})
	}
}

func TestPostOnce(t *testing.T) {
	e := newEnv(t)
	body, err := render.WelcomeMarkdown(render.Welcome{
		ReminderFacts: checks.ReminderFacts{SignOffPhrase: "As a PR reviewer"},
		Text: func(checks.ReminderFacts) checks.Text {
			return checks.T("Before it can merge: ask for a sign-off.", "")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 { // past the first page of 30: a look at one page would miss it
		e.s.AddComment(fullName, prNum, fixture.Comment{User: "someone", Body: fmt.Sprint(i)})
	}
	first, err := e.p.PostOnce(e.ctx, owner, name, prNum, render.WelcomeMarker, body)
	if err != nil || first.Action != Created {
		t.Fatalf("first = %+v, %v", first, err)
	}
	for i := range 40 {
		e.s.AddComment(fullName, prNum, fixture.Comment{User: "someone", Body: fmt.Sprint(i)})
	}
	second, err := e.p.PostOnce(e.ctx, owner, name, prNum, render.WelcomeMarker, body)
	if err != nil || second.Action != Skipped || second.Wrote || second.CommentID != first.CommentID {
		t.Fatalf("second = %+v, %v", second, err)
	}

	// Anyone's comment carrying the marker suppresses it.
	e2 := newEnv(t)
	e2.s.AddComment(fullName, prNum, fixture.Comment{User: "human", Body: "see " + render.WelcomeMarker})
	third, err := e2.p.PostOnce(e2.ctx, owner, name, prNum, render.WelcomeMarker, body)
	if err != nil || third.Action != Skipped {
		t.Fatalf("third = %+v, %v", third, err)
	}
}

func TestReplyUpsertFollowsCommandEdits(t *testing.T) {
	e := newEnv(t)
	cmd := e.s.AddComment(fullName, prNum, fixture.Comment{User: "member-a", Association: "MEMBER", Body: "/use"})
	usage, err := render.UsageReplyMarkdown(render.UsageReply{CommentID: cmd, Actor: "member-a", Usage: render.ReuseUsage})
	if err != nil {
		t.Fatal(err)
	}
	first, err := e.p.Upsert(e.ctx, owner, name, prNum, render.ReplyMarker(cmd), usage)
	if err != nil {
		t.Fatal(err)
	}
	accepted, err := render.ReuseReplyMarkdown(render.ReuseReply{CommentID: cmd, Accepted: true, PR: prNum, RunID: 55, Conclusion: "success"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.p.Upsert(e.ctx, owner, name, prNum, render.ReplyMarker(cmd), accepted)
	if err != nil {
		t.Fatal(err)
	}
	if second.Action != Updated || second.CommentID != first.CommentID {
		t.Errorf("reply edit = %+v, want update of %d", second, first.CommentID)
	}
}

func asErr(err error, target **github.ErrorResponse) bool {
	for err != nil {
		if ge, ok := err.(*github.ErrorResponse); ok {
			*target = ge
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					if asErr(e, target) {
						return true
					}
				}
			}
			return false
		}
		err = u.Unwrap()
	}
	return false
}
