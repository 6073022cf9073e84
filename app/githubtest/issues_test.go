package githubtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// The issues endpoint answers for issues, with why they are in their
// state, and for pull requests, with a pull_request key; commits show
// GitHub's signature verification.
func TestIssuesPullsAndVerification(t *testing.T) {
	fx := codeFixture(t)
	r := fx.Repo(repo)
	r.Commits[1].Verified = true // head
	r.Issue(&fixture.Issue{Number: 3, Title: "Crash", State: "closed"})
	r.Issue(&fixture.Issue{Number: 4, State: "closed", StateReason: "not_planned"})
	r.Issue(&fixture.Issue{Number: 5, StateReason: "reopened"})
	r.Issue(&fixture.Issue{Number: 6})
	s := New(t, fx)
	c := s.Client()
	ctx := context.Background()
	for _, tt := range []struct {
		number        int
		pull          bool
		state, reason string
		url           string
	}{
		{3, false, "closed", "completed", "https://github.com/acme/bench/issues/3"},
		{4, false, "closed", "not_planned", "https://github.com/acme/bench/issues/4"},
		{5, false, "open", "reopened", "https://github.com/acme/bench/issues/5"},
		{6, false, "open", "", "https://github.com/acme/bench/issues/6"},
		{7, true, "open", "", "https://github.com/acme/bench/pull/7"},
	} {
		is, _, err := c.Issues.Get(ctx, "acme", "bench", tt.number)
		if err != nil {
			t.Fatalf("#%d: %v", tt.number, err)
		}
		if is.IsPullRequest() != tt.pull || is.GetState() != tt.state || is.GetStateReason() != tt.reason || is.GetHTMLURL() != tt.url {
			t.Errorf("#%d: pull=%v state=%q reason=%q url=%s", tt.number, is.IsPullRequest(), is.GetState(), is.GetStateReason(), is.GetHTMLURL())
		}
		if tt.state == "closed" && is.ClosedAt == nil {
			t.Errorf("#%d: closed without closed_at", tt.number)
		}
	}
	var gerr *github.ErrorResponse
	if _, _, err := c.Issues.Get(ctx, "acme", "bench", 99); !errors.As(err, &gerr) || gerr.Response.StatusCode != http.StatusNotFound {
		t.Errorf("no such number: %v", err)
	}
	if _, _, err := c.PullRequests.Get(ctx, "acme", "bench", 3); !errors.As(err, &gerr) || gerr.Response.StatusCode != http.StatusNotFound {
		t.Errorf("an issue read as a pull request: %v", err)
	}

	commits, _, err := c.PullRequests.ListCommits(ctx, "acme", "bench", 7, nil)
	if err != nil || len(commits) != 1 {
		t.Fatalf("commits = %d, %v", len(commits), err)
	}
	if v := commits[0].GetCommit().GetVerification(); !v.GetVerified() || v.GetReason() != "valid" || !strings.Contains(v.GetPayload(), "tree ") || v.GetSignature() == "" {
		t.Errorf("a verified commit: %+v", v)
	}
	br, _, err := c.Repositories.GetBranch(ctx, "acme", "bench", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := br.GetCommit().GetCommit().GetVerification(); v.GetVerified() || v.GetReason() != "unsigned" || v.Signature != nil {
		t.Errorf("an unsigned commit: %+v", v)
	}
}

func TestIssueValidation(t *testing.T) {
	for _, tt := range []struct {
		name  string
		issue fixture.Issue
		want  string
	}{
		{"a pull request's number", fixture.Issue{Number: 7}, "issue #7: a pull request has that number"},
		{"no number", fixture.Issue{}, "issues[0]: number must be positive"},
		{"a bad state", fixture.Issue{Number: 1, State: "merged"}, `state "merged"`},
		{"open as completed", fixture.Issue{Number: 1, StateReason: "completed"}, "an open issue's state_reason"},
		{"closed as reopened", fixture.Issue{Number: 1, State: "closed", StateReason: "reopened"}, "a closed issue's state_reason"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := codeFixture(t)
			is := tt.issue
			fx.Repo(repo).Issue(&is)
			if _, err := Start(fx); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}
