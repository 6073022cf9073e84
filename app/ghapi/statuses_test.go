package ghapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// TestPullsOfCommitReadsEveryPage: a commit in more PRs than one page
// holds (a branch others were cut from) is found in all of them.
func TestPullsOfCommitReadsEveryPage(t *testing.T) {
	fx, r := baseAndHead()
	const prs = 130
	for n := 1; n <= prs; n++ {
		r.Pull(&fixture.Pull{Number: n, Title: "t", User: "dev", Head: fixture.Ref{Ref: fmt.Sprint("b", n), Commit: "head"}})
	}
	srv := githubtest.New(t, fx)
	c := New(srv.Client(), ghsource.Options{})
	got, err := c.PullsOfCommit(context.Background(), "acme", "bench", fixture.CommitSHA("acme/bench", "head"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, pr := range got {
		seen[pr.GetNumber()] = true
	}
	if len(got) != prs || len(seen) != prs {
		t.Fatalf("found %d PRs (%d distinct), want %d", len(got), len(seen), prs)
	}
	if n := srv.PathCalls("GET", "/repos/acme/bench/commits/"+fixture.CommitSHA("acme/bench", "head")+"/pulls"); n != 2 {
		t.Errorf("%d page reads, want 2", n)
	}
}
