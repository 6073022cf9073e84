package checks

import (
	"context"
	"errors"
	"time"
)

// Source is everything a check may learn about a pull request and its
// repository. The GitHub-backed implementation lives in app/; tests use the
// same implementation against a fake GitHub server. Every method is scoped to
// the repository and pull request under verification unless it says
// otherwise, and implementations memoize, so two checks asking for the same
// fact cost one API call.
type Source interface {
	// Files lists the PR's changed files with per-file patches.
	Files(ctx context.Context) ([]ChangedFile, error)
	// Commits lists the PR's commits, oldest first. Truncated is set when the
	// API's 250-commit cap was reached.
	Commits(ctx context.Context) (CommitList, error)
	// Comments lists the PR's conversation comments, oldest first.
	Comments(ctx context.Context) ([]Comment, error)

	// ReadFile returns a file's bytes at ref (a commit SHA). It returns an
	// error wrapping ErrNotFound when the file does not exist and ErrTooLarge
	// when it is over the configured cap.
	ReadFile(ctx context.Context, ref, path string) ([]byte, error)
	// ListDir lists a directory at ref. A missing directory is ErrNotFound.
	ListDir(ctx context.Context, ref, dir string) ([]DirEntry, error)
	// CodeownersErrors returns GitHub's own CODEOWNERS diagnostics at ref.
	CodeownersErrors(ctx context.Context, ref string) ([]CodeownersError, error)

	// CheckRuns lists the check runs on a commit.
	CheckRuns(ctx context.Context, sha string) ([]CheckRun, error)
	// CommitsWithChecks reports which of shas have a check run of any app,
	// in fewer reads than one per commit (GitHub: a GraphQL query per
	// hundred), so that a search back through many commits reads the check
	// runs only of those something ran on. A commit it cannot tell about
	// is reported as having some. ErrUnavailable: the source cannot tell.
	CommitsWithChecks(ctx context.Context, shas []string) (map[string]bool, error)
	// WorkflowRun reads one Actions run of this repository.
	WorkflowRun(ctx context.Context, id int64) (WorkflowRun, error)
	// WorkflowRuns lists runs of a workflow file, newest first.
	WorkflowRuns(ctx context.Context, workflowFile string, q RunQuery) ([]WorkflowRun, error)
	// Artifacts lists a run's artifacts.
	Artifacts(ctx context.Context, runID int64) ([]Artifact, error)
	// ArtifactFiles downloads an artifact and returns the entries whose names
	// want accepts. Implementations stream the archive, bound entry count and
	// sizes, and refuse unsafe entry names. An expired artifact is ErrExpired.
	// The entries' Data may be shared with a cache: callers must not
	// modify it.
	ArtifactFiles(ctx context.Context, a Artifact, want func(name string) bool) ([]ArtifactFile, error)

	// Permission reads a user's repository permission.
	Permission(ctx context.Context, login string) (Permission, error)
	// TeamMember reports whether login belongs to org/slug.
	TeamMember(ctx context.Context, org, slug, login string) (Membership, error)

	// UpstreamPR reads a pull request of another repository (upstream recipe
	// repositories). It may need a different token than the installation's.
	UpstreamPR(ctx context.Context, owner, repo string, number int) (UpstreamPR, error)
	// UpstreamPRFiles lists that pull request's changed files with patches.
	UpstreamPRFiles(ctx context.Context, owner, repo string, number int) ([]ChangedFile, error)
	// Issue reads an issue or a pull request of any repository, this one
	// included, by number: GitHub numbers both in one sequence and its
	// issues endpoint answers for both. A number that is neither is
	// ErrNotFound. Another repository may need a different token than the
	// installation's, as for UpstreamPR.
	Issue(ctx context.Context, owner, repo string, number int) (Issue, error)
	// FetchPage fetches a published documentation page (capped).
	FetchPage(ctx context.Context, url string) (Page, error)
}

// Errors a Source wraps so checks can tell kinds of missing evidence apart.
var (
	ErrNotFound  = errors.New("not found")
	ErrExpired   = errors.New("expired")
	ErrTooLarge  = errors.New("too large")
	ErrForbidden = errors.New("forbidden")
	ErrMalformed = errors.New("malformed")
	// ErrUnavailable: this Source cannot supply this kind of evidence at
	// all (a local git checkout has no CI runs, comments or teams).
	ErrUnavailable = errors.New("not available from this source")
)

// ChangedFile is one entry of a PR's file list.
type ChangedFile struct {
	Path         string `json:"filename"`
	PreviousPath string `json:"previous_filename,omitempty"`
	Status       string `json:"status"` // added, removed, modified, renamed, copied, changed, unchanged
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	// Patch is the unified diff hunk text. GitHub omits it for binary and
	// very large diffs; PatchMissing records that.
	Patch        string `json:"patch,omitempty"`
	PatchMissing bool   `json:"-"`
}

// Commit is one PR commit.
type Commit struct {
	SHA     string
	Message string
	Date    time.Time
	// Verified is GitHub's commit.verification.verified: the commit carries
	// a GPG, SSH or S/MIME signature GitHub checked against a key of its
	// committer's account. Only GitHub knows those keys, so a source
	// without GitHub leaves it false and says so in CommitList.SignaturesErr.
	Verified bool
}

// CommitList is the PR's commits, oldest first.
type CommitList struct {
	Commits []Commit
	// Truncated is set when GitHub's 250-commit cap hid newer commits (it
	// lists the oldest 250).
	Truncated bool
	// SignaturesErr is set when the source cannot tell which commits
	// GitHub verified (a local checkout): every Verified is then false
	// for want of evidence, not because a commit is unsigned. It wraps
	// ErrUnavailable.
	SignaturesErr error
}

// Has reports whether sha is one of the commits.
func (l CommitList) Has(sha string) bool {
	for _, c := range l.Commits {
		if c.SHA == sha {
			return true
		}
	}
	return false
}

// Comment is a PR conversation comment.
type Comment struct {
	ID          int64
	NodeID      string // GraphQL ID, for the comment's edit history
	Author      string
	AuthorIsBot bool
	Association string // OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, ...
	Body        string
	URL         string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Name string
	Path string
	Type string // "file" or "dir"
}

// CodeownersError is one of GitHub's CODEOWNERS diagnostics.
type CodeownersError struct {
	Line    int
	Kind    string
	Message string
	Path    string
}

// CheckRun is a check run on a commit.
type CheckRun struct {
	ID          int64
	Name        string
	Status      string // queued, in_progress, completed
	Conclusion  string // success, failure, skipped, neutral, cancelled, ...
	StartedAt   time.Time
	CompletedAt time.Time
	DetailsURL  string
	HTMLURL     string
}

// RunQuery filters WorkflowRuns.
type RunQuery struct {
	Event  string
	Branch string
	Status string
}

// WorkflowRun is an Actions run.
type WorkflowRun struct {
	ID         int64
	Name       string
	Path       string
	Event      string
	Status     string
	Conclusion string
	HeadSHA    string
	HeadBranch string
	HTMLURL    string
	CreatedAt  time.Time
	RunAttempt int
}

// Artifact is an Actions artifact.
type Artifact struct {
	ID        int64
	Name      string
	SizeBytes int64
	Expired   bool
	RunID     int64
}

// ArtifactFile is one file read from an artifact archive.
type ArtifactFile struct {
	Name string
	Data []byte
}

// Permission is a collaborator permission.
type Permission struct {
	Permission string // admin, maintain, write, triage, read, none
	RoleName   string
}

// IsAdmin is the strict admin test: both the permission and the role name
// are admin (a custom role with admin permission is not enough).
func (p Permission) IsAdmin() bool { return p.Permission == "admin" && p.RoleName == "admin" }

// Membership is the answer to a team membership question.
type Membership int

const (
	MembershipUnknown Membership = iota // no permission to read, or ambiguous 404
	Member
	NotMember
)

// UpstreamPR is a pull request in an upstream repository.
type UpstreamPR struct {
	Owner, Repo string
	Number      int
	State       string
	Draft       bool
	Merged      bool
	MergedAt    time.Time
	Title       string
	Body        string
	HTMLURL     string
}

// Issue is an issue or a pull request as GitHub's issues endpoint shows
// it. A pull request's merge is not part of it: UpstreamPR reads that.
type Issue struct {
	Owner, Repo string
	Number      int
	// PullRequest is set when the number is a pull request's.
	PullRequest bool
	State       string // open or closed
	// StateReason is why an issue is in its state: completed, not_planned
	// (closed without being done), reopened, or "" where GitHub records
	// none (pull requests, issues never closed, some closed long ago).
	StateReason string
	HTMLURL     string
	Title       string
}

// Page is a fetched documentation page.
type Page struct {
	URL        string
	StatusCode int
	Body       []byte
}
