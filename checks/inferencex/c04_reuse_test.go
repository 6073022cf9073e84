package inferencex_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestReuseCheck(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 11, 2, 9, min, 0, 0, time.UTC) }
	com := func(id int64, author, assoc, body string, min int) checks.Comment {
		return checks.Comment{ID: id, Author: author, Association: assoc, Body: body, CreatedAt: at(min), UpdatedAt: at(min),
			URL: fmt.Sprintf("https://github.com/o/r/pull/12#issuecomment-%d", id)}
	}
	tests := []struct {
		name     string
		comments []checks.Comment
		labels   []string
		source   func(*checkstest.Source) checks.Source
		status   checks.Status
		en       string
		evidence string // substring of some evidence value
	}{
		{
			name:     "authorized /use",
			comments: []checks.Comment{com(1, "maintainer", "MEMBER", "/use 30123456789", 1)},
			status:   checks.Pass, en: "@maintainer posted /use 30123456789 (MEMBER).",
			evidence: "eligible: run 30123456789 (success)",
		},
		{
			name: "contributor command does not count (S13)",
			comments: []checks.Comment{
				com(1, "someone", "CONTRIBUTOR", "/use 123", 1),
				com(2, "maintainer", "MEMBER", "LGTM", 2),
			},
			status: checks.Warn, en: inferencex.ReuseNoneReason.EN,
			evidence: "@someone (CONTRIBUTOR): /use 123",
		},
		{
			name:   "no comments",
			status: checks.Warn, en: inferencex.ReuseNoneReason.EN,
		},
		{
			name: "newest authorized wins",
			comments: []checks.Comment{
				com(1, "a", "MEMBER", "/use 1", 1),
				com(2, "b", "MEMBER", "/use 777", 2),
				com(3, "c", "MEMBER", "/use", 3),
			},
			status: checks.Pass, en: "@b posted /use 777 (MEMBER).",
		},
		{
			name:     "auto-select",
			comments: []checks.Comment{com(1, "owner", "OWNER", "/reuse-sweep-run", 1)},
			status:   checks.Pass, en: "@owner posted /reuse-sweep-run (OWNER), auto-select.",
			evidence: "eligible: run 30123456789",
		},
		{
			name:     "ineligible source is noted without changing the outcome",
			comments: []checks.Comment{com(1, "collab", "COLLABORATOR", "/reuse-sweep-run 555", 1)},
			status:   checks.Pass,
			en:       "@collab posted /reuse-sweep-run 555 (COLLABORATOR). Not currently eligible: run 555 was triggered by push, not pull_request.",
		},
		{
			name:     "incompatible label is noted",
			comments: []checks.Comment{com(1, "maintainer", "MEMBER", "/use 30123456789", 1)},
			labels:   []string{"evals-only"},
			status:   checks.Pass,
			en:       "@maintainer posted /use 30123456789 (MEMBER). Not currently eligible: PR #12 carries the reuse-incompatible label evals-only.",
		},
		{
			name:     "eligibility unreadable is evidence only",
			comments: []checks.Comment{com(1, "maintainer", "MEMBER", "/use 30123456789", 1)},
			source: func(s *checkstest.Source) checks.Source {
				s.WorkflowRunError = errors.New("502 bad gateway")
				return s
			},
			status: checks.Pass, en: "@maintainer posted /use 30123456789 (MEMBER).",
			evidence: "not checked: could not be verified: run 30123456789 could not be read",
		},
		{
			name: "comments unreadable",
			source: func(s *checkstest.Source) checks.Source {
				s.CommentsError = errors.New("403 resource not accessible")
				return s
			},
			status: checks.Warn, en: "could not be verified: the PR's comments could not be read (403 resource not accessible)",
		},
	}
	c := inferencex.ReuseCommand
	if c.Number != 4 || !c.Advisory {
		t.Fatalf("row 4 must be advisory: %+v", c)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := inferencextest.ReuseSource()
			src.CommentsValue = tt.comments
			src.RunList = []checks.WorkflowRun{src.Workflow[559], src.Workflow[30123456789]}
			var s checks.Source = src
			if tt.source != nil {
				s = tt.source(src)
			}
			settings := repo.Defaults()
			pr := checkstest.NewPR(s, checkstest.With(repo.SettingsParam, &settings),
				checkstest.Identity("o", "r", 12),
				func(pr *checks.PR) { pr.HeadRef, pr.Labels = "feat", tt.labels })
			res := checkstest.RunOne(t, pr, c)
			if res.Status != tt.status || res.Reason.EN != tt.en {
				t.Fatalf("got %s %q\nwant %s %q", res.Status, res.Reason.EN, tt.status, tt.en)
			}
			if res.Reason.ZH == "" || res.Reason.ZH == res.Reason.EN {
				t.Errorf("missing Chinese reason %q", res.Reason.ZH)
			}
			if tt.evidence != "" {
				found := false
				for _, e := range res.Evidence {
					found = found || strings.Contains(e.Value, tt.evidence)
				}
				if !found {
					t.Errorf("no evidence containing %q in %+v", tt.evidence, res.Evidence)
				}
			}
		})
	}
}
