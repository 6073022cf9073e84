// Package gitsourcetest builds small git repositories in temporary
// directories for tests of the local check and the history replay.
package gitsourcetest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Repo is a work tree with its own history.
type Repo struct {
	t    testing.TB
	Dir  string
	when time.Time
}

// New initializes a repository on branch main, or skips the test when git
// is not installed.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir(), when: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	r.Git("init", "--quiet", "--initial-branch=main")
	return r
}

// Git runs git in the repository with a fixed identity and clock and
// returns its trimmed output; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	date := r.when.Format(time.RFC3339)
	cmd.Env = append(cleanEnv(),
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.invalid", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.invalid", "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Dir, "GIT_CONFIG_GLOBAL=/dev/null")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return env
}

// Write puts files (path → content) into the work tree.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, c := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Remove deletes paths from the work tree.
func (r *Repo) Remove(paths ...string) {
	r.t.Helper()
	for _, p := range paths {
		if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(p))); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit stages everything and commits it with message; it returns the
// commit's ID. Each commit is one minute after the previous one.
func (r *Repo) Commit(message string) string {
	r.t.Helper()
	r.when = r.when.Add(time.Minute)
	r.Git("add", "--all")
	r.Git("commit", "--quiet", "--allow-empty", "-m", message)
	return r.Git("rev-parse", "HEAD")
}

// CopyTree writes every file under dir (recursively) into the work tree at
// the same relative path.
func (r *Repo) CopyTree(dir string) {
	r.t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Write(files)
}

// Bare makes a bare clone of the repository and returns its directory.
func (r *Repo) Bare() string {
	r.t.Helper()
	dst := filepath.Join(r.t.TempDir(), "mirror.git")
	r.Git("clone", "--quiet", "--bare", r.Dir, dst)
	return dst
}

// Files lists the tracked files at rev, sorted.
func (r *Repo) Files(rev string) []string {
	r.t.Helper()
	out := strings.Fields(r.Git("ls-tree", "-r", "--name-only", rev))
	sort.Strings(out)
	return out
}
