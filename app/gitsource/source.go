package gitsource

import (
	"context"
	"fmt"
	"sync"

	"github.com/verdict-bot/verdict/checks"
)

// Unavailable is the phrase every refusal of GitHub-only evidence ends
// with, so rows built on it say why they could not be verified.
const Unavailable = "not available in a local check"

// UnavailableZH is Unavailable in Chinese, for callers that translate rows.
const UnavailableZH = "本地检查无法获取"

// unavailableError refuses evidence only GitHub has. It wraps
// checks.ErrUnavailable so callers can tell it from a missing file.
type unavailableError struct{ what string }

func (e *unavailableError) Error() string { return e.what + ": " + Unavailable }
func (e *unavailableError) Unwrap() error { return checks.ErrUnavailable }

func unavailable(format string, a ...any) error {
	return &unavailableError{what: fmt.Sprintf(format, a...)}
}

// Change is the checks.Source of one change: the files and commits between
// base (the commit the change is compared with, normally the merge base)
// and head, and every file of the repository at any commit.
type Change struct {
	repo       *Repo
	base, head string

	filesOnce sync.Once
	files     []checks.ChangedFile
	filesErr  error

	commitsOnce sync.Once
	commits     checks.CommitList
	commitsErr  error
}

var _ checks.Source = (*Change)(nil)

// Change returns the Source comparing head with base (full commit IDs).
func (r *Repo) Change(base, head string) *Change {
	return &Change{repo: r, base: base, head: head}
}

// Base and Head are the compared commits.
func (c *Change) Base() string { return c.base }
func (c *Change) Head() string { return c.head }

// Files lists the changed files with patches (git diff base head).
func (c *Change) Files(ctx context.Context) ([]checks.ChangedFile, error) {
	c.filesOnce.Do(func() { c.files, c.filesErr = c.repo.Diff(ctx, c.base, c.head) })
	return append([]checks.ChangedFile(nil), c.files...), c.filesErr
}

// Commits lists the commits reachable from head and not from base, oldest
// first (git rev-list --reverse base..head). There is no cap.
func (c *Change) Commits(ctx context.Context) (checks.CommitList, error) {
	c.commitsOnce.Do(func() {
		shas, err := c.repo.RevList(ctx, "--reverse", c.base+".."+c.head)
		if err != nil {
			c.commitsErr = err
			return
		}
		for _, sha := range shas {
			cm, err := c.repo.Commit(ctx, sha)
			if err != nil {
				c.commitsErr = err
				return
			}
			date := cm.Committed
			if date.IsZero() {
				date = cm.Authored
			}
			c.commits.Commits = append(c.commits.Commits, checks.Commit{SHA: sha, Message: cm.Message, Date: date})
		}
	})
	// Whether a signature is GitHub-verified depends on the keys GitHub's
	// users uploaded, which a checkout does not have (git verify-commit
	// needs the signers' keys in a local keyring): Verified stays false
	// and says nothing.
	return checks.CommitList{Commits: append([]checks.Commit(nil), c.commits.Commits...), SignaturesErr: errNoSignatures}, c.commitsErr
}

// errNoSignatures is CommitList.SignaturesErr of every local change.
var errNoSignatures = unavailable("GitHub's signature verification")

// ReadFile reads a file at a commit.
func (c *Change) ReadFile(ctx context.Context, ref, path string) ([]byte, error) {
	return c.repo.ReadFile(ctx, ref, path)
}

// ListDir lists a directory at a commit.
func (c *Change) ListDir(ctx context.Context, ref, dir string) ([]checks.DirEntry, error) {
	return c.repo.ListDir(ctx, ref, dir)
}

// Comments: a local change has no conversation.
func (c *Change) Comments(context.Context) ([]checks.Comment, error) {
	return nil, unavailable("PR comments are on GitHub")
}

// CodeownersErrors: the diagnostics are GitHub's own.
func (c *Change) CodeownersErrors(_ context.Context, ref string) ([]checks.CodeownersError, error) {
	return nil, unavailable("GitHub's CODEOWNERS diagnostics at %s", short(ref))
}

func (c *Change) CheckRuns(_ context.Context, sha string) ([]checks.CheckRun, error) {
	return nil, unavailable("check runs of %s", short(sha))
}

func (c *Change) CommitsWithChecks(_ context.Context, shas []string) (map[string]bool, error) {
	return nil, unavailable("check runs of %d commits", len(shas))
}

func (c *Change) WorkflowRun(_ context.Context, id int64) (checks.WorkflowRun, error) {
	return checks.WorkflowRun{}, unavailable("workflow run %d", id)
}

func (c *Change) WorkflowRuns(_ context.Context, workflowFile string, _ checks.RunQuery) ([]checks.WorkflowRun, error) {
	return nil, unavailable("runs of workflow %s", workflowFile)
}

func (c *Change) Artifacts(_ context.Context, runID int64) ([]checks.Artifact, error) {
	return nil, unavailable("artifacts of run %d", runID)
}

func (c *Change) ArtifactFiles(_ context.Context, a checks.Artifact, _ func(string) bool) ([]checks.ArtifactFile, error) {
	return nil, unavailable("artifact %s", a.Name)
}

func (c *Change) Permission(_ context.Context, login string) (checks.Permission, error) {
	return checks.Permission{}, unavailable("@%s's repository permission", login)
}

func (c *Change) TeamMember(_ context.Context, org, slug, login string) (checks.Membership, error) {
	return checks.MembershipUnknown, unavailable("membership of @%s in @%s/%s", login, org, slug)
}

func (c *Change) UpstreamPR(_ context.Context, owner, repo string, number int) (checks.UpstreamPR, error) {
	return checks.UpstreamPR{}, unavailable("upstream PR %s/%s#%d", owner, repo, number)
}

func (c *Change) UpstreamPRFiles(_ context.Context, owner, repo string, number int) ([]checks.ChangedFile, error) {
	return nil, unavailable("files of upstream PR %s/%s#%d", owner, repo, number)
}

func (c *Change) Issue(_ context.Context, owner, repo string, number int) (checks.Issue, error) {
	return checks.Issue{}, unavailable("issue or pull request %s/%s#%d", owner, repo, number)
}

func (c *Change) FetchPage(_ context.Context, url string) (checks.Page, error) {
	return checks.Page{}, unavailable("published page %s", url)
}
