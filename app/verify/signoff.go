package verify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
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
func fetchSignOff(ctx context.Context, gh GitHub, owner, repo string, number int, ref signoff.Ref) (checks.SignOff, error) {
	var s checks.SignOff
	switch ref.Kind {
	case checks.KindConversation:
		c, err := gh.IssueComment(ctx, owner, repo, ref.ID)
		if err != nil {
			return s, fmt.Errorf("reading sign-off comment %d: %w", ref.ID, err)
		}
		if !hasSuffixFold(c.GetIssueURL(), fmt.Sprintf("/repos/%s/%s/issues/%d", owner, repo, number)) {
			return s, fmt.Errorf("comment %d belongs to %s, not PR #%d", ref.ID, c.GetIssueURL(), number)
		}
		s = signoff.Parse(c.GetBody())
		s.Author, s.URL = c.GetUser().GetLogin(), c.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
	case checks.KindReview:
		// Reviews are read through the PR-scoped endpoint, which is itself
		// the proof that the review belongs to this PR.
		r, err := gh.Review(ctx, owner, repo, number, ref.ID)
		if err != nil {
			return s, fmt.Errorf("reading sign-off review %d: %w", ref.ID, err)
		}
		s = signoff.Parse(r.GetBody())
		s.Author, s.URL = r.GetUser().GetLogin(), r.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = r.GetSubmittedAt().Time, r.GetSubmittedAt().Time
	case checks.KindInline:
		c, err := gh.ReviewComment(ctx, owner, repo, ref.ID)
		if err != nil {
			return s, fmt.Errorf("reading sign-off review comment %d: %w", ref.ID, err)
		}
		if !hasSuffixFold(c.GetPullRequestURL(), fmt.Sprintf("/repos/%s/%s/pulls/%d", owner, repo, number)) {
			return s, fmt.Errorf("review comment %d belongs to %s, not PR #%d", ref.ID, c.GetPullRequestURL(), number)
		}
		s = signoff.Parse(c.GetBody())
		s.Author, s.URL = c.GetUser().GetLogin(), c.GetHTMLURL()
		s.CreatedAt, s.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
	default:
		return s, fmt.Errorf("invalid sign-off reference %+v", ref)
	}
	s.Key, s.Kind, s.ID = ref.Key(), ref.Kind, ref.ID
	return s, nil
}

// candidate is a comment or review that may be the newest sign-off, read
// as the listing returned it.
type candidate struct {
	ref signoff.Ref
	at  time.Time
	bot bool
	so  checks.SignOff
}

// newestSignOff finds the newest sign-off on the PR across conversation
// comments, review summaries and inline review comments.
func newestSignOff(ctx context.Context, gh GitHub, src checks.Source, owner, repo string, number int, phrase string) (signoff.Ref, error) {
	cands, err := signOffCandidates(ctx, gh, src, owner, repo, number)
	if err != nil {
		return signoff.Ref{}, err
	}
	c, ok := newest(cands, phrase)
	if !ok {
		return signoff.Ref{}, fmt.Errorf("%w: no comment or review on PR #%d contains %q", ErrNoSignOff, number, phrase)
	}
	return c.ref, nil
}

// newest is the newest candidate holding phrase. Bot accounts are skipped:
// the bot's own verdicts quote no phrase, but a copy might.
func newest(cands []candidate, phrase string) (candidate, bool) {
	var in []candidate
	for _, c := range cands {
		if !c.bot && signoff.IsCandidate(c.so.Body, phrase) {
			in = append(in, c)
		}
	}
	if len(in) == 0 {
		return candidate{}, false
	}
	sort.SliceStable(in, func(i, j int) bool {
		if !in[i].at.Equal(in[j].at) {
			return in[i].at.Before(in[j].at)
		}
		return in[i].ref.Key() < in[j].ref.Key()
	})
	return in[len(in)-1], true
}

// signOffCandidates lists the PR's conversation comments, review summaries
// and inline review comments, the three listings at once. Each candidate
// carries the sign-off as listed: the listing is as current as a re-read
// of the one found would be, so the verifier does not read it again.
func signOffCandidates(ctx context.Context, gh GitHub, src checks.Source, owner, repo string, number int) ([]candidate, error) {
	var convo, reviews, inline []candidate
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		// Conversation comments come through the Source, which Check 4 and
		// the bypass lookup read too: one listing serves all three.
		comments, err := src.Comments(ctx)
		if err != nil {
			errs[0] = fmt.Errorf("listing PR comments: %w", err)
			return
		}
		for _, c := range comments {
			ref := signoff.Ref{Kind: checks.KindConversation, ID: c.ID}
			so := signoff.Parse(c.Body)
			so.Author, so.URL, so.CreatedAt, so.UpdatedAt = c.Author, c.URL, c.CreatedAt, c.UpdatedAt
			so.Key, so.Kind, so.ID = ref.Key(), ref.Kind, ref.ID
			convo = append(convo, candidate{ref: ref, at: c.CreatedAt, bot: c.AuthorIsBot || strings.HasSuffix(c.Author, "[bot]"), so: so})
		}
	}()
	go func() {
		defer wg.Done()
		reviews, errs[1] = listed(ctx, "listing PR reviews", func(page int) ([]*github.PullRequestReview, int, error) {
			return gh.Reviews(ctx, owner, repo, number, page)
		}, func(r *github.PullRequestReview) candidate {
			ref := signoff.Ref{Kind: checks.KindReview, ID: r.GetID()}
			so := signoff.Parse(r.GetBody())
			so.Author, so.URL = r.GetUser().GetLogin(), r.GetHTMLURL()
			so.CreatedAt, so.UpdatedAt = r.GetSubmittedAt().Time, r.GetSubmittedAt().Time
			so.Key, so.Kind, so.ID = ref.Key(), ref.Kind, ref.ID
			return candidate{ref: ref, at: r.GetSubmittedAt().Time, bot: isBot(r.GetUser()), so: so}
		})
	}()
	go func() {
		defer wg.Done()
		inline, errs[2] = listed(ctx, "listing PR review comments", func(page int) ([]*github.PullRequestComment, int, error) {
			return gh.ReviewComments(ctx, owner, repo, number, page)
		}, func(c *github.PullRequestComment) candidate {
			ref := signoff.Ref{Kind: checks.KindInline, ID: c.GetID()}
			so := signoff.Parse(c.GetBody())
			so.Author, so.URL = c.GetUser().GetLogin(), c.GetHTMLURL()
			so.CreatedAt, so.UpdatedAt = c.GetCreatedAt().Time, c.GetUpdatedAt().Time
			so.Key, so.Kind, so.ID = ref.Key(), ref.Kind, ref.ID
			return candidate{ref: ref, at: c.GetCreatedAt().Time, bot: isBot(c.GetUser()), so: so}
		})
	}()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return append(append(convo, reviews...), inline...), nil
}

// listed pages through one listing. A server without the listing (404)
// has nothing in it.
func listed[T any](ctx context.Context, what string, list func(page int) ([]T, int, error), conv func(T) candidate) ([]candidate, error) {
	var out []candidate
	for page := 0; ; {
		items, next, err := list(page)
		if ghclient.IsNotFound(err) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		for _, it := range items {
			out = append(out, conv(it))
		}
		if next == 0 || ctx.Err() != nil {
			return out, ctx.Err()
		}
		page = next
	}
}

// hasSuffixFold is a case-insensitive suffix test: GitHub treats owner and
// repository names case-insensitively, and the API returns canonical case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func isBot(u *github.User) bool {
	return u.GetType() == "Bot" || strings.HasSuffix(u.GetLogin(), "[bot]")
}
