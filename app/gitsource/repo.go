// Package gitsource is a checks.Source backed by a local git repository
// (bare or not), for verifying a change offline: files and directory
// listings at any revision, the changed files with GitHub-shaped patches and
// the commit list between two revisions. Evidence only GitHub has (comments,
// check runs, workflow runs, artifacts, permissions, team membership,
// upstream pull requests, published pages, CODEOWNERS diagnostics) is
// refused with an error wrapping checks.ErrUnavailable.
//
// Objects are read through one long-running `git cat-file --batch` process
// shared by every caller; blobs, trees and commits are cached by object ID,
// so a file that is the same blob at a thousand revisions is read once.
package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// Options tune a Repo. Zero values take the defaults in parentheses.
type Options struct {
	// MaxFileBytes caps ReadFile, as the GitHub-backed Source does (8 MiB).
	MaxFileBytes int64
	// CacheBytes bounds the cached blob contents (256 MiB). Trees and
	// commits are small and bounded separately.
	CacheBytes int64
}

// Repo is an open repository. It is safe for concurrent use; Close it to
// end its cat-file process. It assumes the repository does not change while
// it is open (every answer about an object ID is cached).
type Repo struct {
	git     gitRunner
	gitDir  string
	oidLen  int // bytes of a binary object ID in tree objects
	maxFile int64
	cat     *catFile
	blobs   *lru[[]byte]
	trees   *lru[[]treeEntry]
	commits *lru[commitObject]
}

// gitRunner runs git against one repository with a configuration that
// makes its output independent of the user's settings.
type gitRunner struct{ dir string }

// pinned are -c options that override user configuration which would
// change diff output or object names.
var pinned = []string{
	"-c", "core.quotePath=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.suppressBlankEmpty=false",
	"-c", "diff.interHunkContext=0",
	"-c", "diff.context=3",
	"-c", "diff.algorithm=myers",
	"-c", "diff.relative=false",
}

// redirecting are environment variables that would make git read another
// repository than the one asked for.
var redirecting = []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_OBJECT_DIRECTORY=",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_NAMESPACE=", "GIT_COMMON_DIR=", "GIT_CEILING_DIRECTORIES="}

func (g gitRunner) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"-C", g.dir}, pinned...), args...)...)
	env := os.Environ()[:0:0]
	for _, kv := range os.Environ() {
		keep := true
		for _, r := range redirecting {
			if strings.HasPrefix(kv, r) {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	return cmd
}

// output runs git and returns its stdout; a failure carries git's stderr.
func (g gitRunner) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return nil, fmt.Errorf("git %s: %s: %w", args[0], msg, err)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// Available reports whether a git executable is on PATH.
func Available() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// Open opens the repository at dir (a work tree or a bare repository).
func Open(ctx context.Context, dir string, o Options) (*Repo, error) {
	if !Available() {
		return nil, errors.New("git is not installed (not found on PATH)")
	}
	g := gitRunner{dir: dir}
	out, err := g.output(ctx, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, fmt.Errorf("%s is not a git repository: %w", dir, err)
	}
	r := &Repo{git: g, gitDir: strings.TrimSpace(string(out)), oidLen: 20, maxFile: o.MaxFileBytes}
	if f, err := g.output(ctx, "rev-parse", "--show-object-format"); err == nil && strings.TrimSpace(string(f)) == "sha256" {
		r.oidLen = 32
	}
	if r.maxFile <= 0 {
		r.maxFile = 8 << 20
	}
	cacheBytes := o.CacheBytes
	if cacheBytes <= 0 {
		cacheBytes = 256 << 20
	}
	r.blobs = newLRU[[]byte](cacheBytes)
	r.trees = newLRU[[]treeEntry](64 << 20)
	r.commits = newLRU[commitObject](16 << 20)
	if r.cat, err = startCatFile(g); err != nil {
		return nil, err
	}
	return r, nil
}

// Close ends the cat-file process.
func (r *Repo) Close() error { return r.cat.close() }

// GitDir is the repository's git directory (for tools that need GIT_DIR).
func (r *Repo) GitDir() string { return r.gitDir }

// Dir is the directory the repository was opened at.
func (r *Repo) Dir() string { return r.git.dir }

var fullOID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// Resolve turns a revision (branch, tag, SHA, HEAD~2, ...) into the full ID
// of the commit it names.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("invalid revision %q", rev)
	}
	o, err := r.cat.read(ctx, rev+"^{commit}", 0)
	if errors.Is(err, errMissing) {
		return "", fmt.Errorf("revision %q does not name a commit in %s", rev, r.git.dir)
	}
	if err != nil {
		return "", fmt.Errorf("resolving %q: %w", rev, err)
	}
	return o.OID, nil
}

// DefaultBranch is the branch HEAD points at (a clone's default branch) and
// its commit.
func (r *Repo) DefaultBranch(ctx context.Context) (string, string, error) {
	out, err := r.git.output(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return "", "", fmt.Errorf("reading the default branch (HEAD is not a branch): %w", err)
	}
	name := strings.TrimSpace(string(out))
	sha, err := r.Resolve(ctx, "refs/heads/"+name)
	if err != nil {
		return "", "", err
	}
	return name, sha, nil
}

// MergeBase is the best common ancestor of a and b, the commit GitHub
// compares a pull request's head with.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	out, err := r.git.output(ctx, "merge-base", a, b)
	if err != nil {
		return "", fmt.Errorf("finding the merge base of %s and %s: %w", short(a), short(b), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// RevList lists commit IDs for git rev-list args (for example
// "--first-parent", "A..B"), in the order git prints them.
func (r *Repo) RevList(ctx context.Context, args ...string) ([]string, error) {
	out, err := r.git.output(ctx, append([]string{"rev-list"}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("listing commits: %w", err)
	}
	return strings.Fields(string(out)), nil
}

var githubRemote = regexp.MustCompile(`^(?:https://|ssh://git@|git@)github\.com[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$`)

// GitHubName is the OWNER/NAME of the repository's origin remote when it
// is on github.com ("", "" otherwise).
func (r *Repo) GitHubName(ctx context.Context) (string, string) {
	out, err := r.git.output(ctx, "config", "--get", "remote.origin.url")
	if err != nil {
		return "", ""
	}
	m := githubRemote.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// Archive returns a tar archive of paths (files or directories) at commit
// rev, as `git archive` writes it.
func (r *Repo) Archive(ctx context.Context, rev string, paths ...string) ([]byte, error) {
	out, err := r.git.output(ctx, append([]string{"archive", "--format=tar", rev, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("archiving %s at %s: %w", strings.Join(paths, ", "), short(rev), err)
	}
	return out, nil
}

// Commit is what a commit object says.
type Commit struct {
	SHA       string
	Tree      string
	Parents   []string
	Author    string // name <email>
	Committed time.Time
	Authored  time.Time
	Message   string
}

// Subject is the first line of the message.
func (c Commit) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return strings.TrimSpace(s)
}

// Body is the message after the subject line.
func (c Commit) Body() string {
	_, b, _ := strings.Cut(c.Message, "\n")
	return strings.TrimSpace(b)
}

type commitObject = Commit

// Commit reads a commit by full ID or revision.
func (r *Repo) Commit(ctx context.Context, rev string) (Commit, error) {
	sha := rev
	if !fullOID.MatchString(rev) {
		var err error
		if sha, err = r.Resolve(ctx, rev); err != nil {
			return Commit{}, err
		}
	}
	return r.commits.get(sha, func() (Commit, int64, error) {
		o, err := r.cat.read(ctx, sha, 64<<20)
		if errors.Is(err, errMissing) {
			return Commit{}, 0, fmt.Errorf("commit %s is not in the repository", short(sha))
		}
		if err != nil {
			return Commit{}, 0, fmt.Errorf("reading commit %s: %w", short(sha), err)
		}
		if o.Type != "commit" || o.Data == nil {
			return Commit{}, 0, fmt.Errorf("%s is a %s, not a commit", short(sha), o.Type)
		}
		c, err := parseCommit(sha, o.Data)
		return c, int64(len(o.Data)) + 256, err
	})
}

func parseCommit(sha string, data []byte) (Commit, error) {
	c := Commit{SHA: sha}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		if strings.HasPrefix(line, " ") {
			continue // continuation of a multi-line header (gpgsig)
		}
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.Tree = v
		case "parent":
			c.Parents = append(c.Parents, v)
		case "author":
			c.Author, c.Authored = identity(v)
		case "committer":
			_, c.Committed = identity(v)
		}
	}
	if !fullOID.MatchString(c.Tree) {
		return Commit{}, fmt.Errorf("commit %s has no tree", short(sha))
	}
	return c, nil
}

// identity splits "Name <email> 1700000000 +0100".
func identity(v string) (string, time.Time) {
	i := strings.LastIndexByte(v, '>')
	if i < 0 {
		return v, time.Time{}
	}
	who := v[:i+1]
	f := strings.Fields(v[i+1:])
	if len(f) < 1 {
		return who, time.Time{}
	}
	var secs int64
	if _, err := fmt.Sscan(f[0], &secs); err != nil {
		return who, time.Time{}
	}
	t := time.Unix(secs, 0).UTC()
	if len(f) > 1 {
		if tz, err := time.Parse("-0700", f[1]); err == nil {
			t = t.In(tz.Location())
		}
	}
	return who, t
}

func short(sha string) string {
	if len(sha) > 7 && fullOID.MatchString(sha) {
		return sha[:7]
	}
	return sha
}
