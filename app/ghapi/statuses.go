package ghapi

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// Statuses lists the newest statuses of a commit (one page of 100, newest
// first).
func (c *Client) Statuses(ctx context.Context, owner, repo, sha string) ([]*github.RepoStatus, error) {
	list, _, err := c.gh.Repositories.ListStatuses(ctx, owner, repo, sha, &github.ListOptions{PerPage: perPage})
	return list, err
}

// PullsOfCommit lists the pull requests that contain a commit (one page of
// 100): open ones when the commit is not on the default branch.
func (c *Client) PullsOfCommit(ctx context.Context, owner, repo, sha string) ([]*github.PullRequest, error) {
	list, _, err := c.gh.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, &github.ListOptions{PerPage: perPage})
	return list, err
}
