package ghsource

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/checks"
)

func TestListDirPastTheContentsCap(t *testing.T) {
	fx := fixture.New("verdict")
	tr := fx.Tree("t").Put("README.md", "r\n").Put("golden/sub/x.json", "{}\n")
	for i := range 1203 {
		tr.Put(fmt.Sprintf("golden/curve-%04d.json", i), "{}\n")
	}
	r := fx.Repo(ixFull)
	sha := r.Commit("c", "t")
	r.Branch("main", "c")
	const trees, contents = "GET /repos/{owner}/{repo}/git/trees/{sha}", "GET /repos/{owner}/{repo}/contents/{path...}"
	for _, tc := range []struct {
		name, ref string
		// trees and contents are the requests the two listings make.
		trees, contents int
	}{
		// At a commit SHA one recursive tree answers every listing.
		{"at a commit", sha, 1, 0},
		// At a branch the contents API lists, and past its cap the
		// trees API walks from the root (root, golden); each listing is
		// its own contents request.
		{"at a branch", "main", 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.New(t, fx)
			src := newSource(t, s, Options{})
			got, err := src.ListDir(context.Background(), tc.ref, "golden")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1204 {
				t.Fatalf("%d entries, want 1204 (1203 files and a directory)", len(got))
			}
			seen := map[string]checks.DirEntry{}
			for _, e := range got {
				seen[e.Path] = e
			}
			if e := seen["golden/curve-1202.json"]; e.Type != "file" || e.Name != "curve-1202.json" {
				t.Errorf("last file = %+v", e)
			}
			if e := seen["golden/sub"]; e.Type != "dir" {
				t.Errorf("sub-directory = %+v", e)
			}
			if es, err := src.ListDir(context.Background(), tc.ref, "golden/sub"); err != nil || len(es) != 1 {
				t.Errorf("short listing: %v, %v", es, err)
			}
			if _, err := src.ListDir(context.Background(), tc.ref, "absent"); !errors.Is(err, checks.ErrNotFound) {
				t.Errorf("absent directory: %v, want ErrNotFound", err)
			}
			if n := s.Calls(trees); n != tc.trees {
				t.Errorf("%d tree requests, want %d", n, tc.trees)
			}
			if n := s.Calls(contents); n != tc.contents {
				t.Errorf("%d contents requests, want %d", n, tc.contents)
			}
		})
	}
}

func manyFiles(n int) []*fixture.File {
	files := make([]*fixture.File, n)
	for i := range files {
		files[i] = &fixture.File{Filename: fmt.Sprintf("docs/f%04d.md", i), Status: "added", Patch: "@@ -0,0 +1 @@\n+x"}
	}
	return files
}

func TestFilesOverGitHubsListingCap(t *testing.T) {
	for _, n := range []int{3000, 3004} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			fx := fixture.New("verdict")
			fx.Tree("t").Put("a", "a\n")
			r := fx.Repo(ixFull)
			r.Commit("c", "t")
			r.Branch("main", "c")
			r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c"}, Files: manyFiles(n)})
			s := githubtest.New(t, fx)
			src := newSource(t, s, Options{})
			files, err := src.Files(context.Background())
			if pages := s.Calls("GET /repos/{owner}/{repo}/pulls/{number}/files"); pages != 30 {
				t.Errorf("%d pages read, want 30", pages)
			}
			if n == 3000 {
				if err != nil || len(files) != 3000 {
					t.Fatalf("3,000 files: %d, %v", len(files), err)
				}
				return
			}
			var capErr *FileCapError
			if !errors.As(err, &capErr) || !errors.Is(err, checks.ErrTooLarge) {
				t.Fatalf("err = %v, want a FileCapError", err)
			}
			if want := "GitHub lists at most 3,000 files of a PR; this PR has 3,004"; !strings.Contains(err.Error(), want) {
				t.Errorf("err = %q, want it to say %q", err, want)
			}
			// Memoized: asking again reads nothing.
			if _, err2 := src.Files(context.Background()); err2 == nil || s.Calls("GET /repos/{owner}/{repo}/pulls/{number}/files") != 30 {
				t.Errorf("second call: %v", err2)
			}
		})
	}
}

func TestCheckRunsListsTheLatestAttempt(t *testing.T) {
	fx := fixture.New("verdict")
	fx.Tree("t").Put("a", "a\n")
	r := fx.Repo(ixFull)
	sha := r.Commit("c", "t")
	r.Branch("main", "c")
	// Attempt 1 of the job failed; "re-run failed jobs" gave it a green run
	// in the same workflow run. Another workflow run has a job of the same name.
	r.AddCheckRuns("c",
		&fixture.CheckRun{ID: 10, Name: "bench c4", Conclusion: "failure", Run: 1, Job: 101},
		&fixture.CheckRun{ID: 11, Name: "bench c4", Conclusion: "success", Run: 1, Job: 102},
		&fixture.CheckRun{ID: 12, Name: "bench c4", Conclusion: "failure", Run: 2, Job: 201})
	s := githubtest.New(t, fx)
	runs, err := newSource(t, s, Options{}).CheckRuns(context.Background(), sha)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, cr := range runs {
		ids = append(ids, cr.ID)
	}
	if fmt.Sprint(ids) != "[11 12]" {
		t.Errorf("check runs %v, want [11 12]: the newest attempt of each job of each workflow run", ids)
	}
	all, _, err := s.Client().Checks.ListCheckRunsForRef(context.Background(), ixOwner, ixRepo, sha, nil)
	if err != nil || all.GetTotal() != 2 {
		t.Errorf("default filter: %v, %v", all.GetTotal(), err)
	}
}
