package gitsource_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/verdict-bot/verdict/checks/format/udiff"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/checks"
)

func open(t *testing.T, dir string, o gitsource.Options) *gitsource.Repo {
	t.Helper()
	r, err := gitsource.Open(context.Background(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestReadFileAndListDir(t *testing.T) {
	g := gitsourcetest.New(t)
	g.Write(map[string]string{
		"README.md":             "hello\n",
		"configs/a-master.yaml": "a: 1\n",
		"configs/sub/x.yaml":    "x\n",
		"big.bin":               strings.Repeat("z", 2048),
	})
	for link, target := range map[string]string{
		"link":            "README.md",
		"configs/up":      "../README.md",
		"configs/chain":   "up",
		"outside":         "../../etc/passwd",
		"absolute":        "/etc/passwd",
		"to-dir":          "configs",
		"loop":            "loop",
		"configs/dangles": "nothing-here",
	} {
		if err := os.Symlink(target, filepath.Join(g.Dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	c1 := g.Commit("first")
	g.Write(map[string]string{"README.md": "hello again\n"})
	c2 := g.Commit("second")

	ctx := context.Background()
	for _, dir := range []string{g.Dir, g.Bare()} {
		r := open(t, dir, gitsource.Options{MaxFileBytes: 1024})
		for _, tc := range []struct {
			rev, path, want string
			err             error
		}{
			{c1, "README.md", "hello\n", nil},
			{c2, "README.md", "hello again\n", nil},
			{c2, "/configs/a-master.yaml", "a: 1\n", nil},
			{c2, "configs/missing.yaml", "", checks.ErrNotFound},
			{c2, "README.md/x", "", checks.ErrNotFound},
			{c2, "configs", "", checks.ErrNotFound},
			{c2, "big.bin", "", checks.ErrTooLarge},
			{c2, "link", "hello again\n", nil},
			{c2, "configs/chain", "hello again\n", nil},
			{c2, "outside", "", checks.ErrMalformed},
			{c2, "absolute", "", checks.ErrMalformed},
			{c2, "to-dir", "", checks.ErrMalformed},
			{c2, "loop", "", checks.ErrMalformed},
			{c2, "configs/dangles", "", checks.ErrMalformed},
		} {
			got, err := r.ReadFile(ctx, tc.rev, tc.path)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Errorf("%s: ReadFile(%s) error = %v, want %v", dir, tc.path, err, tc.err)
				}
				continue
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("%s: ReadFile(%s@%s) = %q, %v; want %q", dir, tc.path, tc.rev[:7], got, err, tc.want)
			}
		}
		es, err := r.ListDir(ctx, c2, "configs")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(es); got != "[{a-master.yaml configs/a-master.yaml file} {chain configs/chain symlink} {dangles configs/dangles symlink} {sub configs/sub dir} {up configs/up symlink}]" {
			t.Errorf("ListDir(configs) = %s", got)
		}
		root, err := r.ListDir(ctx, c2, "")
		if err != nil || len(root) != 8 || root[2].Name != "big.bin" || root[3].Name != "configs" || root[3].Type != "dir" || root[4].Type != "symlink" {
			t.Errorf("ListDir(root) = %v, %v", root, err)
		}
		for _, d := range []string{"nope", "README.md"} {
			if _, err := r.ListDir(ctx, c2, d); !errors.Is(err, checks.ErrNotFound) {
				t.Errorf("ListDir(%s) error = %v, want not found", d, err)
			}
		}
		if _, err := r.Resolve(ctx, "no-such-branch"); err == nil {
			t.Error("Resolve(no-such-branch) succeeded")
		}
		if got, err := r.Resolve(ctx, "main~1"); err != nil || got != c1 {
			t.Errorf("Resolve(main~1) = %s, %v; want %s", got, err, c1)
		}
		if name, sha, err := r.DefaultBranch(ctx); err != nil || name != "main" || sha != c2 {
			t.Errorf("DefaultBranch = %s %s %v", name, sha, err)
		}
	}
}

func TestDiffIsShapedLikeGitHub(t *testing.T) {
	g := gitsourcetest.New(t)
	long := ""
	for i := 1; i <= 20; i++ {
		long += fmt.Sprintf("line %d\n", i)
	}
	g.Write(map[string]string{
		"keep.txt":      "same\n",
		"edit.sh":       "a\nb\nc\n",
		"gone.txt":      "bye\n",
		"old/name.yaml": long,
		"noeol.txt":     "x",
		"bin.dat":       "\x00\x01\x02",
	})
	base := g.Commit("base")
	g.Remove("gone.txt", "old/name.yaml")
	g.Write(map[string]string{
		"edit.sh":       "a\nB\nc\nd\n",
		"new/name.yaml": strings.Replace(long, "line 10\n", "line ten\n", 1),
		"added.txt":     "one\ntwo\n",
		"noeol.txt":     "y",
		"bin.dat":       "\x00\x03",
	})
	head := g.Commit("head")

	r := open(t, g.Dir, gitsource.Options{})
	files, err := r.Change(base, head).Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		path, prev, status string
		adds, dels         int
		missing            bool
	}
	var got []row
	for _, f := range files {
		got = append(got, row{f.Path, f.PreviousPath, f.Status, f.Additions, f.Deletions, f.PatchMissing})
	}
	want := []row{
		{"added.txt", "", "added", 2, 0, false},
		{"bin.dat", "", "modified", 0, 0, true},
		{"edit.sh", "", "modified", 2, 1, false},
		{"gone.txt", "", "removed", 0, 1, false},
		{"new/name.yaml", "old/name.yaml", "renamed", 1, 1, false},
		{"noeol.txt", "", "modified", 1, 1, false},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("files:\n got %v\nwant %v", got, want)
	}
	patches := map[string]string{}
	for _, f := range files {
		patches[f.Path] = f.Patch
	}
	if p := patches["edit.sh"]; p != "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d" {
		t.Errorf("edit.sh patch = %q", p)
	}
	if p := patches["added.txt"]; p != "@@ -0,0 +1,2 @@\n+one\n+two" {
		t.Errorf("added.txt patch = %q", p)
	}
	if p := patches["noeol.txt"]; p != "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file" {
		t.Errorf("noeol.txt patch = %q", p)
	}
	// The change-set model reads these patches: the renamed file's edit is
	// line 10 of the new name.
	added, removed, _ := udiff.Parse(patches["new/name.yaml"])
	if len(added) != 1 || added[0].Line != 10 || added[0].Text != "line ten" || len(removed) != 1 || removed[0].Line != 10 {
		t.Errorf("renamed file's patch parses to %v / %v", added, removed)
	}
	if none, err := r.Change(head, head).Files(context.Background()); err != nil || len(none) != 0 {
		t.Errorf("empty diff = %v, %v", none, err)
	}
}

func TestCommits(t *testing.T) {
	g := gitsourcetest.New(t)
	g.Write(map[string]string{"a": "1\n"})
	base := g.Commit("base")
	g.Write(map[string]string{"a": "2\n"})
	c1 := g.Commit("one\n\nbody text")
	g.Write(map[string]string{"a": "3\n"})
	c2 := g.Commit("two")
	r := open(t, g.Dir, gitsource.Options{})
	cl, err := r.Change(base, c2).Commits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.Commits) != 2 || cl.Commits[0].SHA != c1 || cl.Commits[1].SHA != c2 || cl.Truncated {
		t.Fatalf("commits = %+v", cl)
	}
	if cl.Commits[0].Message != "one\n\nbody text\n" || cl.Commits[0].Date.IsZero() || !cl.Commits[0].Date.Before(cl.Commits[1].Date) {
		t.Errorf("commit 1 = %+v", cl.Commits[0])
	}
	cm, err := r.Commit(context.Background(), c1)
	if err != nil || cm.Subject() != "one" || cm.Body() != "body text" || len(cm.Parents) != 1 || cm.Parents[0] != base {
		t.Errorf("Commit = %+v, %v", cm, err)
	}
}

func TestGitHubOnlyEvidenceIsUnavailable(t *testing.T) {
	g := gitsourcetest.New(t)
	g.Write(map[string]string{"a": "1\n"})
	c := g.Commit("c")
	src := open(t, g.Dir, gitsource.Options{}).Change(c, c)
	ctx := context.Background()
	var errs []error
	keep := func(_ any, err error) { errs = append(errs, err) }
	keep(src.Comments(ctx))
	keep(src.CodeownersErrors(ctx, c))
	keep(src.CheckRuns(ctx, c))
	keep(src.WorkflowRun(ctx, 1))
	keep(src.WorkflowRuns(ctx, "run-sweep.yml", checks.RunQuery{}))
	keep(src.Artifacts(ctx, 1))
	keep(src.ArtifactFiles(ctx, checks.Artifact{Name: "x"}, nil))
	keep(src.Permission(ctx, "someone"))
	keep(src.TeamMember(ctx, "org", "team", "someone"))
	keep(src.UpstreamPR(ctx, "o", "r", 1))
	keep(src.UpstreamPRFiles(ctx, "o", "r", 1))
	keep(src.Issue(ctx, "o", "r", 1))
	keep(src.FetchPage(ctx, "https://example.invalid/"))
	// The commits are there; whether GitHub verified their signatures is
	// not, and the list says so rather than let Verified read "unsigned".
	cl, err := src.Commits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	errs = append(errs, cl.SignaturesErr)
	for i, err := range errs {
		if !errors.Is(err, checks.ErrUnavailable) || errors.Is(err, checks.ErrNotFound) {
			t.Errorf("call %d: error %v does not wrap only ErrUnavailable", i, err)
		}
		if err != nil && !strings.HasSuffix(err.Error(), gitsource.Unavailable) {
			t.Errorf("call %d: %q does not say %q", i, err, gitsource.Unavailable)
		}
	}
}

// Many goroutines share the one cat-file process; the race detector and
// the answers check that requests never interleave.
func TestConcurrentReads(t *testing.T) {
	g := gitsourcetest.New(t)
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("d%d/f%d.txt", i%5, i)] = strings.Repeat(fmt.Sprintf("%d,", i), 100+i*37)
	}
	g.Write(files)
	c := g.Commit("many")
	r := open(t, g.Dir, gitsource.Options{})
	var wg sync.WaitGroup
	errc := make(chan error, 400)
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for round := 0; round < 3; round++ {
				for p, want := range files {
					got, err := r.ReadFile(context.Background(), c, p)
					if err != nil || string(got) != want {
						errc <- fmt.Errorf("worker %d: %s: %d bytes, %v", w, p, len(got), err)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

func TestClosedRepoRefuses(t *testing.T) {
	g := gitsourcetest.New(t)
	g.Write(map[string]string{"a": "1\n"})
	c := g.Commit("c")
	r, err := gitsource.Open(context.Background(), g.Dir, gitsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadFile(context.Background(), c, "a"); err == nil {
		t.Error("read after Close succeeded")
	}
	if _, err := gitsource.Open(context.Background(), t.TempDir(), gitsource.Options{}); err == nil {
		t.Error("Open of a directory without a repository succeeded")
	}
}

func TestGitHubName(t *testing.T) {
	g := gitsourcetest.New(t)
	g.Write(map[string]string{"a": "1\n"})
	g.Commit("c")
	r := open(t, g.Dir, gitsource.Options{})
	if o, n := r.GitHubName(context.Background()); o != "" || n != "" {
		t.Errorf("no origin: %s/%s", o, n)
	}
	g.Git("remote", "add", "origin", "x")
	for url, want := range map[string]string{
		"https://github.com/SemiAnalysisAI/InferenceX.git": "SemiAnalysisAI/InferenceX",
		"git@github.com:SemiAnalysisAI/InferenceX.git":     "SemiAnalysisAI/InferenceX",
		"ssh://git@github.com/o/r":                         "o/r",
		"https://gitlab.com/o/r.git":                       "/",
		"/srv/mirror.git":                                  "/",
	} {
		g.Git("remote", "set-url", "origin", url)
		if o, n := r.GitHubName(context.Background()); o+"/"+n != want {
			t.Errorf("%s: %s/%s, want %s", url, o, n, want)
		}
	}
}

// A blob missing from the clone (a partial mirror) costs its own file's
// patch, not the change's: the other files keep theirs.
func TestDiffWithAMissingBlob(t *testing.T) {
	g := gitsourcetest.New(t)
	g.Write(map[string]string{"edit.sh": "a\n", "big.csv": "x,y\n"})
	base := g.Commit("base")
	g.Write(map[string]string{"edit.sh": "a\nb\n", "big.csv": "x,y\n1,2\n"})
	head := g.Commit("head")
	blob := g.Git("rev-parse", head+":big.csv")
	if err := os.Remove(filepath.Join(g.Dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	r := open(t, g.Dir, gitsource.Options{})
	files, err := r.Change(base, head).Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]checks.ChangedFile{}
	for _, f := range files {
		got[f.Path] = f
	}
	if f := got["big.csv"]; !f.PatchMissing || f.Patch != "" {
		t.Errorf("big.csv: %+v, want no patch", f)
	}
	if f := got["edit.sh"]; f.PatchMissing || f.Additions != 1 || !strings.Contains(f.Patch, "+b") {
		t.Errorf("edit.sh: %+v, want its patch", f)
	}
}
