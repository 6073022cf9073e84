package ghsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// Permission reads a user's repository permission, role name included
// (go-github v62 does not decode role_name).
func (s *Source) Permission(ctx context.Context, login string) (checks.Permission, error) {
	return do(s, "permission\x00"+strings.ToLower(login), func() (checks.Permission, error) {
		req, err := s.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", s.owner, s.repo, url.PathEscape(login)), nil)
		if err != nil {
			return checks.Permission{}, err
		}
		var res struct {
			Permission string `json:"permission"`
			RoleName   string `json:"role_name"`
		}
		resp, err := s.gh.Do(ctx, req, &res)
		if err != nil {
			return checks.Permission{}, apiErr(fmt.Sprintf("%s/%s: reading the permission of @%s", s.owner, s.repo, login), resp, err)
		}
		return checks.Permission{Permission: res.Permission, RoleName: res.RoleName}, nil
	})
}

// TeamMember reports whether login is an active member of org/slug. GitHub
// answers 404 both for "not a member" and for "cannot see this team", so a
// 404 is only NotMember when the team itself is readable.
func (s *Source) TeamMember(ctx context.Context, org, slug, login string) (checks.Membership, error) {
	key := "team\x00" + strings.ToLower(org+"/"+slug+"/"+login)
	return do(s, key, func() (checks.Membership, error) {
		what := fmt.Sprintf("reading @%s's membership of @%s/%s", login, org, slug)
		m, resp, err := s.gh.Teams.GetTeamMembershipBySlug(ctx, org, slug, login)
		switch {
		case retry.IsTransient(transient(rawResp(resp), err)):
			// A rate-limited 403 says nothing about visibility.
			return checks.MembershipUnknown, apiErr(what, resp, err)
		case err == nil && m.GetState() == "active":
			return checks.Member, nil
		case err == nil:
			return checks.NotMember, nil // pending invitations are not membership
		case statusOf(resp) == http.StatusForbidden || statusOf(resp) == http.StatusUnauthorized:
			return checks.MembershipUnknown, nil
		case statusOf(resp) != http.StatusNotFound:
			return checks.MembershipUnknown, apiErr(what, resp, err)
		}
		if _, tresp, terr := s.gh.Teams.GetTeamBySlug(ctx, org, slug); terr == nil {
			return checks.NotMember, nil
		} else if st := statusOf(tresp); retry.IsTransient(transient(rawResp(tresp), terr)) ||
			(st != http.StatusNotFound && st != http.StatusForbidden && st != http.StatusUnauthorized) {
			return checks.MembershipUnknown, apiErr("reading team @"+org+"/"+slug, tresp, terr)
		}
		return checks.MembershipUnknown, nil
	})
}

// refused reports whether an upstream read should be retried with the
// fallback client: the installation was refused, not rate limited.
func refused(resp *github.Response, err error) bool {
	if retry.IsTransient(transient(rawResp(resp), err)) {
		return false
	}
	switch statusOf(resp) {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// upstream calls f with the installation client, then with the fallback
// client when the first was refused.
func upstream[T any](s *Source, what string, f func(c *github.Client) (T, *github.Response, error)) (T, error) {
	v, resp, err := f(s.gh)
	if err != nil && refused(resp, err) && s.o.UpstreamClient != nil {
		var resp2 *github.Response
		v, resp2, err = f(s.o.UpstreamClient)
		if err != nil {
			return v, apiErr(what+" (installation and fallback clients)", resp2, err)
		}
		return v, nil
	}
	return v, apiErr(what, resp, err)
}

// UpstreamPR reads a pull request of another repository.
func (s *Source) UpstreamPR(ctx context.Context, owner, repo string, number int) (checks.UpstreamPR, error) {
	key := fmt.Sprintf("upstream-pr\x00%s/%s#%d", strings.ToLower(owner), strings.ToLower(repo), number)
	return do(s, key, func() (checks.UpstreamPR, error) {
		pr, err := upstream(s, fmt.Sprintf("reading %s/%s#%d", owner, repo, number), func(c *github.Client) (*github.PullRequest, *github.Response, error) {
			return c.PullRequests.Get(ctx, owner, repo, number)
		})
		if err != nil {
			return checks.UpstreamPR{}, err
		}
		return checks.UpstreamPR{Owner: owner, Repo: repo, Number: number, State: pr.GetState(), Draft: pr.GetDraft(),
			Merged: pr.GetMerged(), MergedAt: pr.GetMergedAt().Time, Title: pr.GetTitle(), Body: pr.GetBody(), HTMLURL: pr.GetHTMLURL()}, nil
	})
}

// UpstreamPRFiles lists an upstream pull request's changed files.
func (s *Source) UpstreamPRFiles(ctx context.Context, owner, repo string, number int) ([]checks.ChangedFile, error) {
	key := fmt.Sprintf("upstream-files\x00%s/%s#%d", strings.ToLower(owner), strings.ToLower(repo), number)
	return do(s, key, func() ([]checks.ChangedFile, error) {
		files, err := upstream(s, fmt.Sprintf("listing files of %s/%s#%d", owner, repo, number), func(c *github.Client) ([]*github.CommitFile, *github.Response, error) {
			return paginate(ctx, 0, func(opt github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
				return c.PullRequests.ListFiles(ctx, owner, repo, number, &opt)
			})
		})
		if err != nil {
			return nil, err
		}
		return convertFiles(files), nil
	})
}

// Issue reads an issue or a pull request through the issues endpoint,
// which answers for both: this repository's with the installation client,
// like every read of the repository under verification, another's as
// UpstreamPR reads it (the fallback client when the installation is
// refused).
func (s *Source) Issue(ctx context.Context, owner, repo string, number int) (checks.Issue, error) {
	key := fmt.Sprintf("issue\x00%s/%s#%d", strings.ToLower(owner), strings.ToLower(repo), number)
	return do(s, key, func() (checks.Issue, error) {
		what := fmt.Sprintf("reading issue %s/%s#%d", owner, repo, number)
		get := func(c *github.Client) (*github.Issue, *github.Response, error) {
			return c.Issues.Get(ctx, owner, repo, number)
		}
		var is *github.Issue
		var err error
		if strings.EqualFold(owner, s.owner) && strings.EqualFold(repo, s.repo) {
			var resp *github.Response
			is, resp, err = get(s.gh)
			err = apiErr(what, resp, err)
		} else {
			is, err = upstream(s, what, get)
		}
		if err != nil {
			return checks.Issue{}, err
		}
		return checks.Issue{Owner: owner, Repo: repo, Number: number, PullRequest: is.IsPullRequest(), State: is.GetState(),
			StateReason: is.GetStateReason(), HTMLURL: is.GetHTMLURL(), Title: is.GetTitle()}, nil
	})
}

// FetchPage fetches a published documentation page through
// Options.PageClient, reading at most Options.MaxPageBytes. 404 and 410 are
// ErrNotFound; other non-2xx answers are errors that carry the page.
func (s *Source) FetchPage(ctx context.Context, rawURL string) (checks.Page, error) {
	return do(s, "page\x00"+rawURL, func() (checks.Page, error) {
		page := checks.Page{URL: rawURL}
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return page, fmt.Errorf("fetching %q: only absolute http(s) URLs are fetched: %w", rawURL, checks.ErrMalformed)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return page, fmt.Errorf("fetching %s: %w", rawURL, err)
		}
		req.Header.Set("User-Agent", "verdict")
		resp, err := s.o.PageClient.Do(req)
		var dns *net.DNSError
		if errors.As(err, &dns) && dns.IsNotFound {
			// No such host: the page is as absent as a 404.
			return page, fmt.Errorf("fetching %s: %w: %w", rawURL, checks.ErrNotFound, err)
		}
		if err != nil {
			return page, transient(nil, fmt.Errorf("fetching %s: %w", rawURL, err))
		}
		defer resp.Body.Close()
		page.StatusCode = resp.StatusCode
		body, err := io.ReadAll(io.LimitReader(resp.Body, s.o.MaxPageBytes+1))
		if err != nil {
			return page, transient(nil, fmt.Errorf("fetching %s: reading the body: %w", rawURL, err))
		}
		if int64(len(body)) > s.o.MaxPageBytes {
			return page, fmt.Errorf("fetching %s: body over the %d-byte limit: %w", rawURL, s.o.MaxPageBytes, checks.ErrTooLarge)
		}
		page.Body = body
		switch {
		case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
			return page, fmt.Errorf("fetching %s: status %d: %w", rawURL, resp.StatusCode, checks.ErrNotFound)
		case resp.StatusCode < 200 || resp.StatusCode > 299:
			return page, transient(resp, fmt.Errorf("fetching %s: status %d", rawURL, resp.StatusCode))
		}
		return page, nil
	})
}
