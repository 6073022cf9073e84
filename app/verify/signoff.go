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
	"github.com/verdict-bot/verdict/app/retry"
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

// candidate is a comment or review that may be the newest sign-off, read
// as the listing returned it, with what the listing tells besides its text.
type candidate struct {
	ref  signoff.Ref
	at   time.Time
	bot  bool
	so   checks.SignOff
	meta signOffMeta
	// checked is the phrase held was last decided for (reading the body's
	// Markdown takes time on the way to the checks).
	checked *string
	held    bool
}

// holds reports whether the candidate's body holds phrase (see
// signoff.IsCandidate), deciding it once per phrase.
func (c *candidate) holds(phrase string) bool {
	if c.checked == nil || *c.checked != phrase {
		c.checked, c.held = &phrase, signoff.IsCandidate(c.so.Body, phrase)
	}
	return c.held
}

// newestSignOff finds the newest sign-off on the PR across conversation
// comments, review summaries and inline review comments.
func newestSignOff(ctx context.Context, gh GitHub, src checks.Source, owner, repo string, number int, phrase string) (signoff.Ref, error) {
	cands, err := signOffCandidates(ctx, gh, src, owner, repo, number)
	if err != nil {
		return signoff.Ref{}, err
	}
	c, err := newest(ctx, src, cands, number, phrase)
	if err != nil {
		return signoff.Ref{}, err
	}
	return c.ref, nil
}

// newest is the newest candidate holding phrase whose author passes the
// trigger-actor rule (write access, not a bot): a drive-by comment quoting
// the phrase is not a sign-off, and the bot's own verdicts quote no
// phrase, but a copy might. Dismissed reviews are withdrawn sign-offs. The
// authors' permissions are read at once (and memoized by src, where the
// sign-off author's gate finds it again).
func newest(ctx context.Context, src checks.Source, cands []candidate, number int, phrase string) (candidate, error) {
	var in []candidate
	for i := range cands {
		if c := &cands[i]; !c.bot && !c.meta.dismissed && c.holds(phrase) {
			in = append(in, *c)
		}
	}
	write, err := writers(ctx, src, in)
	if err != nil {
		return candidate{}, err
	}
	var ok []candidate
	for _, c := range in {
		if write[strings.ToLower(c.so.Author)] {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return candidate{}, fmt.Errorf("%w: no comment or review on PR #%d by an account with write access contains %q", ErrNoSignOff, number, phrase)
	}
	sort.SliceStable(ok, func(i, j int) bool {
		if !ok[i].at.Equal(ok[j].at) {
			return ok[i].at.Before(ok[j].at)
		}
		return ok[i].ref.Key() < ok[j].ref.Key()
	})
	return ok[len(ok)-1], nil
}

// writers reads, all at once, which of the candidates' authors pass the
// trigger-actor rule (lower-cased logins). A permission that could not be
// read for a transient reason is an error, never a refusal.
func writers(ctx context.Context, src checks.Source, cands []candidate) (map[string]bool, error) {
	type author struct{ login, userType string }
	var authors []author
	seen := map[string]bool{}
	for _, c := range cands {
		l := strings.ToLower(c.so.Author)
		if !seen[l] {
			seen[l] = true
			authors = append(authors, author{c.so.Author, c.meta.userType})
		}
	}
	errs := make([]error, len(authors))
	var wg sync.WaitGroup
	for i, a := range authors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = actorGate(ctx, src, a.login, a.userType)
		}()
	}
	wg.Wait()
	out := map[string]bool{}
	for i, a := range authors {
		switch err := errs[i]; {
		case err == nil:
			out[strings.ToLower(a.login)] = true
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case retry.IsTransient(ghclient.Classify(err)):
			return nil, fmt.Errorf("reading who may sign off: %w", err)
		}
	}
	return out, nil
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
			bot := c.AuthorIsBot || strings.HasSuffix(c.Author, "[bot]")
			userType := "User"
			if c.AuthorIsBot {
				userType = "Bot"
			}
			meta := signOffMeta{nodeID: c.NodeID, userType: userType, edited: so.UpdatedAt.After(so.CreatedAt)}
			convo = append(convo, candidate{ref: ref, at: c.CreatedAt, bot: bot, so: so, meta: meta})
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
			meta := signOffMeta{nodeID: r.GetNodeID(), userType: r.GetUser().GetType(), dismissed: r.GetState() == "DISMISSED"}
			return candidate{ref: ref, at: r.GetSubmittedAt().Time, bot: isBot(r.GetUser()), so: so, meta: meta}
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
			meta := signOffMeta{nodeID: c.GetNodeID(), userType: c.GetUser().GetType(), edited: so.UpdatedAt.After(so.CreatedAt)}
			return candidate{ref: ref, at: c.GetCreatedAt().Time, bot: isBot(c.GetUser()), so: so, meta: meta}
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
