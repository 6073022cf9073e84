package ghsource

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

const (
	contentsRoute = "GET /repos/{owner}/{repo}/contents/{path...}"
	zipRoute      = "GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"
	blobRoute     = "GET /_blob/{owner}/{repo}/artifacts/{file}"
	treeRoute     = "GET /repos/{owner}/{repo}/git/trees/{sha}"
)

// contentsAt counts the contents reads of path at ref.
func contentsAt(s *githubtest.Server, path, ref string) int {
	return s.URICallCounts()["GET /repos/"+ixFull+"/contents/"+path+"?ref="+ref]
}

func TestReadAheadAnswersThePinnedCommit(t *testing.T) {
	s, fx := sample(t)
	cache := NewCache(64 << 20)
	ctx := context.Background()
	main := fx.SHA(ixFull, "main")
	paths := []string{".github/CODEOWNERS", ".github/verdict.yml"}

	src := newSource(t, s, Options{Cache: cache})
	src.ReadAhead(ctx, "main", paths...)
	src.Pin("main", main)
	owners, err := src.ReadFile(ctx, main, paths[0])
	if err != nil || !strings.Contains(string(owners), "@amd-owner-a") {
		t.Fatalf("CODEOWNERS at the pinned commit: %v", err)
	}
	if _, err := src.ReadFile(ctx, main, paths[1]); !errors.Is(err, checks.ErrNotFound) {
		t.Fatalf("absent file at the pinned commit: %v", err)
	}
	for _, p := range paths {
		if n := contentsAt(s, p, "main"); n != 1 {
			t.Errorf("%s read %d times at the branch, want 1", p, n)
		}
		if n := contentsAt(s, p, main); n != 0 {
			t.Errorf("%s read %d times at the commit, want 0 (the read ahead answers)", p, n)
		}
	}
	// Unconfirmed, nothing is kept for another verification yet.
	if _, ok := cache.get(src.fileKey(main, paths[0])); ok {
		t.Error("a read ahead was cached before the commit's tree confirmed it")
	}
	// The commit's tree confirms both, the file and the absence.
	if _, err := src.ListDir(ctx, main, ".github"); err != nil {
		t.Fatal(err)
	}
	if err := src.Transient(); err != nil {
		t.Fatalf("a confirmed read ahead reported %v", err)
	}

	s.ResetCounts()
	next := newSource(t, s, Options{Cache: cache})
	next.ReadAhead(ctx, "main", paths...)
	next.Pin("main", main)
	for _, p := range paths {
		next.ReadFile(ctx, main, p)
	}
	if n := s.Calls(contentsRoute); n != 0 {
		t.Errorf("the next verification made %d contents reads, want 0 (confirmed reads are cached, so none is read ahead)", n)
	}
}

func TestReadAheadOfAMovedBranchIsTransient(t *testing.T) {
	s, fx := sample(t)
	cache := NewCache(64 << 20)
	ctx := context.Background()
	head := fx.SHA(ixFull, "head")
	const master = "inferencex-e2e/configs/amd-master.yaml"

	// The branch read names head, but the file read ahead is main's: the
	// branch moved between the two reads.
	src := newSource(t, s, Options{Cache: cache})
	src.ReadAhead(ctx, "main", master)
	src.Pin("main", head)
	got, err := src.ReadFile(ctx, head, master)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Transient(); err != nil {
		t.Fatalf("transient failure before the tree was read: %v", err)
	}
	if _, err := src.ListDir(ctx, head, "inferencex-e2e/configs"); err != nil {
		t.Fatal(err)
	}
	if err := src.Transient(); !retry.IsTransient(err) || !strings.Contains(err.Error(), "moved") {
		t.Fatalf("Transient() = %v, want the branch reported as moved", err)
	}

	// Nothing was kept as head's file: another verification reads it there.
	next := newSource(t, s, Options{Cache: cache})
	want, err := next.ReadFile(ctx, head, master)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) == string(got) {
		t.Fatal("the fixture's master config is the same at main and head; the test needs them to differ")
	}
	if n := contentsAt(s, master, head); n != 1 {
		t.Errorf("master config read %d times at head, want 1", n)
	}
	// A tree read before the read ahead answers confirms it at once.
	tree := newSource(t, s, Options{})
	if _, err := tree.ListDir(ctx, head, "inferencex-e2e/configs"); err != nil {
		t.Fatal(err)
	}
	tree.ReadAhead(ctx, "main", master)
	tree.Pin("main", head)
	tree.ReadFile(ctx, head, master)
	if err := tree.Transient(); !retry.IsTransient(err) {
		t.Errorf("Transient() = %v, want the branch reported as moved", err)
	}
}

func TestFailedReadAheadIsReadAgain(t *testing.T) {
	s, fx := sample(t)
	ctx := context.Background()
	main := fx.SHA(ixFull, "main")
	s.AddFault(githubtest.Fault{Path: `/contents/\.github/CODEOWNERS$`, Status: 500})
	src := newSource(t, s, Options{})
	src.ReadAhead(ctx, "main", ".github/CODEOWNERS")
	if _, err := flown(src, src.fileKey("main", ".github/CODEOWNERS"), func() (fileResult, error) {
		return fileResult{}, errors.New("the read ahead was not started")
	}); !retry.IsTransient(err) {
		t.Fatalf("read ahead = %v, want a transient failure", err)
	}
	s.ClearFaults()
	src.Pin("main", main)
	if _, err := src.ReadFile(ctx, main, ".github/CODEOWNERS"); err != nil {
		t.Fatalf("the read at the commit after a failed read ahead: %v", err)
	}
	if err := src.Transient(); err != nil {
		t.Errorf("a failed read ahead nobody used was reported: %v", err)
	}
	if n := contentsAt(s, ".github/CODEOWNERS", main); n != 1 {
		t.Errorf("read %d times at the commit, want 1", n)
	}
}

func TestPrefetchTreeFailureIsTheAskersOnly(t *testing.T) {
	s, fx := sample(t)
	ctx := context.Background()
	head := fx.SHA(ixFull, "head")
	s.AddFault(githubtest.Fault{Path: `/git/trees/`, Status: 502})
	src := newSource(t, s, Options{})
	src.PrefetchTree(ctx, head)
	src.PrefetchTree(ctx, "main") // not a commit: listings there do not use the tree
	if _, err := flown(src, src.treeKey(head), src.readTree(ctx, head)); !retry.IsTransient(err) {
		t.Fatalf("tree read = %v, want a transient failure", err)
	}
	if err := src.Transient(); err != nil {
		t.Errorf("a failed read ahead nobody asked for was reported: %v", err)
	}
	if _, err := src.ListDir(ctx, head, "inferencex-e2e"); !retry.IsTransient(err) || src.Transient() == nil {
		t.Errorf("the listing that needs the tree: %v, Transient() = %v", err, src.Transient())
	}
	if n := s.Calls(treeRoute); n == 0 || s.URICallCounts()["GET /repos/"+ixFull+"/git/trees/main?recursive=1"] != 0 {
		t.Errorf("tree reads: %v", s.URICallCounts())
	}
}

func TestPrefetchArtifactsOfTheRunAChecksReads(t *testing.T) {
	s, _ := sample(t)
	ctx := context.Background()
	src := newSource(t, s, Options{})
	arts, err := src.Artifacts(ctx, 30123456789)
	if err != nil || len(arts) < 3 {
		t.Fatalf("artifacts = %v, %v", arts, err)
	}
	json := func(n string) bool { return strings.HasSuffix(n, ".json") }
	picked := map[int64]func(string) bool{}
	var rest []checks.Artifact
	for _, a := range arts[1:] {
		if strings.HasPrefix(a.Name, "bmk_") {
			picked[a.ID] = json
			rest = append(rest, a)
		}
	}
	if len(rest) < 2 {
		t.Fatalf("the sample run has %d bmk_ artifacts besides the first, want 2 or more", len(rest))
	}
	s.AddFault(githubtest.Fault{Path: `/_blob/.*/` + strconv.FormatInt(rest[0].ID, 10) + `\.zip$`, Status: 503})
	src.PrefetchArtifacts(func(got []checks.Artifact) map[int64]func(string) bool {
		if len(got) != len(arts) {
			t.Errorf("pick saw %d artifacts, want the run's %d", len(got), len(arts))
		}
		return picked
	})
	// Reading the first artifact of the run reads the picked ones ahead.
	if _, err := src.ArtifactFiles(ctx, arts[0], nil); err != nil {
		t.Fatal(err)
	}
	for _, a := range rest[1:] {
		waitFor(t, func() bool { _, ok := src.cachedEntries(a.ID, json); return ok })
	}
	if err := src.Transient(); err != nil {
		t.Errorf("a failed read ahead nobody asked for was reported: %v", err)
	}
	zips := s.Calls(zipRoute)
	for _, a := range rest[1:] {
		if _, err := src.ArtifactFiles(ctx, a, json); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Calls(zipRoute); n != zips {
		t.Errorf("reads of artifacts read ahead made %d more downloads, want 0", n-zips)
	}
	// The one whose read ahead failed is read again when asked, and fails
	// as its own read does.
	if _, err := src.ArtifactFiles(ctx, rest[0], json); !retry.IsTransient(err) || src.Transient() == nil {
		t.Errorf("asked-for read after a failed read ahead: %v, Transient() = %v", err, src.Transient())
	}
	if n := s.Calls(zipRoute); n != len(rest)+2 {
		t.Errorf("download URLs asked %d times, want %d (one each, the failed one twice)", n, len(rest)+2)
	}
}

// waitFor polls cond until it holds, failing the test after 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
	}
}
