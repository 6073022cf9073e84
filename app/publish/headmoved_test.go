package publish

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
)

func (e *env) move(head string, cfg repoconfig.Config, needs *bool) HeadMoved {
	e.t.Helper()
	cfg.BotLogins = []string{bot}
	m := HeadMove{Client: e.p.Client, Config: cfg, Owner: owner, Repo: name, Number: prNum, Head: head}
	if needs != nil {
		m.NeedsSignOff = func(context.Context) (bool, error) { return *needs, nil }
	}
	res, err := Verdicts{}.HeadMoved(e.ctx, m)
	if err != nil {
		e.t.Fatalf("HeadMoved: %v", err)
	}
	return res
}

func (e *env) verdictOf(key string) fixture.Comment {
	e.t.Helper()
	for _, c := range e.s.Comments(fullName, prNum) {
		if c.User == bot && strings.HasPrefix(c.Body, render.Marker(key)+"\n") {
			return c
		}
	}
	e.t.Fatalf("no verdict comment of %s", key)
	return fixture.Comment{}
}

func TestHeadMoved(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	if res := e.move(e.newer, cfg, nil); res.Verdicts != 0 || len(e.s.Writes()) != 0 {
		t.Fatalf("a PR without verdicts: %+v, %d writes", res, len(e.s.Writes()))
	}
	if _, err := e.publish(keyA, e.head, nil); err != nil {
		t.Fatal(err)
	}
	published := e.verdictOf(keyA).Body
	// Someone else's comment carrying the marker is not ours to mark.
	e.s.AddComment(fullName, prNum, fixture.Comment{User: "mallory", Body: published})

	h2 := e.s.Push(fullName, prNum, "push-1")
	res := e.move(h2, cfg, nil)
	if res.Verdicts != 1 || res.Edited != 1 || res.Covered != e.head || res.Status != "pending" {
		t.Fatalf("first push: %+v", res)
	}
	body := e.verdictOf(keyA).Body
	line, _ := render.HeadMovedLine(e.head, h2)
	if body != published+"\n"+render.HeadMovedMarker+"\n"+line+"\n" {
		t.Errorf("marked body:\n%s", strings.TrimPrefix(body, published))
	}
	st := e.s.Statuses(fullName, h2)
	if len(st) != 1 || st[0].GetState() != "pending" || !strings.Contains(st[0].GetDescription(), e.head[:7]) ||
		!strings.HasSuffix(st[0].GetTargetURL(), fmt.Sprintf("#issuecomment-%d", e.verdictOf(keyA).ID)) {
		t.Errorf("statuses on the pushed head: %+v", st)
	}
	for _, c := range e.s.Comments(fullName, prNum) {
		if c.User == "mallory" && c.Body != published {
			t.Error("another user's comment was edited")
		}
	}

	// The same push again changes nothing.
	writes := len(e.s.Writes())
	if res := e.move(h2, cfg, nil); res.Edited != 0 || res.Status != "pending" || len(e.s.Writes()) != writes {
		t.Errorf("marking the same push twice: %+v, %d new writes", res, len(e.s.Writes())-writes)
	}

	// A second push replaces the line; with on_push failure the head fails.
	h3 := e.s.Push(fullName, prNum, "push-2")
	failing := repoconfig.Default()
	failing.Status.OnPush = "failure"
	if res := e.move(h3, failing, nil); res.Edited != 1 || res.Status != "failure" {
		t.Errorf("second push: %+v", res)
	}
	body = e.verdictOf(keyA).Body
	if strings.Count(body, render.HeadMovedMarker) != 1 || strings.Contains(body, h2[:7]) || !strings.HasPrefix(body, published) {
		t.Errorf("second push stacked lines:\n%s", strings.TrimPrefix(body, published))
	}

	// A head that needs no sign-off, or with statuses off, gets no status.
	no := false
	h4 := e.s.Push(fullName, prNum, "push-3")
	if res := e.move(h4, cfg, &no); res.Status != "" || res.Edited != 1 || len(e.s.Statuses(fullName, h4)) != 0 {
		t.Errorf("no sign-off needed: %+v", res)
	}
	off := repoconfig.Default()
	f := false
	off.Status.Enabled = &f
	h5 := e.s.Push(fullName, prNum, "push-4")
	if res := e.move(h5, off, nil); res.Status != "" || len(e.s.Statuses(fullName, h5)) != 0 {
		t.Errorf("statuses disabled: %+v", res)
	}

	// Back at the assessed commit (a force-push): the line goes, and that
	// commit keeps its verdict's status.
	before := len(e.s.Statuses(fullName, e.head))
	if res := e.move(e.head, cfg, nil); res.Edited != 1 || res.Status != "" {
		t.Errorf("head back at the assessed commit: %+v", res)
	}
	if e.verdictOf(keyA).Body != published || len(e.s.Statuses(fullName, e.head)) != before {
		t.Error("the verdict of the current head still says the head moved, or got a status")
	}
}

// Every verdict of the PR is marked; the status names the newest one's.
func TestHeadMovedSeveralVerdicts(t *testing.T) {
	e := newEnv(t)
	if _, err := e.publish(keyA, e.head, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.publish(keyB, e.newer, nil); err != nil {
		t.Fatal(err)
	}
	// A withdrawn sign-off's notice is no verdict to mark.
	const keyC = "issuecomment-3003"
	if _, err := e.publish(keyC, e.newer, nil); err != nil {
		t.Fatal(err)
	}
	notice, err := render.Withdrawn(render.Withdrawal{Key: keyC, HeadSHA: e.newer, Author: "owner-a", How: "deleted"}, e.verdictOf(keyC).Body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Upsert(e.ctx, owner, name, prNum, render.Marker(keyC), notice); err != nil {
		t.Fatal(err)
	}
	h := e.s.Push(fullName, prNum, "push-1")
	res := e.move(h, repoconfig.Default(), nil)
	if e.verdictOf(keyC).Body != notice {
		t.Error("the withdrawn notice was marked")
	}
	if res.Verdicts != 2 || res.Edited != 2 || res.Covered != e.newer {
		t.Fatalf("%+v", res)
	}
	for key, covered := range map[string]string{keyA: e.head, keyB: e.newer} {
		if b := e.verdictOf(key).Body; !strings.Contains(b, "covers `"+covered[:7]+"`") {
			t.Errorf("%s's line does not name %s:\n%s", key, covered[:7], b)
		}
	}
	if st := e.s.Statuses(fullName, h); len(st) != 1 || !strings.Contains(st[0].GetDescription(), e.newer[:7]) {
		t.Errorf("status: %+v", st)
	}
}

func TestHeadMovedRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	for name, m := range map[string]HeadMove{
		"bad head":        {Client: e.p.Client, Config: withBot(cfg), Owner: owner, Repo: name, Number: prNum, Head: "HEAD"},
		"no PR":           {Client: e.p.Client, Config: withBot(cfg), Owner: owner, Repo: name, Head: e.newer},
		"no bot identity": {Client: e.p.Client, Config: cfg, Owner: owner, Repo: name, Number: prNum, Head: e.newer},
		"no client":       {Config: withBot(cfg), Owner: owner, Repo: name, Number: prNum, Head: e.newer},
	} {
		if _, err := (Verdicts{}).HeadMoved(e.ctx, m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if n := len(e.s.Writes()) + e.s.TotalCalls(); n != 0 {
		t.Errorf("refused input still called GitHub %d times", n)
	}
}

func withBot(cfg repoconfig.Config) repoconfig.Config {
	cfg.BotLogins = []string{bot}
	return cfg
}
