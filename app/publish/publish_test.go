package publish

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
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
	fx := fixture.New("verdict")
	fx.Tree("base").Put("README.md", "x\n")
	fx.Tree("head").From("base").Put("configs/a.yaml", "a: 1\n")
	r := fx.Repo(fullName)
	r.Commit("base", "base")
	head := r.Commit("head", "head")
	newer := r.Commit("newer", "head")
	r.Branch("main", "base")
	r.Pull(&fixture.Pull{Number: prNum, Title: "Tune", User: "contrib", Head: fixture.Ref{Ref: "tune", Commit: "head"}})
	s := githubtest.New(t, fx)
	return &env{
		t: t, s: s, head: head, newer: newer, ctx: context.Background(),
		p: &Publisher{Client: client(s), BotLogins: []string{bot, "github-actions[bot]"},
			StatusEnabled: true, CheckRunsEnabled: true},
	}
}

// client is the production GitHub client over the fake server.
func client(s *githubtest.Server) *ghapi.Client { return ghapi.New(s.Client(), ghsource.Options{}) }

func rows(over map[int]checks.Status) []checks.Outcome {
	var out []checks.Outcome
	for n := range 16 {
		st := checks.Pass
		if s, ok := over[n]; ok {
			st = s
		}
		out = append(out, checks.Outcome{Number: n, Name: inferencex.Name(n),
			Result: checks.Result{Status: st, Reason: checks.T(fmt.Sprintf("reason %d %s", n, st), fmt.Sprintf("理由 %d", n))}})
	}
	return out
}

func (e *env) body(key, sha string, over map[int]checks.Status) render.Body {
	e.t.Helper()
	rs := rows(over)
	v := render.Verdict{Key: key, Author: "owner-a", HeadSHA: sha, Preset: inferencex.Preset, Rows: rs, Overall: checks.Decide(rs), Escalation: checks.T("escalated to @m-a", "")}
	b, err := render.Render(v)
	if err != nil {
		e.t.Fatalf("render: %v", err)
	}
	return b
}

func (e *env) publish(key, sha string, over map[int]checks.Status) (Published, error) {
	e.t.Helper()
	h, err := e.p.Start(e.ctx, owner, name, sha, key, false)
	if err != nil {
		e.t.Fatalf("Start: %v", err)
	}
	return e.p.Finish(e.ctx, h, prNum, e.body(key, sha, over))
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

func TestInvalidInputsRejectedBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	good := e.body(keyA, e.head, nil)
	h := Handle{Owner: owner, Repo: name, SHA: e.head, CheckRunID: 0}
	with := func(key string) Handle { k := h; k.Key = key; return k }
	tests := []struct {
		name string
		run  func() error
	}{
		{"invalid key", func() error { _, err := e.p.Finish(e.ctx, with("issuecomment-abc"), prNum, good); return err }},
		{"key injection", func() error { _, err := e.p.Finish(e.ctx, with(keyA+" -->"), prNum, good); return err }},
		{"body for another key", func() error { _, err := e.p.Finish(e.ctx, with(keyB), prNum, good); return err }},
		{"body for another commit", func() error {
			_, err := e.p.Finish(e.ctx, Handle{Owner: owner, Repo: name, SHA: e.newer}, prNum, good)
			return err
		}},
		{"bad sha", func() error { _, err := e.p.Start(e.ctx, owner, name, "HEAD", keyA, false); return err }},
		{"no rendered verdict", func() error { _, err := e.p.Finish(e.ctx, h, prNum, render.Body{}); return err }},
		{"bad warnAs", func() error {
			p := *e.p
			p.WarnAs = "neutral"
			_, err := p.Start(e.ctx, owner, name, e.head, keyA, false)
			return err
		}},
		{"no bot identities", func() error {
			p := *e.p
			p.BotLogins = nil
			_, err := p.Upsert(e.ctx, owner, name, prNum, render.Marker(keyA), good.Markdown())
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
			h, err := e.p.Start(e.ctx, owner, name, e.head, keyA, false)
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

			b := e.body(keyA, e.head, tt.over)
			pub, err := e.p.Finish(e.ctx, h, prNum, b)
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
				cr.GetOutput().GetSummary() != b.English() || !strings.Contains(cr.GetOutput().GetText(), "中文") ||
				cr.GetDetailsURL() != pub.CommentURL || cr.GetExternalID() != keyA+"@"+e.head {
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
	h, _ := e.p.Start(e.ctx, owner, name, e.head, keyA, false)
	invalid, err := render.Invalid(keyA, e.head)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Finish(e.ctx, h, prNum, invalid); err != nil {
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
	b := e.body(keyA, e.head, nil)
	// Start was never called (or failed): Finish creates a completed run.
	if _, err := e.p.Finish(e.ctx, Handle{Owner: owner, Repo: name, SHA: e.head}, prNum, b); err != nil {
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
	h, _ := e.p.Start(e.ctx, owner, name, e.head, keyA, false)
	e.s.AddFault(githubtest.Fault{Method: http.MethodPost, Path: `/issues/7/comments$`, Status: http.StatusBadGateway})
	b := e.body(keyA, e.head, nil)
	if _, err := e.p.Finish(e.ctx, h, prNum, b); err == nil {
		t.Fatal("Finish succeeded without a comment")
	}
	if st := e.s.Statuses(fullName, e.head); len(st) != 1 || st[0].GetState() != "pending" {
		t.Errorf("statuses = %+v, want only pending", st)
	}
	if err := e.p.Abort(e.ctx, h, "GitHub answered 502 "+strings.Repeat("again and ", 20)); err != nil {
		t.Fatal(err)
	}
	st := e.s.Statuses(fullName, e.head)[0]
	crs := e.s.CheckRuns(fullName, e.head)
	if st.GetState() != "failure" || !strings.HasPrefix(st.GetDescription(), "Sign-off could not be verified: GitHub answered 502 again") ||
		len(st.GetDescription()) > 140 || len(crs) != 1 || crs[0].GetConclusion() != "failure" ||
		!strings.Contains(crs[0].GetOutput().GetSummary(), "could not be verified: GitHub answered 502") {
		t.Errorf("after Abort: status %+v, check runs %+v", st, crs)
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

// TestGuardedVerdictIsPublishedRejected: a verdict the guard refuses (one
// that drops Check 7's row) is rendered as the fixed invalid-verdict body,
// and that is what is published, with a failing status and check run.
func TestGuardedVerdictIsPublishedRejected(t *testing.T) {
	e := newEnv(t)
	h, _ := e.p.Start(e.ctx, owner, name, e.head, keyA, false)
	rs := rows(nil)
	rs = append(rs[:7], rs[8:]...)
	b, guard := render.Render(render.Verdict{Key: keyA, Author: "owner-a", HeadSHA: e.head, Preset: inferencex.Preset, Rows: rs, Overall: checks.VerdictPass})
	if guard == nil || !strings.Contains(guard.Error(), "Check 7 is missing") {
		t.Errorf("guard = %v", guard)
	}
	if _, err := e.p.Finish(e.ctx, h, prNum, b); err != nil {
		t.Fatal(err)
	}
	invalid, _ := render.InvalidMarkdown(keyA, e.head)
	cs := e.s.Comments(fullName, prNum)
	if len(cs) != 1 || cs[0].Body != invalid {
		t.Fatalf("published %+v", cs)
	}
	if st := e.s.Statuses(fullName, e.head)[0]; st.GetState() != "failure" {
		t.Errorf("status %s", st.GetState())
	}
	if cr := e.s.CheckRuns(fullName, e.head)[0]; cr.GetConclusion() != "failure" || cr.GetOutput().GetSummary() != render.EnglishPart(invalid) {
		t.Errorf("check run %+v", cr.GetOutput())
	}
}

func TestVerifierAdapter(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	cfg.BotLogins = []string{bot}
	cfg.Status.Context = "verdict/custom"
	off := false
	cfg.CheckRun.Enabled = &off
	b := e.body(keyA, e.head, map[int]checks.Status{15: checks.Warn})
	pub := Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA, HeadSHA: e.head}
	v := Verdicts{Pending: true}
	started, err := v.Start(e.ctx, pub)
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Finish(e.ctx, started, b)
	url := c.CommentURL
	if err != nil || url == "" || c.NodeID == "" {
		t.Fatalf("Finish = %+v, %v", c, err)
	}
	sts := e.s.Statuses(fullName, e.head)
	if len(sts) != 2 || sts[0].GetContext() != "verdict/custom" || sts[0].GetState() != "success" || sts[0].GetTargetURL() != url {
		t.Errorf("statuses = %+v", sts)
	}
	if n := len(e.s.CheckRuns(fullName, e.head)); n != 0 {
		t.Errorf("%d check runs with check runs disabled", n)
	}
	// Finish after a Start that marked nothing (no check run yet) still
	// completes everything.
	if _, err := v.Finish(e.ctx, unmarked(t, e, pub), b); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Finish(e.ctx, Started{}, b); err == nil {
		t.Error("Finish without Start published")
	}
}

func TestVerifierAdapterFailureHandling(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	cfg.BotLogins = []string{bot}
	b := e.body(keyA, e.head, nil)
	pub := Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA, HeadSHA: e.head}
	v := Verdicts{Pending: true}

	// No statuses permission: neither Start nor Finish fails the job.
	e.s.AddFault(githubtest.Fault{Method: http.MethodPost, Path: `/statuses/`, Status: http.StatusForbidden})
	started, err := v.Start(e.ctx, pub)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c, err := v.Finish(e.ctx, started, b)
	url := c.CommentURL
	if err != nil || url == "" || c.NodeID == "" {
		t.Fatalf("Finish = %+v, %v", c, err)
	}
	if cr := e.s.CheckRuns(fullName, e.head); len(cr) != 1 || cr[0].GetConclusion() != "success" {
		t.Errorf("check runs = %+v", cr)
	}

	// A transient status failure is returned so the job is retried; the
	// retry finds the comment unchanged.
	e.s.ClearFaults()
	e.s.AddFault(githubtest.Fault{Method: http.MethodPost, Path: `/statuses/`, Status: http.StatusBadGateway, Times: 1})
	if _, err := v.Finish(e.ctx, unmarked(t, e, pub), b); err == nil {
		t.Error("transient status failure swallowed")
	}
	if _, err := v.Finish(e.ctx, unmarked(t, e, pub), b); err != nil {
		t.Errorf("retry: %v", err)
	}
	if n := len(e.s.Comments(fullName, prNum)); n != 1 {
		t.Errorf("%d comments after retries", n)
	}

	// A comment failure is always returned, whatever its status.
	e.s.AddFault(githubtest.Fault{Method: http.MethodGet, Path: `/issues/7/comments$`, Status: http.StatusForbidden})
	if _, err := v.Finish(e.ctx, unmarked(t, e, pub), b); err == nil {
		t.Error("comment failure swallowed")
	}
	// An invalid commit is refused before any write.
	bad := pub
	bad.HeadSHA = "HEAD"
	if _, err := v.Start(e.ctx, bad); err == nil {
		t.Error("Start accepted an invalid SHA")
	}
}

func TestRetriesFindTheirCheckRunAgain(t *testing.T) {
	e := newEnv(t)
	first, err := e.p.Start(e.ctx, owner, name, e.head, keyA, false)
	if err != nil {
		t.Fatal(err)
	}
	// The first attempt died here; the retry starts again and adopts it.
	second, err := e.p.Start(e.ctx, owner, name, e.head, keyA, true)
	if err != nil {
		t.Fatal(err)
	}
	if second.CheckRunID != first.CheckRunID {
		t.Errorf("retry opened check run %d, want to reuse %d", second.CheckRunID, first.CheckRunID)
	}
	// The retry completes the run, then its final status write fails.
	b := e.body(keyA, e.head, nil)
	e.s.AddFault(githubtest.Fault{Method: http.MethodPost, Path: `/statuses/`, Status: http.StatusUnprocessableEntity, Times: 1})
	if _, err := e.p.Finish(e.ctx, second, prNum, b); err == nil {
		t.Fatal("Finish hid the status failure")
	}
	// The next attempt neither sets pending nor opens a second run.
	third, err := e.p.Start(e.ctx, owner, name, e.head, keyA, true)
	if err != nil {
		t.Fatal(err)
	}
	if third.CheckRunID != first.CheckRunID {
		t.Errorf("retry after completion opened check run %d, want %d", third.CheckRunID, first.CheckRunID)
	}
	if _, err := e.p.Finish(e.ctx, third, prNum, b); err != nil {
		t.Fatal(err)
	}
	for _, st := range e.s.Statuses(fullName, e.head)[:1] {
		if st.GetState() != "success" {
			t.Errorf("latest status %s, want success", st.GetState())
		}
	}
	if n := countState(e.s.Statuses(fullName, e.head), "pending"); n != 1 {
		t.Errorf("%d pending statuses, want only the first attempt's", n)
	}
	crs := e.s.CheckRuns(fullName, e.head)
	if len(crs) != 1 || crs[0].GetStatus() != "completed" {
		t.Fatalf("check runs = %+v", crs)
	}
	// A Finish without a handle (Start failed) finds the run too.
	if _, err := e.p.Finish(e.ctx, Handle{Owner: owner, Repo: name, SHA: e.head}, prNum, b); err != nil || len(e.s.CheckRuns(fullName, e.head)) != 1 {
		t.Errorf("handle-less Finish: %v, %d runs", err, len(e.s.CheckRuns(fullName, e.head)))
	}
	// A new verification of the same sign-off and commit gets a new run;
	// another sign-off gets its own.
	fourth, err := e.p.Start(e.ctx, owner, name, e.head, keyA, false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.p.Start(e.ctx, owner, name, e.head, keyB, false)
	if err != nil {
		t.Fatal(err)
	}
	if fourth.CheckRunID == first.CheckRunID || other.CheckRunID == fourth.CheckRunID || len(e.s.CheckRuns(fullName, e.head)) != 3 {
		t.Errorf("runs %d, %d, %d", first.CheckRunID, fourth.CheckRunID, other.CheckRunID)
	}
	// Another app's run with the same name and external ID is never adopted.
	foreign := *e.p
	foreign.BotLogins = []string{"someone-else[bot]"}
	mine, err := e.p.Start(e.ctx, owner, name, e.newer, keyA, false)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := foreign.Start(e.ctx, owner, name, e.newer, keyA, true)
	if err != nil {
		t.Fatal(err)
	}
	if theirs.CheckRunID == 0 || theirs.CheckRunID == mine.CheckRunID {
		t.Errorf("adopted check run %d of another app", theirs.CheckRunID)
	}
}

// TestLookupFailureOpensNoSecondRun: when the check runs cannot be listed,
// Start creates nothing and Finish fails (to be retried) instead of
// creating a run beside the one that may exist.
func TestLookupFailureOpensNoSecondRun(t *testing.T) {
	e := newEnv(t)
	if _, err := e.p.Start(e.ctx, owner, name, e.head, keyA, false); err != nil {
		t.Fatal(err)
	}
	e.s.AddFault(githubtest.Fault{Method: http.MethodGet, Path: `/check-runs$`, Status: http.StatusBadGateway})
	h, err := e.p.Start(e.ctx, owner, name, e.head, keyA, true)
	if err == nil || h.CheckRunID != 0 {
		t.Fatalf("Start = %+v, %v; want a failed look-up and no run", h, err)
	}
	b := e.body(keyA, e.head, nil)
	if _, err := e.p.Finish(e.ctx, h, prNum, b); err == nil {
		t.Error("Finish created a run without looking")
	}
	if n := len(e.s.CheckRuns(fullName, e.head)); n != 1 {
		t.Errorf("%d check runs", n)
	}
}

func countState(sts []github.RepoStatus, state string) int {
	n := 0
	for _, st := range sts {
		if st.GetState() == state {
			n++
		}
	}
	return n
}

// unmarked starts the publication of t without marking the commit, as
// verdict check does: Finish then has no check run ID and finds or creates
// the run itself.
func unmarked(t *testing.T, e *env, target Target) Started {
	t.Helper()
	s, err := Verdicts{}.Start(e.ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// With a details page configured, the check run links to the PR's page
// and the status still to the comment.
func TestCheckRunLinksToTheDetailsPage(t *testing.T) {
	e := newEnv(t)
	e.p.DetailsBase = "https://verdict.example.com"
	pub, err := e.publish(keyA, e.head, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cr := e.s.CheckRuns(fullName, e.head); len(cr) != 1 || cr[0].GetDetailsURL() != "https://verdict.example.com/pr/acme/bench/7" {
		t.Errorf("check runs = %+v", cr)
	}
	if st := e.s.Statuses(fullName, e.head); len(st) == 0 || st[0].GetTargetURL() != pub.CommentURL {
		t.Errorf("statuses = %+v", st)
	}
}
