package checklist

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

// Row 5 with issues in every state and pull requests, under every state
// an item can ask for.
func TestLinkedIssuesAndPulls(t *testing.T) {
	issue := func(state, reason string) checks.Issue {
		return checks.Issue{Owner: "o", Repo: "r", Number: 5, State: state, StateReason: reason, HTMLURL: "https://github.com/o/r/issues/5"}
	}
	merged := checks.UpstreamPR{State: "closed", Merged: true, HTMLURL: "https://github.com/o/r/pull/6"}
	closedPR := checks.UpstreamPR{State: "closed"}
	openPR := checks.UpstreamPR{State: "open"}
	tests := []struct {
		name   string
		state  string // the item's state; "" is the default
		body   string
		issues map[string]checks.Issue
		pulls  map[string]checks.UpstreamPR
		status checks.Status
		reason string
	}{
		{"an issue under merged", "", "Fixes #5", map[string]checks.Issue{"o/r#5": issue("closed", "completed")}, nil,
			checks.Fail, "o/r#5 is an issue, which cannot be merged"},
		{"an issue closed as completed", StateCompleted, "Fixes #5", map[string]checks.Issue{"o/r#5": issue("closed", "completed")}, nil,
			checks.Pass, "1 linked issue(s) completed"},
		{"an issue closed as not planned is not completed", StateCompleted, "Fixes #5", map[string]checks.Issue{"o/r#5": issue("closed", "not_planned")}, nil,
			checks.Fail, "issue o/r#5 is closed as not planned, not completed"},
		{"an issue closed without a reason is not completed", StateCompleted, "Fixes #5", map[string]checks.Issue{"o/r#5": issue("closed", "")}, nil,
			checks.Fail, "issue o/r#5 is closed, GitHub records no reason, not completed"},
		{"an open issue is not completed", StateCompleted, "Fixes #5", map[string]checks.Issue{"o/r#5": issue("open", "")}, nil,
			checks.Fail, "issue o/r#5 is open, not completed"},
		{"a reopened issue is open", StateOpen, "Fixes #5", map[string]checks.Issue{"o/r#5": issue("open", "reopened")}, nil,
			checks.Pass, "1 linked issue(s) open"},
		{"an issue closed as not planned is closed", StateClosed, "https://github.com/o/r/issues/5", map[string]checks.Issue{"o/r#5": issue("closed", "not_planned")}, nil,
			checks.Pass, "1 linked issue(s) closed"},
		{"an open issue is not closed", StateClosed, "Fixes #5", map[string]checks.Issue{"o/r#5": issue("open", "")}, nil,
			checks.Fail, "issue o/r#5 is open, not closed"},

		{"a merged pull request", "", "After #6", nil, map[string]checks.UpstreamPR{"o/r#6": merged},
			checks.Pass, "1 linked pull request(s) merged"},
		{"a merged pull request is completed", StateCompleted, "After #6", nil, map[string]checks.UpstreamPR{"o/r#6": merged},
			checks.Pass, "1 linked pull request(s) completed"},
		{"a pull request closed unmerged is not completed", StateCompleted, "After #6", nil, map[string]checks.UpstreamPR{"o/r#6": closedPR},
			checks.Fail, "pull request o/r#6 is closed, not completed"},
		{"a pull request closed unmerged is not merged", "", "After #6", nil, map[string]checks.UpstreamPR{"o/r#6": closedPR},
			checks.Fail, "pull request o/r#6 is closed, not merged"},
		{"a merged pull request is closed", StateClosed, "After #6", nil, map[string]checks.UpstreamPR{"o/r#6": merged},
			checks.Pass, "1 linked pull request(s) closed"},
		{"an open pull request is open", StateOpen, "After #6", nil, map[string]checks.UpstreamPR{"o/r#6": openPR},
			checks.Pass, "1 linked pull request(s) open"},

		{"a pull request and an issue", StateCompleted, "After #6, fixes #5", map[string]checks.Issue{"o/r#5": issue("closed", "completed")},
			map[string]checks.UpstreamPR{"o/r#6": merged}, checks.Pass, "1 linked pull request(s) and 1 linked issue(s) completed"},
		{"every link must be in the state", StateCompleted, "Fixes #5 and #6", map[string]checks.Issue{"o/r#5": issue("closed", "completed")},
			map[string]checks.UpstreamPR{"o/r#6": openPR}, checks.Fail, "pull request o/r#6 is open, not completed"},
		{"a reference outside the allowed repositories is ignored", StateCompleted, "Fixes other/r#5", nil, nil,
			checks.Fail, "links no pull request or issue in o/r"},
		{"only the allowed one is read", StateCompleted, "Fixes other/r#9 and #5", map[string]checks.Issue{"o/r#5": issue("closed", "completed"), "other/r#9": issue("open", "")}, nil,
			checks.Pass, "1 linked issue(s) completed"},
		{"the PR itself does not count", StateOpen, "This is #7", nil, nil,
			checks.Fail, "links no pull request or issue in o/r"},
		{"a number that is neither", StateCompleted, "Fixes #5", nil, nil,
			checks.Fail, "could not be verified: reading o/r#5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := "  items:\n    - item: Docs updated\n      verify: linked\n"
			if tt.state != "" {
				settings += "      state: " + tt.state + "\n"
			}
			pr, s := newPR(t, settings)
			pr.Body, s.Issues, s.Upstream = tt.body, tt.issues, tt.pulls
			r := checkstest.RunOne(t, pr, Linked)
			if r.Status != tt.status || !strings.Contains(r.Reason.EN, tt.reason) {
				t.Fatalf("%s %q, want %s containing %q", r.Status, r.Reason.EN, tt.status, tt.reason)
			}
			if words := checkstest.EnglishInChinese(r.Reason.ZH); len(words) > 0 {
				t.Errorf("untranslated %q in %q", words, r.Reason.ZH)
			}
			if n := s.Calls["Issue"]; strings.Contains(tt.body, "other/") && n > 1 {
				t.Errorf("%d issue reads: a reference outside the allowed repositories was read", n)
			}
		})
	}
}

// A link that cannot be read, as an issue or as a pull request, leaves
// the item unverified, never passed.
func TestLinkedUnreadable(t *testing.T) {
	forbidden := fmt.Errorf("reading o/r#5: %w", checks.ErrForbidden)
	for _, tt := range []struct {
		name  string
		setup func(s *checkstest.Source)
	}{
		{"the issue", func(s *checkstest.Source) { s.IssueError = forbidden }},
		{"the pull request's merge", func(s *checkstest.Source) {
			s.Issues = map[string]checks.Issue{"o/r#5": {PullRequest: true, State: "closed"}}
			s.UpstreamPRError = forbidden
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pr, s := newPR(t, "  items:\n    - item: Docs updated\n      verify: linked\n      state: closed\n")
			pr.Body = "Fixes #5"
			tt.setup(s)
			r := checkstest.RunOne(t, pr, Linked)
			if r.Status != checks.Fail || !strings.HasPrefix(r.Reason.EN, `"Docs updated": could not be verified: reading o/r#5`) {
				t.Fatalf("%s %q, want unverified", r.Status, r.Reason.EN)
			}
		})
	}
}

// oneUnreadable is a source on which issue #5 cannot be read.
type oneUnreadable struct{ *checkstest.Source }

func (s oneUnreadable) Issue(ctx context.Context, owner, repo string, n int) (checks.Issue, error) {
	if n == 5 {
		return checks.Issue{}, fmt.Errorf("reading o/r#5: %w", checks.ErrForbidden)
	}
	return s.Source.Issue(ctx, owner, repo, n)
}

// A link that cannot be read does not stop the row when another link
// already breaks the item; with none that does, the item stays unverified.
func TestLinkedUnreadableBesideADecidingLink(t *testing.T) {
	for _, tt := range []struct {
		name, state string
		status      checks.Status
		reason      string
	}{
		{"the other link breaks it", StateCompleted, checks.Fail, "issue o/r#8 is open, not completed"},
		{"the other link keeps it", StateOpen, checks.Fail, `"Docs updated": could not be verified: reading o/r#5`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pr, s := newPR(t, "  items:\n    - item: Docs updated\n      verify: linked\n      state: "+tt.state+"\n")
			pr.Body = "Fixes #5 and #8"
			s.Issues = map[string]checks.Issue{"o/r#8": {Owner: "o", Repo: "r", Number: 8, State: "open"}}
			pr.Source = oneUnreadable{s}
			r := checkstest.RunOne(t, pr, Linked)
			if r.Status != tt.status || !strings.Contains(r.Reason.EN, tt.reason) {
				t.Fatalf("%s %q, want %s containing %q", r.Status, r.Reason.EN, tt.status, tt.reason)
			}
		})
	}
}

// Issue URLs are references too.
func TestRefsInIssueURL(t *testing.T) {
	got := refsIn("See https://github.com/o/x/issues/12 and https://github.com/o/x/pull/13", "o", "r")
	want := []prRef{{"o", "x", 12}, {"o", "x", 13}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("refs = %v, want %v", got, want)
	}
}
