package reuse

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

const (
	repoName = "acme/bench"
	prNum    = 12
	bot      = "verdict[bot]"
)

// env is one fake GitHub with PR #12 (head branch feat, commits c1 and c2)
// and an Actions catalogue, plus an acknowledger wired to it through the
// production GitHub-backed Source.
type env struct {
	t   *testing.T
	s   *githubtest.Server
	fx  *fixture.Fixture
	ack *Acknowledger
	log *bytes.Buffer
	// hook runs once when eligibility lists artifacts (mid-validation).
	hook   func()
	minute int
}

type envOpt func(fx *fixture.Fixture, p *fixture.Pull)

func withLabels(ls ...string) envOpt {
	return func(_ *fixture.Fixture, p *fixture.Pull) { p.Labels = ls }
}

func closed() envOpt { return func(_ *fixture.Fixture, p *fixture.Pull) { p.State = "closed" } }

// withConfig puts a .github/verdict.yml on the default branch.
func withConfig(yml string) envOpt {
	return func(fx *fixture.Fixture, _ *fixture.Pull) { fx.Tree("base").Put(".github/verdict.yml", yml) }
}

const sweepPath = ".github/workflows/run-sweep.yml"

func newEnv(t *testing.T, opts ...envOpt) *env {
	t.Helper()
	fx := fixture.New("verdict")
	fx.Tree("base").Put("README.md", "bench\n")
	fx.Tree("head").From("base").Put("benchmarks/new.sh", "#!/bin/sh\n")
	r := fx.Repo(repoName)
	r.Commit("base", "base")
	r.Commit("c1", "head")
	r.Commit("c2", "head")
	// Force-pushed away: not in the PR's commit list.
	r.Commits = append(r.Commits, &fixture.Commit{Name: "gone", SHA: strings.Repeat("d", 40), Tree: "head"})
	r.Branch("main", "base")
	p := r.Pull(&fixture.Pull{Number: prNum, Head: fixture.Ref{Ref: "feat", Commit: "c2"},
		Base: fixture.Ref{Ref: "main", Commit: "base"}, Commits: []string{"c1", "c2"}})
	at := func(h int) time.Time { return fixture.DefaultNow.Add(time.Duration(-h) * time.Hour) }
	run := func(id int64, event, conclusion, head string, created time.Time, arts ...string) {
		w := &fixture.WorkflowRun{ID: id, Name: "Run Sweep", Path: sweepPath, Event: event, Status: "completed",
			Conclusion: conclusion, HeadCommit: head, HeadBranch: "feat", CreatedAt: created, RunAttempt: 1}
		for i, a := range arts {
			w.Artifacts = append(w.Artifacts, &fixture.Artifact{ID: id*10 + int64(i), Name: a, Files: map[string]string{"x.json": "{}"}})
		}
		r.Run(w)
	}
	// Newest first by creation: the newest success carries only the gate's no-op artifact.
	run(30123456000, "pull_request", "success", "c2", at(1), "reuse-gate-noop")
	run(30123456789, "pull_request", "success", "c2", at(2), "eval_results_all")
	run(777, "pull_request", "cancelled", "c1", at(3), "results_bmk")
	run(555, "push", "success", "c1", at(4), "results_bmk")
	run(556, "pull_request", "success", "gone", at(5), "results_bmk")
	for _, o := range opts {
		o(fx, p)
	}
	s := githubtest.New(t, fx)

	e := &env{t: t, s: s, fx: fx, log: &bytes.Buffer{}}
	var once sync.Once
	gh := hookGitHub{Client: ghapi.New(s.Client(), ghsource.Options{}), f: func() {
		if e.hook != nil {
			once.Do(e.hook)
		}
	}}
	e.ack = &Acknowledger{
		Client:    func(context.Context, int64) (GitHub, error) { return gh, nil },
		BotLogins: []string{bot},
		Logger:    slog.New(slog.NewTextHandler(e.log, nil)),
		Presets:   []*checks.Preset{inferencexAlone()},
	}
	return e
}

// inferencexAlone is InferenceX as the one preset served, taken without
// detection: the repositories here hold only what the commands read.
func inferencexAlone() *checks.Preset {
	p := *inferencex.Preset
	p.Detect = nil
	return &p
}

// hookGitHub is the production client whose evidence sources run f when
// eligibility lists a run's artifacts, which is the last read before the
// race guard.
type hookGitHub struct {
	*ghapi.Client
	f func()
}

func (h hookGitHub) Evidence(owner, repo string, number int) snapshot.Evidence {
	return hookSource{h.Client.Evidence(owner, repo, number), h.f}
}

type hookSource struct {
	snapshot.Evidence
	f func()
}

func (h hookSource) Artifacts(ctx context.Context, id int64) ([]checks.Artifact, error) {
	h.f()
	return h.Evidence.Artifacts(ctx, id)
}

// post adds a user comment; each one is a minute newer than the last.
func (e *env) post(author, assoc, body string) int64 {
	e.minute++
	at := fixture.DefaultNow.Add(-time.Hour + time.Duration(e.minute)*time.Minute)
	return e.s.AddComment(repoName, prNum, fixture.Comment{User: author, Association: assoc, Body: body, CreatedAt: at, UpdatedAt: at})
}

// job builds the event the router would enqueue for the comment's current
// state.
func (e *env) job(id int64, action string) jobs.ReuseArgs {
	e.t.Helper()
	j := jobs.ReuseArgs{Repo: jobs.Repo{InstallationID: 1, Owner: "acme", Name: "bench"}, PR: prNum,
		CommentID: id, Action: action, DeliveryID: "d-" + action}
	for _, c := range e.s.Comments(repoName, prNum) {
		if c.ID == id {
			j.Body, j.UpdatedAt, j.AuthorLogin, j.AuthorAssociation = c.Body, c.UpdatedAt, c.User, c.Association
		}
	}
	return j
}

func (e *env) acknowledge(id int64, action string) {
	e.t.Helper()
	if err := e.ack.Acknowledge(context.Background(), e.job(id, action)); err != nil {
		e.t.Fatalf("Acknowledge(%d, %s): %v", id, action, err)
	}
}

// reactions returns the bot's reactions on a comment.
func (e *env) reactions(id int64) []string {
	var out []string
	for _, c := range e.s.Comments(repoName, prNum) {
		if c.ID != id {
			continue
		}
		for _, r := range c.Reactions {
			if r.User == bot {
				out = append(out, r.Content)
			}
		}
	}
	return out
}

// replies returns the bot's reply bodies to a command comment.
func (e *env) replies(id int64) []fixture.Comment {
	var out []fixture.Comment
	for _, c := range e.s.Comments(repoName, prNum) {
		if c.User == bot && strings.HasPrefix(c.Body, render.ReplyMarker(id)) {
			out = append(out, c)
		}
	}
	return out
}

func (e *env) expect(id int64, reaction string, reply string) {
	e.t.Helper()
	got := e.reactions(id)
	if reaction == "" && len(got) != 0 || reaction != "" && (len(got) != 1 || got[0] != reaction) {
		e.t.Errorf("bot reactions on %d = %v, want [%s]", id, got, reaction)
	}
	rs := e.replies(id)
	switch {
	case reply == "" && len(rs) != 0:
		e.t.Errorf("unexpected reply to %d: %q", id, rs[0].Body)
	case reply != "" && len(rs) != 1:
		e.t.Errorf("want exactly one reply to %d containing %q, got %d", id, reply, len(rs))
	case reply != "" && !strings.Contains(rs[0].Body, reply):
		e.t.Errorf("reply to %d = %q, want it to contain %q", id, rs[0].Body, reply)
	}
}

func (e *env) logged(s string) {
	e.t.Helper()
	if !strings.Contains(e.log.String(), s) {
		e.t.Errorf("log lacks %q:\n%s", s, e.log.String())
	}
}

// TestBranchNameMentionsNobody: "@org/team" is a valid branch name; echoed
// in the /reuse-sweep-run reply it must not notify the team.
func TestBranchNameMentionsNobody(t *testing.T) {
	e := newEnv(t, func(_ *fixture.Fixture, p *fixture.Pull) { p.Head.Ref = "@acme/core" })
	id := e.post("maintainer", "MEMBER", "/reuse-sweep-run")
	e.acknowledge(id, "created")
	e.expect(id, "-1", "on branch @\u2060acme/core has a head")
	for _, r := range e.replies(id) {
		if strings.Contains(r.Body, "@acme") {
			t.Errorf("reply mentions @acme:\n%s", r.Body)
		}
	}
}

// A repository whose checklist takes no reuse commands gets no answer: no
// reaction and no reply, as if the comment were any other.
func TestCommandsOnlyWherePresetTakesThem(t *testing.T) {
	e := newEnv(t)
	e.ack.Presets = []*checks.Preset{checklist.Preset}
	id := e.post("maintainer", "MEMBER", "/use 30123456789")
	e.acknowledge(id, "created")
	e.expect(id, "", "")
	e.logged("takes no reuse commands")
}
