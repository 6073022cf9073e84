package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// Statuses lists the newest statuses of a commit (one page of 100, newest
// first).
func (c *Client) Statuses(ctx context.Context, owner, repo, sha string) ([]*github.RepoStatus, error) {
	list, _, err := c.gh.Repositories.ListStatuses(ctx, owner, repo, sha, &github.ListOptions{PerPage: perPage})
	return list, err
}

// PullsOfCommit lists the pull requests that contain a commit: open ones
// when the commit is not on the default branch. Every page is read, up to
// maxCommitPullPages: a commit shared by many PRs (a branch merged into
// others) must not lose the ones past the first hundred.
func (c *Client) PullsOfCommit(ctx context.Context, owner, repo, sha string) ([]*github.PullRequest, error) {
	var all []*github.PullRequest
	opt := &github.ListOptions{PerPage: perPage}
	for range maxCommitPullPages {
		list, resp, err := c.gh.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, opt)
		if err != nil {
			return nil, fmt.Errorf("listing page %d of the pull requests of %s: %w", max(opt.Page, 1), sha, err)
		}
		all = append(all, list...)
		if opt.Page = next(resp); opt.Page == 0 {
			return all, nil
		}
	}
	return nil, fmt.Errorf("commit %s is in more than %d pull requests", sha, maxCommitPullPages*perPage)
}

// maxCommitPullPages bounds the pages PullsOfCommit reads.
const maxCommitPullPages = 10
