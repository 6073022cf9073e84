package verify

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// ParseSignOffRef accepts a sign-off key or a sign-off URL (on any GitHub
// host) and returns the sign-off it names. For a URL it also checks that it
// names this repository and PR.
func ParseSignOffRef(ref, owner, repo string, number int) (signoff.Ref, error) {
	if r, err := signoff.ParseKey(ref); err == nil {
		return r, nil
	}
	l, ok := signoff.ParseURL(ref)
	if !ok {
		return signoff.Ref{}, fmt.Errorf("%q is neither a sign-off key (issuecomment-N, pullrequestreview-N, discussion_rN) nor a sign-off URL", ref)
	}
	if !strings.EqualFold(l.Owner, owner) || !strings.EqualFold(l.Repo, repo) {
		return signoff.Ref{}, fmt.Errorf("sign-off URL names %s/%s, not %s/%s", l.Owner, l.Repo, owner, repo)
	}
	if l.Number != number {
		return signoff.Ref{}, fmt.Errorf("sign-off URL names PR #%d, not #%d", l.Number, number)
	}
	return l.Ref, nil
}

// fetchSignOff re-reads the sign-off, so the body assessed is the current
// one, and confirms it belongs to this PR: comment IDs are repository-wide,
// so a URL's PR number alone is not evidence.
func fetchSignOff(ctx context.Context, gh GitHub, owner, repo string, number int, ref signoff.Ref) (checks.SignOff, signOffMeta, error) {
	var s checks.SignOff
	var m signOffMeta
	switch ref.Kind {
	case checks.KindConversation:
		c, err := gh.IssueComment(ctx, owner, repo, ref.ID)
		if err != nil {
			return s, m, fmt.Errorf("reading sign-off comment %d: %w", ref.ID, err)
		}
		if !hasSuffixFold(c.GetIssueURL(), fmt.Sprintf("/repos/%s/%s/issues/%d", owner, repo, number)) {
			return s, m, fmt.Errorf("comment %d belongs to %s, not PR #%d", ref.ID, c.GetIssueURL(), number)
		}
		s = signoff.Parse(c.GetBody())
		s.Author, s.URL = c.GetUser().GetLogin(), c.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
		m = signOffMeta{nodeID: c.GetNodeID(), userType: c.GetUser().GetType(), edited: s.UpdatedAt.After(s.CreatedAt)}
	case checks.KindReview:
		// Reviews are read through the PR-scoped endpoint, which is itself
		// the proof that the review belongs to this PR.
		r, err := gh.Review(ctx, owner, repo, number, ref.ID)
		if err != nil {
			return s, m, fmt.Errorf("reading sign-off review %d: %w", ref.ID, err)
		}
		s = signoff.Parse(r.GetBody())
		s.Author, s.URL = r.GetUser().GetLogin(), r.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = r.GetSubmittedAt().Time, r.GetSubmittedAt().Time
		m = signOffMeta{nodeID: r.GetNodeID(), userType: r.GetUser().GetType(), dismissed: r.GetState() == "DISMISSED"}
	case checks.KindInline:
		c, err := gh.ReviewComment(ctx, owner, repo, ref.ID)
		if err != nil {
			return s, m, fmt.Errorf("reading sign-off review comment %d: %w", ref.ID, err)
		}
		if !hasSuffixFold(c.GetPullRequestURL(), fmt.Sprintf("/repos/%s/%s/pulls/%d", owner, repo, number)) {
			return s, m, fmt.Errorf("review comment %d belongs to %s, not PR #%d", ref.ID, c.GetPullRequestURL(), number)
		}
		s = signoff.Parse(c.GetBody())
		s.Author, s.URL = c.GetUser().GetLogin(), c.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
		m = signOffMeta{nodeID: c.GetNodeID(), userType: c.GetUser().GetType(), edited: s.UpdatedAt.After(s.CreatedAt)}
	default:
		return s, m, fmt.Errorf("invalid sign-off reference %+v", ref)
	}
	s.Key, s.Kind, s.ID = ref.Key(), ref.Kind, ref.ID
	return s, m, nil
}

// candidate is a sign-off found while looking for the newest one.
type candidate struct {
	ref signoff.Ref
	at  time.Time
}

// newestSignOff finds the newest sign-off on the PR across conversation
// comments, review summaries and inline review comments. Only accounts
// that pass the trigger-actor rule (write access, not a bot) author
// candidates: a drive-by comment quoting the phrase is not a sign-off, and
// the bot's own verdicts quote no phrase, but a copy might. Dismissed
// reviews are withdrawn sign-offs.
func newestSignOff(ctx context.Context, gh GitHub, src checks.Source, owner, repo string, number int, phrase string) (signoff.Ref, error) {
	eligible := func(login string, bot bool) bool {
		return !bot && actorGate(ctx, src, login, "") == nil
	}
	var cands []candidate
	// Conversation comments come through the Source, which Check 4 and the
	// bypass lookup read too: one listing serves all three.
	comments, err := src.Comments(ctx)
	if err != nil {
		return signoff.Ref{}, fmt.Errorf("listing PR comments: %w", err)
	}
	for _, c := range comments {
		if signoff.IsCandidate(c.Body, phrase) && eligible(c.Author, c.AuthorIsBot) {
			cands = append(cands, candidate{signoff.Ref{Kind: checks.KindConversation, ID: c.ID}, c.CreatedAt})
		}
	}
	for page := 0; ; {
		rs, next, err := gh.Reviews(ctx, owner, repo, number, page)
		if ghclient.IsNotFound(err) {
			break // a server without reviews has no review sign-offs
		}
		if err != nil {
			return signoff.Ref{}, fmt.Errorf("listing PR reviews: %w", err)
		}
		for _, r := range rs {
			if r.GetState() != "DISMISSED" && signoff.IsCandidate(r.GetBody(), phrase) && eligible(r.GetUser().GetLogin(), isBot(r.GetUser())) {
				cands = append(cands, candidate{signoff.Ref{Kind: checks.KindReview, ID: r.GetID()}, r.GetSubmittedAt().Time})
			}
		}
		if next == 0 {
			break
		}
		page = next
	}
	for page := 0; ; {
		cs, next, err := gh.ReviewComments(ctx, owner, repo, number, page)
		if ghclient.IsNotFound(err) {
			break
		}
		if err != nil {
			return signoff.Ref{}, fmt.Errorf("listing PR review comments: %w", err)
		}
		for _, c := range cs {
			if signoff.IsCandidate(c.GetBody(), phrase) && eligible(c.GetUser().GetLogin(), isBot(c.GetUser())) {
				cands = append(cands, candidate{signoff.Ref{Kind: checks.KindInline, ID: c.GetID()}, c.GetCreatedAt().Time})
			}
		}
		if next == 0 {
			break
		}
		page = next
	}
	if len(cands) == 0 {
		return signoff.Ref{}, fmt.Errorf("%w: no comment or review on PR #%d by an account with write access contains %q", ErrNoSignOff, number, phrase)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if !cands[i].at.Equal(cands[j].at) {
			return cands[i].at.Before(cands[j].at)
		}
		return cands[i].ref.Key() < cands[j].ref.Key()
	})
	return cands[len(cands)-1].ref, nil
}

// hasSuffixFold is a case-insensitive suffix test: GitHub treats owner and
// repository names case-insensitively, and the API returns canonical case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func isBot(u *github.User) bool {
	return u.GetType() == "Bot" || strings.HasSuffix(u.GetLogin(), "[bot]")
}
