package gitsourcetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// FixturePR is the first pull request of a githubtest fixture rebuilt as a
// git history: the base commit on main, the head on branch "pr" on top of
// it, and (when the fixture's default branch is another commit) the
// default branch's tree as a second commit on main. The head commit's
// message is the PR's title and body, as a squash merge would have it.
type FixturePR struct {
	Repo    *Repo
	Fixture *fixture.Fixture
	Pull    *fixture.Pull
	// Base, Head and Default are commit IDs.
	Base, Head, Default string
	// SignOff and Signer are the newest sign-off containing phrase ("" when
	// the PR has none).
	SignOff, Signer string
}

// FromFixture loads the fixture in dir and rebuilds its first pull request.
func FromFixture(t testing.TB, dir, phrase string) FixturePR {
	t.Helper()
	fx, err := fixture.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Repos) == 0 || len(fx.Repos[0].Pulls) == 0 {
		t.Fatalf("%s: no pull request", dir)
	}
	repo, pull := fx.Repos[0], fx.Repos[0].Pulls[0]
	treeOf := func(ref string) map[string][]byte {
		name := repo.CommitTree(ref)
		files := fx.TreeFiles(name)
		if files == nil {
			t.Fatalf("%s: commit %q has no tree", dir, ref)
		}
		return files
	}
	r := New(t)
	out := FixturePR{Repo: r, Fixture: fx, Pull: pull}
	r.replaceTree(treeOf(pull.Base.Commit))
	out.Base = r.Commit("base")
	r.Git("checkout", "--quiet", "-b", "pr")
	r.replaceTree(treeOf(pull.Head.Commit))
	out.Head = r.Commit(strings.TrimSpace(pull.Title + "\n\n" + pull.Body))
	r.Git("checkout", "--quiet", "main")
	out.Default = out.Base
	def := repo.DefaultBranch
	if def == "" {
		def = "main"
	}
	if repo.CommitTree(def) != repo.CommitTree(pull.Base.Commit) {
		r.replaceTree(treeOf(def))
		out.Default = r.Commit("default branch")
	}
	out.SignOff, out.Signer = newestSignOff(pull, phrase)
	return out
}

// replaceTree makes the work tree hold exactly files.
func (r *Repo) replaceTree(files map[string][]byte) {
	r.t.Helper()
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			r.Remove(e.Name())
		}
	}
	text := make(map[string]string, len(files))
	for p, d := range files {
		text[filepath.ToSlash(p)] = string(d)
	}
	r.Write(text)
}

func newestSignOff(p *fixture.Pull, phrase string) (body, author string) {
	var at time.Time
	consider := func(b, user string, when time.Time) {
		if signoff.IsCandidate(b, phrase) && (body == "" || !when.Before(at)) {
			body, author, at = b, user, when
		}
	}
	for _, c := range p.Comments {
		consider(c.Body, c.User, c.CreatedAt)
	}
	for _, rv := range p.Reviews {
		consider(rv.Body, rv.User, rv.SubmittedAt)
	}
	for _, c := range p.ReviewComments {
		consider(c.Body, c.User, c.CreatedAt)
	}
	return body, author
}
