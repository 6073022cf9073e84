package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/checks"
)

func TestWithdraw(t *testing.T) {
	cfg := repoconfig.Default()
	cfg.BotLogins = []string{bot}
	for _, tt := range []struct {
		name      string
		headKnown bool // the ledger knows the commit; else the comment's footer names it
		standing  *Standing
		state     string
		concl     string
	}{
		{"nothing else stands", true, nil, "failure", "failure"},
		{"commit from the comment", false, nil, "failure", "failure"},
		{"another verdict stands", true, &Standing{Key: keyB, Overall: checks.VerdictPass, CommentURL: "https://x/b"}, "success", "success"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if _, err := e.publish(keyA, e.head, nil); err != nil {
				t.Fatal(err)
			}
			w := Withdrawal{Target: Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA},
				Author: "owner-a", By: "maintainer-b", How: "deleted",
				StandingFor: func(_ context.Context, sha string) (*Standing, error) {
					if sha != e.head {
						t.Errorf("standing asked for %s", sha)
					}
					return tt.standing, nil
				}}
			if tt.headKnown {
				w.HeadSHA = e.head
			}
			res, err := Verdicts{}.Withdraw(e.ctx, w)
			if err != nil || res.HeadSHA != e.head || res.CommentURL == "" {
				t.Fatalf("Withdraw = %+v, %v", res, err)
			}
			cs := e.s.Comments(fullName, prNum)
			if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, render.Marker(keyA)+"\n## ➖ **Sign-off withdrawn** ➖") ||
				!strings.Contains(cs[0].Body, "> "+render.HeaderPass) {
				t.Fatalf("comments = %+v", cs)
			}
			st := e.s.Statuses(fullName, e.head)[0]
			if st.GetState() != tt.state {
				t.Errorf("status %s %q, want %s", st.GetState(), st.GetDescription(), tt.state)
			}
			if tt.standing != nil && st.GetTargetURL() != tt.standing.CommentURL {
				t.Errorf("status points at %s, want the standing verdict", st.GetTargetURL())
			}
			runs := e.s.CheckRuns(fullName, e.head)
			if len(runs) != 1 || runs[0].GetConclusion() != tt.concl || runs[0].GetOutput().GetTitle() != "Sign-off withdrawn" {
				t.Errorf("check runs = %+v, want one %s", runs, tt.concl)
			}
			// Again (a retried job): nothing new is posted.
			writes := len(e.commentWrites())
			if _, err := (Verdicts{}).Withdraw(e.ctx, w); err != nil {
				t.Fatal(err)
			}
			if n := len(e.commentWrites()); n != writes {
				t.Errorf("a second withdrawal wrote the comment again (%d writes)", n-writes)
			}
		})
	}
}

func TestWithdrawWithoutVerdict(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	cfg.BotLogins = []string{bot}
	w := Withdrawal{Target: Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA}, How: "deleted"}
	res, err := Verdicts{}.Withdraw(e.ctx, w)
	if err != nil || res != (Withdrawn{}) {
		t.Fatalf("Withdraw = %+v, %v", res, err)
	}
	if n := len(e.s.Writes()); n != 0 {
		t.Errorf("%d writes for a sign-off that had no verdict", n)
	}
}

func TestSupersededPublishesTheCommentOnly(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	cfg.BotLogins = []string{bot}
	v := Verdicts{Pending: true}
	tgt := Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA, HeadSHA: e.head, SupersededBy: keyB}
	started, err := v.Start(e.ctx, tgt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Finish(e.ctx, started, e.body(keyA, e.head, map[int]checks.Status{3: checks.Fail})); err != nil {
		t.Fatal(err)
	}
	if n, m := len(e.s.Statuses(fullName, e.head)), len(e.s.CheckRuns(fullName, e.head)); n != 0 || m != 0 {
		t.Errorf("a superseded verdict wrote %d statuses and %d check runs", n, m)
	}
	if n := len(e.s.Comments(fullName, prNum)); n != 1 {
		t.Errorf("%d comments, want its own verdict comment", n)
	}
}

// TestSupersededRetryClosesItsRun: a retry superseded by a newer sign-off's
// verdict completes the check run its interrupted attempt opened, with the
// standing verdict's conclusion, instead of leaving it in progress.
func TestSupersededRetryClosesItsRun(t *testing.T) {
	e := newEnv(t)
	cfg := repoconfig.Default()
	cfg.BotLogins = []string{bot}
	v := Verdicts{Pending: true}
	first := Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA, HeadSHA: e.head}
	if _, err := v.Start(e.ctx, first); err != nil { // the attempt that died
		t.Fatal(err)
	}
	retry := first
	retry.Retry, retry.SupersededBy = true, keyB
	retry.Superseding = &Standing{Key: keyB, Overall: checks.VerdictPass, CommentURL: "https://x/b"}
	started, err := v.Start(e.ctx, retry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Finish(e.ctx, started, e.body(keyA, e.head, map[int]checks.Status{3: checks.Fail})); err != nil {
		t.Fatal(err)
	}
	runs := e.s.CheckRuns(fullName, e.head)
	if len(runs) != 1 || runs[0].GetStatus() != "completed" || runs[0].GetConclusion() != "success" ||
		runs[0].GetDetailsURL() != "https://x/b" {
		t.Fatalf("check runs = %+v; want the open one completed with the standing verdict", runs)
	}
}

// TestAbortRetractsAVerdictOnTheSameCommit: a verification given up after
// one attempt published its comment leaves no PASS comment beside its
// failure status: comment, status and check run agree. A verdict on an
// earlier commit is a record of that commit and stays.
func TestAbortRetractsAVerdictOnTheSameCommit(t *testing.T) {
	for _, tt := range []struct {
		name    string
		same    bool
		retract bool
	}{{"same commit", true, true}, {"earlier commit", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			cfg := repoconfig.Default()
			cfg.BotLogins = []string{bot}
			if _, err := e.publish(keyA, e.head, nil); err != nil {
				t.Fatal(err)
			}
			sha := e.head
			if tt.same {
				sha = e.newer
				if _, err := e.publish(keyA, e.newer, nil); err != nil {
					t.Fatal(err)
				}
			}
			tgt := Target{Client: client(e.s), Config: cfg, Owner: owner, Repo: name, Number: prNum, Key: keyA, HeadSHA: e.newer}
			if err := (Verdicts{}).Abort(e.ctx, tgt, "GitHub kept failing"); err != nil {
				t.Fatal(err)
			}
			cs := e.s.Comments(fullName, prNum)
			if len(cs) != 1 {
				t.Fatalf("%d comments", len(cs))
			}
			want, _ := render.InvalidMarkdown(keyA, sha)
			if got := cs[0].Body == want; got != tt.retract {
				t.Errorf("comment retracted = %v, want %v:\n%s", got, tt.retract, cs[0].Body)
			}
			if st := e.s.Statuses(fullName, e.newer); len(st) == 0 || st[0].GetState() != "failure" {
				t.Errorf("status on the head = %+v; want failure", st)
			}
		})
	}
}
