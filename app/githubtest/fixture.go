package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"time"
)

// Fixture is everything the fake GitHub serves. It is what LoadFixture reads
// from a fixture directory (see testdata/README.md for the on-disk format)
// and what tests build in code with the helper methods below. The same value
// must not be modified once handed to New.
type Fixture struct {
	// Dir is the directory the fixture was loaded from ("" for fixtures
	// built in code). Artifact directories and page files resolve against it.
	Dir string `yaml:"-"`
	// Now is the server clock's start. Every mutation advances it by one
	// second so that ordering is deterministic. Zero means 2026-11-20T12:00:00Z.
	Now time.Time `yaml:"now"`
	App App       `yaml:"app"`
	// Trees are named file trees. Files come from trees/<name>/ on disk
	// and from Files; Base makes a tree a copy of another plus overrides.
	Trees map[string]*Tree `yaml:"trees"`
	Repos []*Repo          `yaml:"repos"`
	Teams []*Team          `yaml:"teams"`
	// Pages are published documentation pages served by PageTransport,
	// keyed by absolute URL.
	Pages map[string]*Page `yaml:"pages"`
	// Tokens are the personal access tokens the server accepts, each
	// mapped to its user's login. Tokens starting with ghs_ are the App's
	// installation tokens; any other token is refused (401 Bad
	// credentials), as GitHub refuses a token it did not issue.
	Tokens map[string]string `yaml:"tokens"`
}

// App describes the GitHub App the server pretends the client is.
type App struct {
	Slug           string `yaml:"slug"`
	ID             int64  `yaml:"id"`
	InstallationID int64  `yaml:"installation_id"`
	// BotLogin authors every comment, reaction, status and check run
	// created through the API; default "<slug>[bot]".
	BotLogin string `yaml:"bot_login"`
}

// Tree is a file tree.
type Tree struct {
	// Base names another tree this one starts as a copy of.
	Base string `yaml:"base"`
	// Delete removes paths (files, or every file under a directory) inherited from Base.
	Delete []string `yaml:"delete"`
	// Files adds or overrides files (inline content). On disk, files under
	// trees/<name>/ are added too and win over inline ones.
	Files map[string]string `yaml:"files"`

	disk     map[string][]byte // files read from trees/<name>/
	resolved map[string][]byte
}

// Repo is one repository. Upstream repositories (for example
// vllm-project/recipes) are ordinary entries.
type Repo struct {
	FullName      string `yaml:"name"`
	DefaultBranch string `yaml:"default_branch"`
	Private       bool   `yaml:"private"`
	// Branches maps a branch name to a commit (name or SHA).
	Branches map[string]string `yaml:"branches"`
	Commits  []*Commit         `yaml:"commits"`
	Pulls    []*Pull           `yaml:"pulls"`
	// Collaborators maps a login to its permission. Unknown logins get 404,
	// as GitHub answers for users that do not exist.
	Collaborators map[string]Permission `yaml:"collaborators"`
	// CodeownersErrors maps a commit (name, SHA or branch) to GitHub's
	// CODEOWNERS diagnostics there; absent means no errors.
	CodeownersErrors map[string][]CodeownersError `yaml:"codeowners_errors"`
	// CheckRuns maps a commit (name or SHA) to its check runs.
	CheckRuns    map[string][]*CheckRun `yaml:"check_runs"`
	WorkflowRuns []*WorkflowRun         `yaml:"workflow_runs"`
}

// Commit is a commit and the tree it points at.
type Commit struct {
	// Name is a fixture-local handle used wherever a commit is referenced.
	Name string `yaml:"name"`
	// SHA defaults to a SHA-1 derived from the repository and Name.
	SHA     string    `yaml:"sha"`
	Tree    string    `yaml:"tree"`
	Message string    `yaml:"message"`
	Author  string    `yaml:"author"`
	Date    time.Time `yaml:"date"`
}

// Ref is the head or base of a pull request.
type Ref struct {
	Ref    string `yaml:"ref"`
	Commit string `yaml:"commit"` // commit name or SHA
	// Repo is the head repository for forks; default the PR's repository.
	Repo string `yaml:"repo"`
}

// Pull is a pull request.
type Pull struct {
	Number   int       `yaml:"number"`
	Title    string    `yaml:"title"`
	Body     string    `yaml:"body"`
	State    string    `yaml:"state"` // open (default) or closed
	Draft    bool      `yaml:"draft"`
	Merged   bool      `yaml:"merged"`
	MergedAt time.Time `yaml:"merged_at"`
	User     string    `yaml:"user"`
	// UserType is "User" (default) or "Bot".
	UserType  string    `yaml:"user_type"`
	Labels    []string  `yaml:"labels"`
	Head      Ref       `yaml:"head"`
	Base      Ref       `yaml:"base"`
	CreatedAt time.Time `yaml:"created_at"`
	UpdatedAt time.Time `yaml:"updated_at"`
	// Files lists changed files. When empty, they are generated from the
	// base and head commits' trees (with unified-diff patches).
	Files []*File `yaml:"files"`
	// Commits lists the PR's commits oldest first; default [head].
	Commits        []string         `yaml:"commits"`
	Comments       []*Comment       `yaml:"comments"`
	Reviews        []*Review        `yaml:"reviews"`
	ReviewComments []*ReviewComment `yaml:"review_comments"`
}

// File is one changed file of a pull request.
type File struct {
	Filename         string `yaml:"filename"`
	PreviousFilename string `yaml:"previous_filename"`
	Status           string `yaml:"status"`
	Additions        int    `yaml:"additions"`
	Deletions        int    `yaml:"deletions"`
	// Patch is the diff hunk text; NoPatch omits it as GitHub does for
	// binary or huge diffs.
	Patch   string `yaml:"patch"`
	NoPatch bool   `yaml:"no_patch"`
}

// Comment is an issue (conversation) comment.
type Comment struct {
	// ID is repository-wide unique; assigned from 1000000001 upwards when 0.
	ID          int64       `yaml:"id"`
	User        string      `yaml:"user"`
	UserType    string      `yaml:"user_type"` // User (default) or Bot
	Association string      `yaml:"author_association"`
	Body        string      `yaml:"body"`
	CreatedAt   time.Time   `yaml:"created_at"`
	UpdatedAt   time.Time   `yaml:"updated_at"`
	Reactions   []*Reaction `yaml:"reactions"`
	// Edits are who changed the body and when (the GraphQL edit history);
	// an updated comment without them was edited by its author.
	Edits []Edit `yaml:"edits"`
}

// Reaction is a reaction on an issue comment.
type Reaction struct {
	ID      int64  `yaml:"id"`
	User    string `yaml:"user"`
	Content string `yaml:"content"` // +1, -1, laugh, confused, heart, hooray, rocket, eyes
}

// Review is a pull request review.
type Review struct {
	ID          int64     `yaml:"id"`
	User        string    `yaml:"user"`
	Association string    `yaml:"author_association"`
	State       string    `yaml:"state"` // COMMENTED (default), APPROVED, CHANGES_REQUESTED
	Body        string    `yaml:"body"`
	Commit      string    `yaml:"commit"` // default: PR head
	SubmittedAt time.Time `yaml:"submitted_at"`
	Edits       []Edit    `yaml:"edits"`
}

// ReviewComment is an inline review comment.
type ReviewComment struct {
	ID          int64     `yaml:"id"`
	ReviewID    int64     `yaml:"review_id"`
	User        string    `yaml:"user"`
	Association string    `yaml:"author_association"`
	Body        string    `yaml:"body"`
	Path        string    `yaml:"path"`
	Line        int       `yaml:"line"`
	Commit      string    `yaml:"commit"`
	CreatedAt   time.Time `yaml:"created_at"`
	UpdatedAt   time.Time `yaml:"updated_at"`
	Edits       []Edit    `yaml:"edits"`
}

// Permission is a collaborator permission answer.
type Permission struct {
	Permission string `yaml:"permission"`
	RoleName   string `yaml:"role_name"`
}

// CodeownersError is one GitHub CODEOWNERS diagnostic.
type CodeownersError struct {
	Line    int    `yaml:"line"`
	Column  int    `yaml:"column"`
	Kind    string `yaml:"kind"`
	Source  string `yaml:"source"`
	Message string `yaml:"message"`
	Path    string `yaml:"path"`
}

// CheckRun is a check run on a commit.
type CheckRun struct {
	ID          int64     `yaml:"id"`
	Name        string    `yaml:"name"`
	Status      string    `yaml:"status"`     // default completed
	Conclusion  string    `yaml:"conclusion"` // default success when completed
	StartedAt   time.Time `yaml:"started_at"`
	CompletedAt time.Time `yaml:"completed_at"`
	DetailsURL  string    `yaml:"details_url"`
	// Run and Job build a details_url .../actions/runs/<Run>/job/<Job> when DetailsURL is empty.
	Run     int64  `yaml:"run"`
	Job     int64  `yaml:"job"`
	AppSlug string `yaml:"app"` // default github-actions
}

// WorkflowRun is an Actions run with its artifacts.
type WorkflowRun struct {
	ID         int64       `yaml:"id"`
	Name       string      `yaml:"name"`
	Path       string      `yaml:"path"` // .github/workflows/run-sweep.yml
	Event      string      `yaml:"event"`
	Status     string      `yaml:"status"`
	Conclusion string      `yaml:"conclusion"`
	HeadCommit string      `yaml:"head_commit"` // commit name or SHA
	HeadBranch string      `yaml:"head_branch"`
	CreatedAt  time.Time   `yaml:"created_at"`
	RunAttempt int         `yaml:"run_attempt"`
	Artifacts  []*Artifact `yaml:"artifacts"`
}

// Artifact is an Actions artifact. Its zip is built on the fly from Dir
// (relative to the fixture directory) and Files, or served verbatim from
// Zip (a path) or RawZip (bytes) for hostile-archive tests.
type Artifact struct {
	ID      int64             `yaml:"id"`
	Name    string            `yaml:"name"`
	Expired bool              `yaml:"expired"`
	Dir     string            `yaml:"dir"`
	Files   map[string]string `yaml:"files"`
	Zip     string            `yaml:"zip"`
	RawZip  []byte            `yaml:"-"`
	// SizeBytes overrides the advertised size_in_bytes.
	SizeBytes int64 `yaml:"size_in_bytes"`
}

// Team is an organization team and its members.
type Team struct {
	Org  string `yaml:"org"`
	Slug string `yaml:"slug"`
	// Members maps login to state: active or pending.
	Members map[string]string `yaml:"members"`
	// Forbidden makes membership reads answer 403 (no org permission).
	Forbidden bool `yaml:"forbidden"`
}

// Page is a published documentation page.
type Page struct {
	Status      int    `yaml:"status"` // default 200
	ContentType string `yaml:"content_type"`
	Body        string `yaml:"body"`
	File        string `yaml:"file"` // relative to the fixture directory
}

// DefaultNow is the server clock's default start.
var DefaultNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// CommitSHA is the SHA the fixture gives commit name in repo when the
// commit does not state one.
func CommitSHA(repo, name string) string {
	h := sha1.Sum([]byte(repo + "\x00" + name))
	return hex.EncodeToString(h[:])
}

// --- builders for fixtures written in Go ---

// NewFixture returns an empty fixture with an app called slug.
func NewFixture(slug string) *Fixture {
	return &Fixture{App: App{Slug: slug, ID: 1, InstallationID: 1}, Trees: map[string]*Tree{}, Pages: map[string]*Page{}}
}

// Tree returns the named tree, creating it.
func (f *Fixture) Tree(name string) *Tree {
	if f.Trees == nil {
		f.Trees = map[string]*Tree{}
	}
	t, ok := f.Trees[name]
	if !ok {
		t = &Tree{}
		f.Trees[name] = t
	}
	return t
}

// Put sets a file's content and returns the tree for chaining.
func (t *Tree) Put(path, content string) *Tree {
	if t.Files == nil {
		t.Files = map[string]string{}
	}
	t.Files[path] = content
	return t
}

// From makes the tree a copy of base plus its own files.
func (t *Tree) From(base string) *Tree { t.Base = base; return t }

// Repo returns the repository fullName, creating it with default branch main.
func (f *Fixture) Repo(fullName string) *Repo {
	for _, r := range f.Repos {
		if r.FullName == fullName {
			return r
		}
	}
	r := &Repo{FullName: fullName, DefaultBranch: "main"}
	f.Repos = append(f.Repos, r)
	return r
}

// Commit adds a commit of tree and returns its SHA.
func (r *Repo) Commit(name, tree string) string {
	c := &Commit{Name: name, SHA: CommitSHA(r.FullName, name), Tree: tree}
	r.Commits = append(r.Commits, c)
	return c.SHA
}

// Branch points branch at commit (name or SHA).
func (r *Repo) Branch(branch, commit string) *Repo {
	if r.Branches == nil {
		r.Branches = map[string]string{}
	}
	r.Branches[branch] = commit
	return r
}

// Pull adds a pull request and returns it for further setup.
func (r *Repo) Pull(p *Pull) *Pull { r.Pulls = append(r.Pulls, p); return p }

// Collaborator sets a login's permission.
func (r *Repo) Collaborator(login, permission, role string) *Repo {
	if r.Collaborators == nil {
		r.Collaborators = map[string]Permission{}
	}
	r.Collaborators[login] = Permission{Permission: permission, RoleName: role}
	return r
}

// AddCheckRuns appends check runs on a commit (name or SHA).
func (r *Repo) AddCheckRuns(commit string, runs ...*CheckRun) *Repo {
	if r.CheckRuns == nil {
		r.CheckRuns = map[string][]*CheckRun{}
	}
	r.CheckRuns[commit] = append(r.CheckRuns[commit], runs...)
	return r
}

// Run adds a workflow run.
func (r *Repo) Run(w *WorkflowRun) *WorkflowRun { r.WorkflowRuns = append(r.WorkflowRuns, w); return w }

// Team adds a team.
func (f *Fixture) Team(org, slug string, members ...string) *Team {
	t := &Team{Org: org, Slug: slug, Members: map[string]string{}}
	for _, m := range members {
		t.Members[m] = "active"
	}
	f.Teams = append(f.Teams, t)
	return t
}

// Page adds a published page.
func (f *Fixture) Page(url string, status int, body string) {
	if f.Pages == nil {
		f.Pages = map[string]*Page{}
	}
	f.Pages[url] = &Page{Status: status, Body: body}
}

// SHA resolves a commit reference (name, SHA or branch) of repo to a SHA.
// It panics on unknown references: it is meant for test setup.
func (f *Fixture) SHA(repo, ref string) string {
	r := f.findRepo(repo)
	if r == nil {
		panic(fmt.Sprintf("githubtest: no repo %s", repo))
	}
	c := r.commit(ref)
	if c == nil {
		panic(fmt.Sprintf("githubtest: no commit %q in %s", ref, repo))
	}
	return c.SHA
}

func (f *Fixture) findRepo(fullName string) *Repo {
	for _, r := range f.Repos {
		if equalFold(r.FullName, fullName) {
			return r
		}
	}
	return nil
}

// commit resolves a name, SHA or branch.
func (r *Repo) commit(ref string) *Commit {
	for _, c := range r.Commits {
		if c.Name == ref || c.SHA == ref {
			return c
		}
	}
	if b, ok := r.Branches[ref]; ok {
		for _, c := range r.Commits {
			if c.Name == b || c.SHA == b {
				return c
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
