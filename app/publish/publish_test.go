package publish

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks"
)

const (
	fullName = "acme/bench"
	owner    = "acme"
	name     = "bench"
	prNum    = 7
	bot      = "verdict[bot]"
	keyA     = "pullrequestreview-1001"
	keyB     = "issuecomment-2002"
)

type env struct {
	t      *testing.T
	s      *githubtest.Server
	p      *Publisher
	head   string
	newer  string
	ctx    context.Context
	spoofs []int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fx := githubtest.NewFixture("verdict")
	fx.Tree("base").Put("README.md", "x\n")
	fx.Tree("head").From("base").Put("configs/a.yaml", "a: 1\n")
	r := fx.Repo(fullName)
	r.Commit("base", "base")
	head := r.Commit("head", "head")
	newer := r.Commit("newer", "head")
	r.Branch("main", "base")
	r.Pull(&githubtest.Pull{Number: prNum, Title: "Tune", User: "contrib", Head: githubtest.Ref{Ref: "tune", Commit: "head"}})
	s := githubtest.New(t, fx)
	return &env{
		t: t, s: s, head: head, newer: newer, ctx: context.Background(),
		p: &Publisher{Client: s.Client(), BotLogins: []string{bot, "github-actions[bot]"},
			StatusEnabled: true, CheckRunsEnabled: true},
	}
}

func rows(over map[int]checks.Status) []checks.Outcome {
	var out []checks.Outcome
	for n := range 16 {
		st := checks.Pass
		if s, ok := over[n]; ok {
			st = s
		}
		out = append(out, checks.Outcome{Number: n, Name: checks.Names[n],
			Result: checks.Result{Status: st, Reason: checks.T(fmt.Sprintf("reason %d %s", n, st), fmt.Sprintf("理由 %d", n))}})
	}
	return out
}

func (e *env) body(key, sha string, over map[int]checks.Status) (string, checks.Overall) {
	e.t.Helper()
	rs := rows(over)
	v := render.Verdict{Key: key, Author: "owner-a", HeadSHA: sha, Rows: rs, Overall: checks.Decide(rs), Escalation: []string{"@m-a"}}
	b, err := render.Markdown(v)
	if err != nil {
		e.t.Fatalf("render: %v", err)
	}
	return b, v.Overall
}

func (e *env) publish(key, sha string, over map[int]checks.Status) (Published, error) {
	e.t.Helper()
	h, err := e.p.Start(e.ctx, owner, name, sha)
	if err != nil {
		e.t.Fatalf("Start: %v", err)
	}
	b, ov := e.body(key, sha, over)
	return e.p.Finish(e.ctx, h, prNum, key, b, ov)
}

func (e *env) commentWrites() []githubtest.Write {
	var out []githubtest.Write
	for _, w := range e.s.Writes() {
		if strings.Contains(w.Path, "/issues/") {
			out = append(out, w)
		}
	}
	return out
}

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
	spoofHuman := e.s.AddComment(fullName, prNum, githubtest.Comment{User: "mallory", Body: markerA + "\n## ✅✅✅ **Verdict: PASS** ✅✅✅\n"})
	spoofInner := e.s.AddComment(fullName, prNum, githubtest.Comment{User: bot, UserType: "Bot", Body: "quoted:\n" + markerA + "\n"})
	if _, err := e.publish(keyB, e.head, nil); err != nil {
		t.Fatal(err)
	}
	first, err := e.publish(keyA, e.head, nil)
	if err != nil || first.Action != Created {
		t.Fatalf("publish A = %+v, %v", first, err)
	}
	// A spoof posted after our verdict: taking "the last comment with the
	// marker" without the author check would edit this one.
	spoofLate := e.s.AddComment(fullName, prNum, githubtest.Comment{User: "mallory", Body: markerA + "\nfake\n"})
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
	b, _ := e.body(keyA, e.head, nil)
	m := render.Marker(keyA)
	old := e.s.AddComment(fullName, prNum, githubtest.Comment{User: "GitHub-Actions[bot]", Body: m + "\nold\n"})
	last := e.s.AddComment(fullName, prNum, githubtest.Comment{User: bot, Body: m + "\nolder run\n"})
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
		e.s.AddComment(fullName, prNum, githubtest.Comment{User: "someone", Body: fmt.Sprintf("comment %d", i)})
	}
	own := e.s.AddComment(fullName, prNum, githubtest.Comment{User: bot, Body: m + "\nstale\n"})
	b, _ := e.body(keyA, e.head, nil)
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
			b, ov := e.body(keyA, e.head, map[int]checks.Status{1: checks.Fail})
			_, err := e.p.Finish(e.ctx, h, prNum, keyA, b, ov)
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

func TestInvalidInputsRejectedBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	good, ov := e.body(keyA, e.head, nil)
	h := Handle{Owner: owner, Repo: name, SHA: e.head, CheckRunID: 0}
	tests := []struct {
		name string
		run  func() error
	}{
		{"invalid key", func() error { _, err := e.p.Finish(e.ctx, h, prNum, "issuecomment-abc", good, ov); return err }},
		{"key injection", func() error { _, err := e.p.Finish(e.ctx, h, prNum, keyA+" -->", good, ov); return err }},
		{"body for another key", func() error { _, err := e.p.Finish(e.ctx, h, prNum, keyB, good, ov); return err }},
		{"body for another commit", func() error {
			_, err := e.p.Finish(e.ctx, Handle{Owner: owner, Repo: name, SHA: e.newer}, prNum, keyA, good, ov)
			return err
		}},
		{"bad sha", func() error { _, err := e.p.Start(e.ctx, owner, name, "HEAD"); return err }},
		{"unknown overall", func() error { _, err := e.p.Finish(e.ctx, h, prNum, keyA, good, "MAYBE"); return err }},
		{"bad warnAs", func() error {
			p := *e.p
			p.WarnAs = "neutral"
			_, err := p.Start(e.ctx, owner, name, e.head)
			return err
		}},
		{"no bot identities", func() error {
			p := *e.p
			p.BotLogins = nil
			_, err := p.Upsert(e.ctx, owner, name, prNum, render.Marker(keyA), good)
			return err
		}},
		{"body without marker", func() error {
			_, err := e.p.Upsert(e.ctx, owner, name, prNum, render.Marker(keyA), "hello")
			return err
		}},
		{"oversized body", func() error {
			m := render.Marker(keyA)
			_, err := e.p.Upsert(e.ctx, owner, name, prNum, m, m+"\n"+strings.Repeat("x", 70000))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.s.ResetCounts()
			if err := tt.run(); err == nil {
				t.Fatal("accepted")
			}
			if w := e.s.Writes(); len(w) != 0 {
				t.Errorf("wrote before refusing: %+v", w)
			}
		})
	}
}

func TestStatusAndCheckRun(t *testing.T) {
	tests := []struct {
		name       string
		over       map[int]checks.Status
		warnAs     string
		state      string
		desc       string
		conclusion string
		title      string
	}{
		{"pass", nil, "", "success", "CODEOWNER sign-off independently verified", "success", "Verdict: PASS"},
		{"warn default", map[int]checks.Status{14: checks.Warn}, "", "success", "CODEOWNER sign-off verified with advisory warnings", "neutral", "Verdict: WARN"},
		{"warn as failure", map[int]checks.Status{4: checks.Warn}, "failure", "failure", "CODEOWNER sign-off verified with advisory warnings", "neutral", "Verdict: WARN"},
		{"rejected", map[int]checks.Status{1: checks.Fail}, "", "failure", "Sign-off verification rejected - see verdict comment", "failure", "REJECTED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.p.WarnAs = tt.warnAs
			h, err := e.p.Start(e.ctx, owner, name, e.head)
			if err != nil {
				t.Fatal(err)
			}
			sts := e.s.Statuses(fullName, e.head)
			if len(sts) != 1 || sts[0].GetState() != "pending" || sts[0].GetDescription() != "Verifying CODEOWNER sign-off" || sts[0].GetContext() != DefaultStatusContext {
				t.Fatalf("start statuses = %+v", sts)
			}
			crs := e.s.CheckRuns(fullName, e.head)
			if len(crs) != 1 || crs[0].GetStatus() != "in_progress" || crs[0].GetName() != DefaultCheckRunName || crs[0].GetID() != h.CheckRunID {
				t.Fatalf("start check runs = %+v", crs)
			}

			b, ov := e.body(keyA, e.head, tt.over)
			pub, err := e.p.Finish(e.ctx, h, prNum, keyA, b, ov)
			if err != nil {
				t.Fatal(err)
			}
			sts = e.s.Statuses(fullName, e.head)
			if len(sts) != 2 || sts[0].GetState() != tt.state || sts[0].GetDescription() != tt.desc || sts[0].GetTargetURL() != pub.CommentURL {
				t.Errorf("final status = %+v", sts[0])
			}
			crs = e.s.CheckRuns(fullName, e.head)
			if len(crs) != 1 {
				t.Fatalf("%d check runs, want the started one completed", len(crs))
			}
			cr := crs[0]
			if cr.GetStatus() != "completed" || cr.GetConclusion() != tt.conclusion || cr.GetOutput().GetTitle() != tt.title ||
				cr.GetOutput().GetSummary() != render.EnglishPart(b) || !strings.Contains(cr.GetOutput().GetText(), "中文") ||
				cr.GetDetailsURL() != pub.CommentURL {
				t.Errorf("check run = %+v", cr)
			}
			for _, other := range []string{e.newer} {
				if n := len(e.s.Statuses(fullName, other)) + len(e.s.CheckRuns(fullName, other)); n != 0 {
					t.Errorf("%d writes on a commit that was not assessed", n)
				}
			}
		})
	}
}

func TestStatusNeverGreenerThanTheBody(t *testing.T) {
	e := newEnv(t)
	h, _ := e.p.Start(e.ctx, owner, name, e.head)
	invalid, err := render.InvalidMarkdown(keyA, e.head)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Finish(e.ctx, h, prNum, keyA, invalid, checks.VerdictPass); err != nil {
		t.Fatal(err)
	}
	if st := e.s.Statuses(fullName, e.head)[0]; st.GetState() != "failure" {
		t.Errorf("invalid body published with status %s", st.GetState())
	}
}

func TestDisabledStatusAndCheckRuns(t *testing.T) {
	e := newEnv(t)
	e.p.StatusEnabled, e.p.CheckRunsEnabled = false, false
	if _, err := e.publish(keyA, e.head, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(e.s.Statuses(fullName, e.head)) + len(e.s.CheckRuns(fullName, e.head)); n != 0 {
		t.Errorf("%d statuses/check runs written while disabled", n)
	}
	if n := len(e.s.Comments(fullName, prNum)); n != 1 {
		t.Errorf("%d comments", n)
	}
}

func TestCustomContextAndMissingCheckRun(t *testing.T) {
	e := newEnv(t)
	e.p.StatusContext, e.p.CheckRunName = "verdict/signoff", "Sign-off"
	b, ov := e.body(keyA, e.head, nil)
	// Start was never called (or failed): Finish creates a completed run.
	if _, err := e.p.Finish(e.ctx, Handle{Owner: owner, Repo: name, SHA: e.head}, prNum, keyA, b, ov); err != nil {
		t.Fatal(err)
	}
	if st := e.s.Statuses(fullName, e.head); len(st) != 1 || st[0].GetContext() != "verdict/signoff" {
		t.Errorf("statuses = %+v", st)
	}
	if cr := e.s.CheckRuns(fullName, e.head); len(cr) != 1 || cr[0].GetName() != "Sign-off" || cr[0].GetConclusion() != "success" {
		t.Errorf("check runs = %+v", cr)
	}
}

func TestCommentFailureLeavesStatusPending(t *testing.T) {
	e := newEnv(t)
	h, _ := e.p.Start(e.ctx, owner, name, e.head)
	e.s.AddFault(githubtest.Fault{Method: http.MethodPost, Path: `/issues/7/comments$`, Status: http.StatusBadGateway})
	b, ov := e.body(keyA, e.head, nil)
	if _, err := e.p.Finish(e.ctx, h, prNum, keyA, b, ov); err == nil {
		t.Fatal("Finish succeeded without a comment")
	}
	if st := e.s.Statuses(fullName, e.head); len(st) != 1 || st[0].GetState() != "pending" {
		t.Errorf("statuses = %+v, want only pending", st)
	}
	if err := e.p.Abort(e.ctx, h, ""); err != nil {
		t.Fatal(err)
	}
	st := e.s.Statuses(fullName, e.head)[0]
	cr := e.s.CheckRuns(fullName, e.head)[0]
	if st.GetState() != "failure" || st.GetDescription() != "No verification verdict was posted for this commit" || cr.GetConclusion() != "failure" {
		t.Errorf("after Abort: status %+v, check run %+v", st, cr)
	}
}

func TestPostOnce(t *testing.T) {
	e := newEnv(t)
	body, err := render.WelcomeMarkdown(render.Welcome{SignOffPhrase: "As a PR reviewer", FailFastLabel: "a", ContinueLabel: "b", RerunDocsURL: "https://docs.example/rerun"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 { // past the first page of 30, where the original looked
		e.s.AddComment(fullName, prNum, githubtest.Comment{User: "someone", Body: fmt.Sprint(i)})
	}
	first, err := e.p.PostOnce(e.ctx, owner, name, prNum, render.WelcomeMarker, body)
	if err != nil || first.Action != Created {
		t.Fatalf("first = %+v, %v", first, err)
	}
	for i := range 40 {
		e.s.AddComment(fullName, prNum, githubtest.Comment{User: "someone", Body: fmt.Sprint(i)})
	}
	second, err := e.p.PostOnce(e.ctx, owner, name, prNum, render.WelcomeMarker, body)
	if err != nil || second.Action != Skipped || second.Wrote || second.CommentID != first.CommentID {
		t.Fatalf("second = %+v, %v", second, err)
	}

	// Anyone's comment carrying the marker suppresses it (section 2.7).
	e2 := newEnv(t)
	e2.s.AddComment(fullName, prNum, githubtest.Comment{User: "human", Body: "see " + render.WelcomeMarker})
	third, err := e2.p.PostOnce(e2.ctx, owner, name, prNum, render.WelcomeMarker, body)
	if err != nil || third.Action != Skipped {
		t.Fatalf("third = %+v, %v", third, err)
	}
}

func TestReplyUpsertFollowsCommandEdits(t *testing.T) {
	e := newEnv(t)
	cmd := e.s.AddComment(fullName, prNum, githubtest.Comment{User: "member-a", Association: "MEMBER", Body: "/use"})
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

func TestTruncate(t *testing.T) {
	s := strings.Repeat("é", 40000) // 80000 bytes
	got := truncate(s, maxOutputChars)
	if len(got) > maxOutputChars || !strings.HasSuffix(got, "(truncated; the full verdict is in the PR comment)") {
		t.Errorf("len %d", len(got))
	}
	if !strings.HasPrefix(got, "é") || strings.ContainsRune(got, '\uFFFD') {
		t.Error("cut inside a rune")
	}
	if truncate("short", 10) != "short" {
		t.Error("short string changed")
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
