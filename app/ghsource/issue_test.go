package ghsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/checks"
)

// issueFixture is the repository under verification with PR 3412 and two
// issues, and another repository with an open issue and a merged PR.
func issueFixture() *fixture.Fixture {
	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	r.Commit("base", "")
	r.Commit("head", "")
	r.Branch("main", "base")
	r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "head"}, Files: []*fixture.File{{Filename: "a.txt", Patch: "@@ -0,0 +1 @@\n+x"}}})
	r.Issue(&fixture.Issue{Number: 5, Title: "Crash", State: "closed"})
	r.Issue(&fixture.Issue{Number: 8, State: "closed", StateReason: "not_planned"})
	d := fx.Repo("acme/designs")
	d.Commit("main", "")
	d.Branch("main", "main")
	d.Issue(&fixture.Issue{Number: 2, Title: "Pagination"})
	d.Pull(&fixture.Pull{Number: 3, Head: fixture.Ref{Commit: "main"}, State: "closed", Merged: true,
		Files: []*fixture.File{{Filename: "p.md", Patch: "@@ -0,0 +1 @@\n+x"}}})
	return fx
}

func TestIssue(t *testing.T) {
	s := githubtest.New(t, issueFixture())
	// The installation cannot see acme/designs; the fallback client can.
	s.AddFault(githubtest.Fault{Path: `^/repos/acme/designs/`, Auth: "ghs_inst-token", Status: http.StatusNotFound})
	src := newSource(t, s, Options{UpstreamClient: client(t, s, "")})
	ctx := context.Background()
	for _, tt := range []struct {
		owner, repo string
		number      int
		want        checks.Issue
	}{
		{ixOwner, ixRepo, 5, checks.Issue{Owner: ixOwner, Repo: ixRepo, Number: 5, State: "closed", StateReason: "completed",
			HTMLURL: "https://github.com/SemiAnalysisAI/InferenceX/issues/5", Title: "Crash"}},
		{ixOwner, ixRepo, 8, checks.Issue{Owner: ixOwner, Repo: ixRepo, Number: 8, State: "closed", StateReason: "not_planned",
			HTMLURL: "https://github.com/SemiAnalysisAI/InferenceX/issues/8", Title: "Issue 8"}},
		{ixOwner, ixRepo, 3412, checks.Issue{Owner: ixOwner, Repo: ixRepo, Number: 3412, PullRequest: true, State: "open",
			HTMLURL: "https://github.com/SemiAnalysisAI/InferenceX/pull/3412", Title: "PR 3412"}},
		{"acme", "designs", 2, checks.Issue{Owner: "acme", Repo: "designs", Number: 2, State: "open",
			HTMLURL: "https://github.com/acme/designs/issues/2", Title: "Pagination"}},
		{"acme", "designs", 3, checks.Issue{Owner: "acme", Repo: "designs", Number: 3, PullRequest: true, State: "closed",
			HTMLURL: "https://github.com/acme/designs/pull/3", Title: "PR 3"}},
	} {
		t.Run(fmt.Sprintf("%s/%s#%d", tt.owner, tt.repo, tt.number), func(t *testing.T) {
			got, err := src.Issue(ctx, tt.owner, tt.repo, tt.number)
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
	if _, err := src.Issue(ctx, ixOwner, ixRepo, 99); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("no such number: %v", err)
	}
	// Memoized: a second read asks GitHub nothing.
	before := s.Calls("GET /repos/{owner}/{repo}/issues/{number}")
	if _, err := src.Issue(ctx, ixOwner, ixRepo, 5); err != nil || s.Calls("GET /repos/{owner}/{repo}/issues/{number}") != before {
		t.Errorf("a second read of #5 went to GitHub (%v)", err)
	}
}

// The repository under verification is read with the installation alone:
// its refusal is the answer, not a cue to try another token.
func TestIssueOfThisRepositoryWithoutFallback(t *testing.T) {
	s := githubtest.New(t, issueFixture())
	s.AddFault(githubtest.Fault{Path: `/issues/5$`, Auth: "ghs_inst-token", Status: http.StatusForbidden})
	src := newSource(t, s, Options{UpstreamClient: client(t, s, "")})
	if _, err := src.Issue(context.Background(), ixOwner, ixRepo, 5); !errors.Is(err, checks.ErrForbidden) {
		t.Errorf("refused: %v, want ErrForbidden", err)
	}
	if n := s.Calls("GET /repos/{owner}/{repo}/issues/{number}"); n != 1 {
		t.Errorf("%d reads, want the installation's alone", n)
	}
}

// Commits carry GitHub's verification, from the PR's commit list and from
// the comparison that lists past its 250.
func TestCommitsCarryVerification(t *testing.T) {
	for _, n := range []int{3, 260} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			fx := fixture.New("verdict")
			r := fx.Repo(ixFull)
			r.Commit("base", "")
			r.Branch("main", "base")
			var names []string
			for i := range n {
				names = append(names, fmt.Sprintf("c%03d", i))
				r.Commit(names[i], "")
				r.Commits[i+1].Verified = i%2 == 1
			}
			r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: names[n-1]}, Commits: names, Files: []*fixture.File{{Filename: "a.txt", Patch: "@@ -0,0 +1 @@\n+x"}}})
			s := githubtest.New(t, fx)
			cl, err := newSource(t, s, Options{}).Commits(context.Background())
			if err != nil || len(cl.Commits) != n || cl.Truncated || cl.SignaturesErr != nil {
				t.Fatalf("commits = %d truncated=%v signatures=%v, %v", len(cl.Commits), cl.Truncated, cl.SignaturesErr, err)
			}
			if n > 250 && s.Calls("GET /repos/{owner}/{repo}/compare/{basehead...}") == 0 {
				t.Error("the commits past 250 were not read through the comparison")
			}
			for i, c := range cl.Commits {
				if c.Verified != (i%2 == 1) {
					t.Errorf("commit %d: verified=%v", i, c.Verified)
				}
			}
		})
	}
}
