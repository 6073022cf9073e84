package reuse

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The slash-command acceptance table, one comment at a time.
func TestAcknowledgeTable(t *testing.T) {
	tests := []struct {
		name     string
		opts     []envOpt
		assoc    string
		body     string
		reaction string // "" = none
		reply    string // substring of the one reply; "" = no reply
		log      string
	}{
		{name: "pinned success", assoc: "MEMBER", body: "/use 30123456789", reaction: "+1",
			log: "Reuse accepted / 复用请求已接受: PR #12, run 30123456789 (success)."},
		{name: "bare use", assoc: "MEMBER", body: "/use", reaction: "-1",
			reply: "that command could not be parsed. Usage: `/use <run_id>` or `/reuse-sweep-run [run_id]`",
			log:   "Reuse rejected / 复用请求未接受: Usage: /use <run_id> or /reuse-sweep-run [run_id]"},
		{name: "trailing text", assoc: "MEMBER", body: "/use 123 now", reaction: "-1", reply: "Usage:"},
		{name: "not at line start", assoc: "MEMBER", body: "Please /use 123"},
		{name: "auto-select skips the gate no-op run", assoc: "OWNER", body: "/reuse-sweep-run", reaction: "+1",
			log: "Reuse accepted / 复用请求已接受: PR #12, run 30123456789 (success)."},
		// The 42 on the next line is not an argument: commands are whole lines.
		{name: "id on the next line is not a pin", assoc: "MEMBER", body: "/reuse-sweep-run\n42", reaction: "+1",
			log: "Reuse accepted / 复用请求已接受: PR #12, run 30123456789 (success)."},
		{name: "CRLF body", assoc: "MEMBER", body: "thanks!\r\n/use 777\r\n", reaction: "+1", log: "run 777 (cancelled)"},
		{name: "pinned cancelled", assoc: "COLLABORATOR", body: "/reuse-sweep-run 777", reaction: "+1",
			log: "run 777 (cancelled)"},
		{name: "head rebased out", assoc: "COLLABORATOR", body: "/reuse-sweep-run 556", reaction: "-1",
			reply: "Reuse rejected: head ddddddd of run 556 is not in PR #12's commit list"},
		{name: "push run", assoc: "MEMBER", body: "/use 555", reaction: "-1",
			reply: "Reuse rejected: run 555 was triggered by push, not pull_request"},
		{name: "contributor", assoc: "CONTRIBUTOR", body: "/use 555", reaction: "-1",
			reply: "`/use 555` was not accepted: it requires one of these author associations: OWNER, MEMBER, COLLABORATOR.",
			log:   "a reuse command requires an OWNER, MEMBER, or COLLABORATOR author association; @someone is CONTRIBUTOR"},
		{name: "contributor with malformed command", assoc: "NONE", body: "/reuse-sweep-run now", reaction: "-1",
			reply: "`/reuse-sweep-run` was not accepted"},
		{name: "evals-only label", opts: []envOpt{withLabels("evals-only")}, assoc: "MEMBER", body: "/use 30123456789",
			reaction: "-1", reply: "PR #12 carries the reuse-incompatible label evals-only"},
		{name: "closed PR", opts: []envOpt{closed()}, assoc: "MEMBER", body: "/use 30123456789",
			reaction: "-1", reply: "PR #12 is closed, not open"},
		{name: "unknown run", assoc: "MEMBER", body: "/use 404", reaction: "-1",
			reply: "run 404 was not found in this repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.opts...)
			author := "someone"
			if tt.assoc != "CONTRIBUTOR" && tt.assoc != "NONE" {
				author = "maintainer"
			}
			id := e.post(author, tt.assoc, tt.body)
			e.acknowledge(id, "created")
			e.expect(id, tt.reaction, tt.reply)
			if tt.log != "" {
				e.logged(tt.log)
			}
			if tt.reaction == "" && len(e.s.Writes()) != 0 {
				t.Errorf("ignored comment caused writes: %+v", e.s.Writes())
			}
			if tt.reaction != "" && !strings.Contains(e.log.String(), "delivery_id=d-created") {
				t.Errorf("log lines lack the delivery id:\n%s", e.log.String())
			}
			if rs := e.replies(id); len(rs) == 1 && !strings.Contains(rs[0].Body, "<summary>中文</summary>") {
				t.Errorf("reply is not bilingual: %q", rs[0].Body)
			}
		})
	}
}

func TestSupersededOlderCommand(t *testing.T) {
	e := newEnv(t)
	older := e.post("alice", "MEMBER", "/use 777")
	e.acknowledge(older, "created")
	e.expect(older, "+1", "")
	newer := e.post("bob", "MEMBER", "/use 30123456789")
	e.acknowledge(newer, "created")
	e.expect(newer, "+1", "")

	// Editing the older comment does not make it newest (created_at decides).
	e.s.EditComment(older, "/use 777\n\nstill want this one")
	e.acknowledge(older, "edited")
	e.expect(older, "-1", "Reuse rejected: a newer reuse request supersedes this comment")
	e.expect(newer, "+1", "")

	// Check 4 reads the same comments and reports the newer request.
	settings := repo.Defaults()
	pr := &checks.PR{Owner: "acme", Repo: "bench", Number: prNum, HeadRef: "feat",
		Source: ghsource.New(e.s.Client(), "acme", "bench", prNum, ghsource.Options{})}
	repo.SettingsParam.Set(pr, &settings)
	reg, err := checks.NewRegistry(inferencex.ReuseCommand)
	if err != nil {
		t.Fatal(err)
	}
	res := checks.Run(context.Background(), reg, pr, nil)[0].Result
	if want := "@bob posted /use 30123456789 (MEMBER)."; res.Status != checks.Pass || res.Reason.EN != want {
		t.Errorf("Check 4 = %s %q, want PASS %q", res.Status, res.Reason.EN, want)
	}
}

func TestEditRemovingCommandClearsReactionAndReply(t *testing.T) {
	e := newEnv(t)
	id := e.post("maintainer", "MEMBER", "/use 555")
	e.acknowledge(id, "created")
	e.expect(id, "-1", "triggered by push")

	e.s.EditComment(id, "never mind, running a full sweep")
	e.acknowledge(id, "edited")
	e.expect(id, "", "")
	e.logged("the comment no longer holds a reuse command")
}

func TestReplyUpdatedInPlace(t *testing.T) {
	e := newEnv(t)
	id := e.post("maintainer", "MEMBER", "/use 555")
	e.acknowledge(id, "created")
	first := e.replies(id)
	if len(first) != 1 {
		t.Fatalf("want one reply, got %d", len(first))
	}

	e.s.EditComment(id, "/use 556")
	e.acknowledge(id, "edited")
	e.expect(id, "-1", "head ddddddd of run 556 is not in PR #12's commit list")
	if got := e.replies(id); got[0].ID != first[0].ID {
		t.Errorf("reply was recreated (%d) instead of updated (%d)", got[0].ID, first[0].ID)
	}

	// A replay of the same event changes nothing but the reaction.
	e.s.ResetCounts()
	before := len(e.s.Writes())
	e.acknowledge(id, "edited")
	for _, w := range e.s.Writes()[before:] {
		if strings.Contains(w.Path, "/comments") && !strings.Contains(w.Path, "/reactions") {
			t.Errorf("replay wrote a comment: %s %s", w.Method, w.Path)
		}
	}
	e.expect(id, "-1", "run 556")

	// Fixing the command accepts it and removes the now wrong reply.
	e.s.EditComment(id, "/use 30123456789")
	e.acknowledge(id, "edited")
	e.expect(id, "+1", "")
}

func TestDeletedCommandRemovesReply(t *testing.T) {
	e := newEnv(t)
	id := e.post("maintainer", "MEMBER", "/use")
	e.acknowledge(id, "created")
	e.expect(id, "-1", "Usage:")
	j := e.job(id, "deleted")
	if _, err := e.s.Client().Issues.DeleteComment(context.Background(), "acme", "bench", id); err != nil {
		t.Fatal(err)
	}
	if err := e.ack.Acknowledge(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if rs := e.replies(id); len(rs) != 0 {
		t.Errorf("reply survived the command's deletion: %q", rs[0].Body)
	}
}

func TestStaleEventDoesNothing(t *testing.T) {
	e := newEnv(t)
	id := e.post("maintainer", "MEMBER", "/use 30123456789")
	j := e.job(id, "created")
	e.s.EditComment(id, "/use 777")
	if err := e.ack.Acknowledge(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if w := e.s.Writes(); len(w) != 0 {
		t.Errorf("stale event wrote: %+v", w)
	}
	e.logged("stale event")
}

func TestOthersReactionsAndSpoofedRepliesUntouched(t *testing.T) {
	const cmdID = 1000000777
	e := newEnv(t, func(fx *fixture.Fixture, p *fixture.Pull) {
		p.Comments = append(p.Comments, &fixture.Comment{ID: cmdID, User: "maintainer", Association: "MEMBER",
			Body: "/use 555", CreatedAt: fixture.DefaultNow.Add(-2 * time.Hour),
			Reactions: []*fixture.Reaction{{ID: 1, User: "alice", Content: "+1"}, {ID: 2, User: bot, Content: "heart"}}})
	})
	// A contributor pastes the reply marker into their own comment.
	fake := e.post("mallory", "CONTRIBUTOR", render.ReplyMarker(cmdID)+"\nReuse accepted.")
	e.acknowledge(cmdID, "created")
	e.s.EditComment(cmdID, "nothing to see")
	e.acknowledge(cmdID, "edited")

	var kept []string
	found := false
	for _, c := range e.s.Comments(repoName, prNum) {
		found = found || c.ID == fake
		if c.ID == cmdID {
			for _, r := range c.Reactions {
				kept = append(kept, r.User+":"+r.Content)
			}
		}
	}
	if !found {
		t.Error("a contributor's comment carrying the reply marker was deleted")
	}
	if strings.Join(kept, ",") != "alice:+1,"+bot+":heart" {
		t.Errorf("reactions after clearing = %v, want alice's +1 and the bot's heart only", kept)
	}
}

func TestRaceGuard(t *testing.T) {
	t.Run("newer command during validation", func(t *testing.T) {
		e := newEnv(t)
		id := e.post("maintainer", "MEMBER", "/use 30123456789")
		e.hook = func() { e.post("other", "OWNER", "/use 777") }
		e.acknowledge(id, "created")
		e.expect(id, "", "")
		e.logged("a newer reuse request appeared during validation")
	})
	t.Run("comment edited during validation", func(t *testing.T) {
		e := newEnv(t)
		id := e.post("maintainer", "MEMBER", "/use 30123456789")
		e.hook = func() { e.s.EditComment(id, "/use 777") }
		e.acknowledge(id, "created")
		e.expect(id, "", "")
		e.logged("the comment changed during validation")
	})
}

func TestInvalidConfigIsAnAnswer(t *testing.T) {
	e := newEnv(t, withConfig("reuse_associations: [OWNER\n"))
	id := e.post("maintainer", "MEMBER", "/use 30123456789")
	e.acknowledge(id, "created")
	e.expect(id, "-1", "could not be verified: .github/verdict.yml on main is invalid")
}

func TestConfiguredAssociations(t *testing.T) {
	e := newEnv(t, withConfig("reuse_associations: [OWNER]\n"))
	id := e.post("maintainer", "MEMBER", "/use 30123456789")
	e.acknowledge(id, "created")
	e.expect(id, "-1", "it requires one of these author associations: OWNER.")
	e.logged("a reuse command requires an OWNER author association; @maintainer is MEMBER")
}

func TestTransientErrorsAreRetried(t *testing.T) {
	e := newEnv(t)
	id := e.post("maintainer", "MEMBER", "/use 30123456789")
	e.s.AddFault(githubtest.Fault{Method: "GET", Path: `/reactions$`, Status: 502, Times: 1})
	err := e.ack.Acknowledge(context.Background(), e.job(id, "created"))
	if !retry.IsTransient(err) {
		t.Fatalf("want a transient error, got %v", err)
	}
	// The retry succeeds.
	e.acknowledge(id, "created")
	e.expect(id, "+1", "")

	e2 := newEnv(t)
	id2 := e2.post("maintainer", "MEMBER", "/use 30123456789")
	e2.s.AddFault(githubtest.Fault{Method: "POST", Path: `/reactions$`, Status: 403, Times: 1})
	if err := e2.ack.Acknowledge(context.Background(), e2.job(id2, "created")); err == nil || retry.IsTransient(err) {
		t.Fatalf("a 403 must be final, got %v", err)
	}
}

func TestMisconfigured(t *testing.T) {
	a := &Acknowledger{}
	if err := a.Acknowledge(context.Background(), jobs.ReuseArgs{PR: 1, CommentID: 1}); err == nil {
		t.Fatal("an unconfigured acknowledger must refuse")
	}
}

func TestEvidenceFailures(t *testing.T) {
	t.Run("server error is retried", func(t *testing.T) {
		e := newEnv(t)
		id := e.post("maintainer", "MEMBER", "/use 30123456789")
		e.s.AddFault(githubtest.Fault{Method: "GET", Path: `/actions/runs/30123456789$`, Status: 502, Times: 1})
		if err := e.ack.Acknowledge(context.Background(), e.job(id, "created")); !retry.IsTransient(err) {
			t.Fatalf("want a transient error, got %v", err)
		}
		e.expect(id, "", "")
		e.acknowledge(id, "created")
		e.expect(id, "+1", "")
	})
	t.Run("rate limit waits for the reset", func(t *testing.T) {
		e := newEnv(t)
		id := e.post("maintainer", "MEMBER", "/use 30123456789")
		e.s.AddFault(githubtest.RateLimitFault(`/actions/runs/30123456789/artifacts$`, 1, 10*time.Minute))
		err := e.ack.Acknowledge(context.Background(), e.job(id, "created"))
		if d, ok := retry.After(err); !ok || d < 8*time.Minute || d > 11*time.Minute {
			t.Fatalf("want a rate-limit retry after ~10m, got %v (%v, %v)", err, d, ok)
		}
	})
	t.Run("missing Actions permission is an answer", func(t *testing.T) {
		e := newEnv(t)
		id := e.post("maintainer", "MEMBER", "/use 30123456789")
		e.s.AddFault(githubtest.Fault{Method: "GET", Path: `/actions/runs/30123456789$`, Status: 403,
			Body: `{"message":"Resource not accessible by integration"}`})
		e.acknowledge(id, "created")
		e.expect(id, "-1", "Reuse rejected: could not be verified: run 30123456789 could not be read")
	})
}

func TestCommentOfAnotherPRIsRefused(t *testing.T) {
	e := newEnv(t, func(fx *fixture.Fixture, _ *fixture.Pull) {
		fx.Repo(repoName).Pull(&fixture.Pull{Number: 13, Head: fixture.Ref{Ref: "other", Commit: "c1"},
			Base: fixture.Ref{Ref: "main", Commit: "base"}})
	})
	id := e.s.AddComment(repoName, 13, fixture.Comment{User: "maintainer", Association: "MEMBER", Body: "/use 777"})
	j := e.job(id, "created")
	j.Body = "/use 777"
	if err := e.ack.Acknowledge(context.Background(), j); err == nil || !strings.Contains(err.Error(), "not PR #12") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if w := e.s.Writes(); len(w) != 0 {
		t.Errorf("wrote for a comment of another PR: %+v", w)
	}
}

func TestDuplicateRepliesCollapse(t *testing.T) {
	e := newEnv(t)
	id := e.post("maintainer", "MEMBER", "/use 555")
	gh := e.s.Client() // writes through the API are the bot's
	for i := 0; i < 2; i++ {
		body := render.ReplyMarker(id) + "\nold reply"
		if _, _, err := gh.Issues.CreateComment(context.Background(), "acme", "bench", prNum, &github.IssueComment{Body: &body}); err != nil {
			t.Fatal(err)
		}
	}
	e.acknowledge(id, "created")
	e.expect(id, "-1", "triggered by push")
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		in       []string
		en, zh   string
		articled string
	}{
		{[]string{"OWNER"}, "OWNER", "OWNER", "an"},
		{[]string{"MEMBER", "OWNER"}, "MEMBER or OWNER", "MEMBER 或 OWNER", "a"},
		{[]string{"OWNER", "MEMBER", "COLLABORATOR"}, "OWNER, MEMBER, or COLLABORATOR", "OWNER、MEMBER 或 COLLABORATOR", "an"},
		{nil, "(none)", "(none)", "a"},
	} {
		if got := orList(tc.in, "or"); got != tc.en {
			t.Errorf("orList(%v, or) = %q, want %q", tc.in, got, tc.en)
		}
		if got := orList(tc.in, "或"); got != tc.zh {
			t.Errorf("orList(%v, 或) = %q, want %q", tc.in, got, tc.zh)
		}
		if got := article(tc.in); got != tc.articled {
			t.Errorf("article(%v) = %q, want %q", tc.in, got, tc.articled)
		}
	}
}
