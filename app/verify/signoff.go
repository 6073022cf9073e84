package verify

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// signOffURLRE is the manual re-verification URL form of INFERENCEX.md §1.4.
var signOffURLRE = regexp.MustCompile(`(?i)^https://[^/]+/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/pull/([1-9][0-9]*)(?:/files)?#(issuecomment-[1-9][0-9]*|pullrequestreview-[1-9][0-9]*|discussion_r[1-9][0-9]*)$`)

// ParseSignOffRef accepts a sign-off key or a sign-off URL and returns the
// key. For a URL it also checks that it names this repository and PR.
func ParseSignOffRef(ref, owner, repo string, number int) (string, error) {
	if signoff.ValidKey(ref) {
		return ref, nil
	}
	m := signOffURLRE.FindStringSubmatch(ref)
	if m == nil {
		return "", fmt.Errorf("%q is neither a sign-off key (issuecomment-N, pullrequestreview-N, discussion_rN) nor a sign-off URL", ref)
	}
	if !strings.EqualFold(m[1], owner) || !strings.EqualFold(m[2], repo) {
		return "", fmt.Errorf("sign-off URL names %s/%s, not %s/%s", m[1], m[2], owner, repo)
	}
	if n, _ := strconv.Atoi(m[3]); n != number {
		return "", fmt.Errorf("sign-off URL names PR #%s, not #%d", m[3], number)
	}
	return m[4], nil
}

// splitKey returns the kind prefix and the numeric ID of a sign-off key.
func splitKey(key string) (string, int64, error) {
	for _, p := range []string{"issuecomment-", "pullrequestreview-", "discussion_r"} {
		if strings.HasPrefix(key, p) {
			id, err := strconv.ParseInt(strings.TrimPrefix(key, p), 10, 64)
			if err != nil || id <= 0 {
				return "", 0, fmt.Errorf("invalid sign-off key %q", key)
			}
			return p, id, nil
		}
	}
	return "", 0, fmt.Errorf("invalid sign-off key %q", key)
}

// fetchSignOff re-reads the sign-off by key, so the body assessed is the
// current one, and confirms it belongs to this PR: comment IDs are
// repository-wide, so a URL's PR number alone is not evidence.
func fetchSignOff(ctx context.Context, gh *github.Client, owner, repo string, number int, key string) (checks.SignOff, error) {
	prefix, id, err := splitKey(key)
	if err != nil {
		return checks.SignOff{}, err
	}
	var s checks.SignOff
	switch prefix {
	case "issuecomment-":
		c, _, err := gh.Issues.GetComment(ctx, owner, repo, id)
		if err != nil {
			return s, fmt.Errorf("reading sign-off comment %d: %w", id, err)
		}
		if !hasSuffixFold(c.GetIssueURL(), fmt.Sprintf("/repos/%s/%s/issues/%d", owner, repo, number)) {
			return s, fmt.Errorf("comment %d belongs to %s, not PR #%d", id, c.GetIssueURL(), number)
		}
		s = signoff.Parse(c.GetBody())
		s.Kind, s.Author, s.URL = checks.KindConversation, c.GetUser().GetLogin(), c.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
	case "pullrequestreview-":
		// Reviews are read through the PR-scoped endpoint, which is itself
		// the proof that the review belongs to this PR.
		r, _, err := gh.PullRequests.GetReview(ctx, owner, repo, number, id)
		if err != nil {
			return s, fmt.Errorf("reading sign-off review %d: %w", id, err)
		}
		s = signoff.Parse(r.GetBody())
		s.Kind, s.Author, s.URL = checks.KindReview, r.GetUser().GetLogin(), r.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = r.GetSubmittedAt().Time, r.GetSubmittedAt().Time
	case "discussion_r":
		c, _, err := gh.PullRequests.GetComment(ctx, owner, repo, id)
		if err != nil {
			return s, fmt.Errorf("reading sign-off review comment %d: %w", id, err)
		}
		if !hasSuffixFold(c.GetPullRequestURL(), fmt.Sprintf("/repos/%s/%s/pulls/%d", owner, repo, number)) {
			return s, fmt.Errorf("review comment %d belongs to %s, not PR #%d", id, c.GetPullRequestURL(), number)
		}
		s = signoff.Parse(c.GetBody())
		s.Kind, s.Author, s.URL = checks.KindInline, c.GetUser().GetLogin(), c.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
	}
	s.Key, s.ID = key, id
	return s, nil
}

// candidate is a sign-off found while looking for the newest one.
type candidate struct {
	key string
	at  time.Time
}

// newestSignOff finds the newest sign-off on the PR across conversation
// comments, review summaries and inline review comments. Bot accounts are
// skipped: the bot's own verdicts quote no phrase, but a copy might.
func newestSignOff(ctx context.Context, gh *github.Client, src checks.Source, owner, repo string, number int, phrase string) (string, error) {
	var cands []candidate
	// Conversation comments come through the Source, which Check 4 and the
	// bypass lookup read too: one listing serves all three.
	comments, err := src.Comments(ctx)
	if err != nil {
		return "", fmt.Errorf("listing PR comments: %w", err)
	}
	for _, c := range comments {
		if !c.AuthorIsBot && !strings.HasSuffix(c.Author, "[bot]") && signoff.IsCandidate(c.Body, phrase) {
			cands = append(cands, candidate{fmt.Sprintf("issuecomment-%d", c.ID), c.CreatedAt})
		}
	}
	ropt := &github.ListOptions{PerPage: 100}
	for {
		rs, resp, err := gh.PullRequests.ListReviews(ctx, owner, repo, number, ropt)
		if ghclient.IsNotFound(err) {
			break // a server without reviews has no review sign-offs
		}
		if err != nil {
			return "", fmt.Errorf("listing PR reviews: %w", err)
		}
		for _, r := range rs {
			if !isBot(r.GetUser()) && signoff.IsCandidate(r.GetBody(), phrase) {
				cands = append(cands, candidate{fmt.Sprintf("pullrequestreview-%d", r.GetID()), r.GetSubmittedAt().Time})
			}
		}
		if resp.NextPage == 0 {
			break
		}
		ropt.Page = resp.NextPage
	}
	copt := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := gh.PullRequests.ListComments(ctx, owner, repo, number, copt)
		if ghclient.IsNotFound(err) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("listing PR review comments: %w", err)
		}
		for _, c := range cs {
			if !isBot(c.GetUser()) && signoff.IsCandidate(c.GetBody(), phrase) {
				cands = append(cands, candidate{fmt.Sprintf("discussion_r%d", c.GetID()), c.GetCreatedAt().Time})
			}
		}
		if resp.NextPage == 0 {
			break
		}
		copt.Page = resp.NextPage
	}
	if len(cands) == 0 {
		return "", fmt.Errorf("%w: no comment or review on PR #%d contains %q", ErrNoSignOff, number, phrase)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if !cands[i].at.Equal(cands[j].at) {
			return cands[i].at.Before(cands[j].at)
		}
		return cands[i].key < cands[j].key
	})
	return cands[len(cands)-1].key, nil
}

// hasSuffixFold is a case-insensitive suffix test: GitHub treats owner and
// repository names case-insensitively, and the API returns canonical case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func isBot(u *github.User) bool {
	return u.GetType() == "Bot" || strings.HasSuffix(u.GetLogin(), "[bot]")
}
