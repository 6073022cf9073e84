// Package ghapi is Verdict's one implementation, over go-github, of the
// narrow GitHub interfaces its stages declare where they are used
// (snapshot.GitHub, verify.GitHub, publish.GitHub, welcome.GitHub,
// reuse.GitHub), in the manner of prow's per-plugin clients. Each method is
// one REST request; listings take a page (0 for the first) and return the
// next one (0 when there is none), so callers keep their own caps and stop
// early. Errors are go-github's, unwrapped: callers say what they were
// doing, and ghclient.Classify tells transient failures apart.
package ghapi

import (
	"context"

	"github.com/google/go-github/v62/github"
	"github.com/shurcooL/githubv4"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/snapshot"
)

// perPage is the page size of every listing, GitHub's maximum.
const perPage = 100

// Client is one installation's (or token's) access to GitHub.
type Client struct {
	gh       *github.Client
	graphql  *githubv4.Client
	evidence ghsource.Options
}

// New returns the client over gh; evidence configures the evidence sources
// Evidence opens (cache, page client, limits).
func New(gh *github.Client, evidence ghsource.Options) *Client {
	return &Client{gh: gh, graphql: newGraphQL(gh), evidence: evidence}
}

// Evidence opens the GitHub-backed checks.Source of one pull request.
func (c *Client) Evidence(owner, repo string, number int) snapshot.Evidence {
	return ghsource.New(c.gh, owner, repo, number, c.evidence)
}

// Repository reads a repository (its default branch, its web URL).
func (c *Client) Repository(ctx context.Context, owner, repo string) (*github.Repository, error) {
	r, _, err := c.gh.Repositories.Get(ctx, owner, repo)
	return r, err
}

// PullRequest reads a pull request as it is now.
func (c *Client) PullRequest(ctx context.Context, owner, repo string, number int) (*github.PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, owner, repo, number)
	return pr, err
}

// BranchSHA reads the commit a branch points at.
func (c *Client) BranchSHA(ctx context.Context, owner, repo, branch string) (string, error) {
	b, _, err := c.gh.Repositories.GetBranch(ctx, owner, repo, branch, 1)
	if err != nil {
		return "", err
	}
	return b.GetCommit().GetSHA(), nil
}

// IssueComment reads one conversation comment by its repository-wide ID.
func (c *Client) IssueComment(ctx context.Context, owner, repo string, id int64) (*github.IssueComment, error) {
	ic, _, err := c.gh.Issues.GetComment(ctx, owner, repo, id)
	return ic, err
}

// IssueComments lists one page of a PR's (or issue's) conversation
// comments, oldest first.
func (c *Client) IssueComments(ctx context.Context, owner, repo string, number, page int) ([]*github.IssueComment, int, error) {
	cs, resp, err := c.gh.Issues.ListComments(ctx, owner, repo, number,
		&github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	return cs, next(resp), err
}

// CreateIssueComment posts a conversation comment.
func (c *Client) CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (*github.IssueComment, error) {
	ic, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: github.String(body)})
	return ic, err
}

// EditIssueComment replaces a conversation comment's body.
func (c *Client) EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (*github.IssueComment, error) {
	ic, _, err := c.gh.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: github.String(body)})
	return ic, err
}

// DeleteIssueComment deletes a conversation comment.
func (c *Client) DeleteIssueComment(ctx context.Context, owner, repo string, id int64) error {
	_, err := c.gh.Issues.DeleteComment(ctx, owner, repo, id)
	return err
}

// IssueCommentReactions lists one page of a conversation comment's reactions.
func (c *Client) IssueCommentReactions(ctx context.Context, owner, repo string, id int64, page int) ([]*github.Reaction, int, error) {
	rs, resp, err := c.gh.Reactions.ListIssueCommentReactions(ctx, owner, repo, id, &github.ListOptions{PerPage: perPage, Page: page})
	return rs, next(resp), err
}

// CreateIssueCommentReaction reacts to a conversation comment.
func (c *Client) CreateIssueCommentReaction(ctx context.Context, owner, repo string, id int64, content string) error {
	_, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, owner, repo, id, content)
	return err
}

// DeleteIssueCommentReaction removes one reaction from a conversation comment.
func (c *Client) DeleteIssueCommentReaction(ctx context.Context, owner, repo string, commentID, reactionID int64) error {
	_, err := c.gh.Reactions.DeleteIssueCommentReaction(ctx, owner, repo, commentID, reactionID)
	return err
}

// Review reads one review of a pull request; the PR-scoped endpoint is
// itself the proof that the review belongs to that PR.
func (c *Client) Review(ctx context.Context, owner, repo string, number int, id int64) (*github.PullRequestReview, error) {
	r, _, err := c.gh.PullRequests.GetReview(ctx, owner, repo, number, id)
	return r, err
}

// Reviews lists one page of a pull request's reviews.
func (c *Client) Reviews(ctx context.Context, owner, repo string, number, page int) ([]*github.PullRequestReview, int, error) {
	rs, resp, err := c.gh.PullRequests.ListReviews(ctx, owner, repo, number, &github.ListOptions{PerPage: perPage, Page: page})
	return rs, next(resp), err
}

// ReviewComment reads one inline review comment by its repository-wide ID.
func (c *Client) ReviewComment(ctx context.Context, owner, repo string, id int64) (*github.PullRequestComment, error) {
	rc, _, err := c.gh.PullRequests.GetComment(ctx, owner, repo, id)
	return rc, err
}

// ReviewComments lists one page of a pull request's inline review comments.
func (c *Client) ReviewComments(ctx context.Context, owner, repo string, number, page int) ([]*github.PullRequestComment, int, error) {
	cs, resp, err := c.gh.PullRequests.ListComments(ctx, owner, repo, number,
		&github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	return cs, next(resp), err
}

// CreateStatus sets a commit status.
func (c *Client) CreateStatus(ctx context.Context, owner, repo, sha string, status *github.RepoStatus) error {
	_, _, err := c.gh.Repositories.CreateStatus(ctx, owner, repo, sha, status)
	return err
}

// CheckRuns lists one page of the check runs named name on a commit,
// every attempt included (filter=all).
func (c *Client) CheckRuns(ctx context.Context, owner, repo, sha, name string, page int) ([]*github.CheckRun, int, error) {
	list, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, &github.ListCheckRunsOptions{
		CheckName: github.String(name), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	if list == nil {
		return nil, next(resp), err
	}
	return list.CheckRuns, next(resp), err
}

// CreateCheckRun creates a check run.
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo string, opts github.CreateCheckRunOptions) (*github.CheckRun, error) {
	cr, _, err := c.gh.Checks.CreateCheckRun(ctx, owner, repo, opts)
	return cr, err
}

// UpdateCheckRun updates a check run.
func (c *Client) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, opts github.UpdateCheckRunOptions) error {
	_, _, err := c.gh.Checks.UpdateCheckRun(ctx, owner, repo, id, opts)
	return err
}

// next is the page after resp, 0 when there is none (or no response).
func next(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.NextPage
}
