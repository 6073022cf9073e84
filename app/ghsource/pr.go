package ghsource

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// prCommitCap is GitHub's limit on the PR commits list.
const prCommitCap = 250

func (s *Source) what(format string, args ...any) string {
	return fmt.Sprintf("%s/%s#%d: ", s.owner, s.repo, s.number) + fmt.Sprintf(format, args...)
}

// pull reads the pull request itself (memoized); Commits uses its commit
// count to tell whether GitHub's 250-commit cap hid commits.
func (s *Source) pull(ctx context.Context) (*github.PullRequest, error) {
	return do(s, "pull", func() (*github.PullRequest, error) {
		pr, resp, err := s.gh.PullRequests.Get(ctx, s.owner, s.repo, s.number)
		if err != nil {
			return nil, apiErr(s.what("reading the pull request"), resp, err)
		}
		return pr, nil
	})
}

// PRFileCap is GitHub's limit on the PR files list: it lists the first
// 3,000 changed files and no more.
const PRFileCap = 3000

// Files lists the PR's changed files with patches. A PR with more files
// than GitHub lists is ErrTooLarge: no list short of the whole one can
// answer what the callers ask (who owns every changed file, what changed).
func (s *Source) Files(ctx context.Context) ([]checks.ChangedFile, error) {
	return do(s, "files", func() ([]checks.ChangedFile, error) {
		files, resp, err := paginate(ctx, 0, func(opt github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
			return s.gh.PullRequests.ListFiles(ctx, s.owner, s.repo, s.number, &opt)
		})
		if err != nil {
			return nil, apiErr(s.what("listing changed files"), resp, err)
		}
		if len(files) >= PRFileCap {
			pr, err := s.pull(ctx)
			if err != nil {
				return nil, err
			}
			if n := pr.GetChangedFiles(); n > len(files) {
				return nil, fmt.Errorf("%s%w", s.what(""), &FileCapError{Listed: len(files), Changed: n})
			}
		}
		return convertFiles(files), nil
	})
}

// FileCapError is a PR with more changed files than GitHub lists.
type FileCapError struct{ Listed, Changed int }

func (e *FileCapError) Error() string {
	return fmt.Sprintf("GitHub lists at most %s files of a PR; this PR has %s", thousands(PRFileCap), thousands(e.Changed))
}

// Unwrap makes the cap a kind of ErrTooLarge for the checks.
func (e *FileCapError) Unwrap() error { return checks.ErrTooLarge }

// thousands writes n with comma separators (3000 -> 3,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func convertFiles(files []*github.CommitFile) []checks.ChangedFile {
	out := make([]checks.ChangedFile, 0, len(files))
	for _, f := range files {
		cf := checks.ChangedFile{Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(), Status: f.GetStatus(),
			Additions: f.GetAdditions(), Deletions: f.GetDeletions(), Patch: f.GetPatch()}
		// GitHub omits the patch for binary and very large diffs; a pure
		// rename has no patch because nothing changed.
		cf.PatchMissing = f.Patch == nil && !(cf.Status == "renamed" && f.GetChanges() == 0)
		out = append(out, cf)
	}
	return out
}

// Commits lists the PR's commits, oldest first.
func (s *Source) Commits(ctx context.Context) (checks.CommitList, error) {
	return do(s, "commits", func() (checks.CommitList, error) {
		commits, resp, err := paginate(ctx, 0, func(opt github.ListOptions) ([]*github.RepositoryCommit, *github.Response, error) {
			return s.gh.PullRequests.ListCommits(ctx, s.owner, s.repo, s.number, &opt)
		})
		if err != nil {
			return checks.CommitList{}, apiErr(s.what("listing commits"), resp, err)
		}
		out := checks.CommitList{Commits: convertCommits(commits)}
		if len(out.Commits) < prCommitCap {
			return out, nil
		}
		// Only the PR's own count can say whether the cap hid commits;
		// if it cannot be read, assume it did.
		pr, err := s.pull(ctx)
		if retry.IsTransient(err) {
			return checks.CommitList{}, err
		}
		if out.Truncated = err != nil || pr.GetCommits() > len(out.Commits); !out.Truncated {
			return out, nil
		}
		if err == nil && pr.GetCommits() <= maxPRCommits {
			all, err := s.compareCommits(ctx, pr)
			if retry.IsTransient(err) {
				return checks.CommitList{}, err
			}
			if err == nil && len(all) == pr.GetCommits() {
				return checks.CommitList{Commits: all}, nil
			}
		}
		return out, nil
	})
}

// maxPRCommits bounds the commits read of one PR through the comparison
// (100 a page); a PR with more keeps the capped list, marked truncated.
const maxPRCommits = 10_000

// compareCommits lists all of a PR's commits, oldest first, through the
// comparison of its base and head, which GitHub paginates past the PR
// commit list's 250.
func (s *Source) compareCommits(ctx context.Context, pr *github.PullRequest) ([]checks.Commit, error) {
	base, head := pr.GetBase().GetSHA(), pr.GetHead().GetSHA()
	var all []*github.RepositoryCommit
	for page := 1; ; page++ {
		cmp, resp, err := s.gh.Repositories.CompareCommits(ctx, s.owner, s.repo, base, head, &github.ListOptions{Page: page, PerPage: 100})
		if err != nil {
			return nil, apiErr(s.what("comparing %s...%s", base, head), resp, err)
		}
		all = append(all, cmp.Commits...)
		if resp.NextPage == 0 || len(cmp.Commits) == 0 || len(all) >= cmp.GetTotalCommits() || len(all) > maxPRCommits {
			return convertCommits(all), nil
		}
	}
}

func convertCommits(commits []*github.RepositoryCommit) []checks.Commit {
	out := make([]checks.Commit, 0, len(commits))
	for _, c := range commits {
		date := c.GetCommit().GetCommitter().GetDate().Time
		if date.IsZero() {
			date = c.GetCommit().GetAuthor().GetDate().Time
		}
		out = append(out, checks.Commit{SHA: c.GetSHA(), Message: c.GetCommit().GetMessage(), Date: date,
			Verified: c.GetCommit().GetVerification().GetVerified()})
	}
	return out
}

// Comments lists the PR's conversation comments, oldest first.
func (s *Source) Comments(ctx context.Context) ([]checks.Comment, error) {
	return do(s, "comments", func() ([]checks.Comment, error) {
		list, resp, err := paginate(ctx, 0, func(opt github.ListOptions) ([]*github.IssueComment, *github.Response, error) {
			return s.gh.Issues.ListComments(ctx, s.owner, s.repo, s.number, &github.IssueListCommentsOptions{
				Sort: github.String("created"), Direction: github.String("asc"), ListOptions: opt})
		})
		if err != nil {
			return nil, apiErr(s.what("listing comments"), resp, err)
		}
		out := make([]checks.Comment, 0, len(list))
		for _, c := range list {
			out = append(out, checks.Comment{ID: c.GetID(), NodeID: c.GetNodeID(), Author: c.GetUser().GetLogin(), AuthorIsBot: c.GetUser().GetType() == "Bot",
				Association: c.GetAuthorAssociation(), Body: c.GetBody(), URL: c.GetHTMLURL(),
				CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time})
		}
		return out, nil
	})
}
