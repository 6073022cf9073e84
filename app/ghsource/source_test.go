package ghsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

const (
	ixOwner = "SemiAnalysisAI"
	ixRepo  = "InferenceX"
	ixFull  = ixOwner + "/" + ixRepo
)

func sample(t testing.TB) (*githubtest.Server, *fixture.Fixture) {
	t.Helper()
	fx, err := fixture.Load("../../testdata/fixtures/sample-e2e-agentic")
	if err != nil {
		t.Fatal(err)
	}
	return githubtest.New(t, fx), fx
}

// client is the production client stack (retrying transport) with tiny waits.
func client(t testing.TB, s *githubtest.Server, token string) *github.Client {
	t.Helper()
	c, err := ghclient.NewToken(s.URL, token, ghclient.Options{Retry: ghclient.RetryOptions{
		BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxWait: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newSource(t testing.TB, s *githubtest.Server, o Options) *Source {
	if o.Retry.BaseDelay == 0 {
		o.Retry = ghclient.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxWait: time.Second}
	}
	if o.PageClient == nil {
		o.PageClient = &http.Client{Transport: s.PageTransport()}
	}
	if o.TempDir == "" {
		o.TempDir = t.TempDir()
	}
	c, err := ghclient.NewToken(s.URL, "ghs_inst-token", ghclient.Options{Retry: o.Retry})
	if err != nil {
		t.Fatal(err)
	}
	return New(c, ixOwner, ixRepo, 3412, o)
}

func TestSourceReadsSample(t *testing.T) {
	s, fx := sample(t)
	src := newSource(t, s, Options{})
	ctx := context.Background()
	head, main := fx.SHA(ixFull, "head"), fx.SHA(ixFull, "main")

	files, err := src.Files(ctx)
	if err != nil || len(files) != 3 {
		t.Fatalf("files = %v, %v", files, err)
	}
	for _, f := range files {
		if f.Patch == "" || f.PatchMissing {
			t.Errorf("%s: patch missing", f.Path)
		}
	}
	commits, err := src.Commits(ctx)
	if err != nil || len(commits.Commits) != 1 || commits.Commits[0].SHA != head || commits.Truncated {
		t.Errorf("commits = %+v, %v", commits, err)
	}
	comments, err := src.Comments(ctx)
	if err != nil || len(comments) != 1 || comments[0].Body != "/use 30123456789\n" || comments[0].Association != "MEMBER" {
		t.Errorf("comments = %+v, %v", comments, err)
	}
	owners, err := src.ReadFile(ctx, main, ".github/CODEOWNERS")
	if err != nil || !strings.Contains(string(owners), "@amd-owner-a") {
		t.Errorf("CODEOWNERS: %v", err)
	}
	if _, err := src.ReadFile(ctx, main, "nope.txt"); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := src.ReadFile(ctx, main, "inferencex-e2e/docs"); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("directory as file: %v", err)
	}
	layout, err := repo.DetectLayout(ctx, src, main)
	if err != nil || layout.Name != "e2e" {
		t.Errorf("layout = %v, %v", layout.Name, err)
	}
	dir, err := src.ListDir(ctx, head, "inferencex-e2e/infx")
	if err != nil || len(dir) != 2 || dir[0].Name != "evals" || dir[0].Type != "dir" {
		t.Errorf("dir = %+v, %v", dir, err)
	}
	if errs, err := src.CodeownersErrors(ctx, main); err != nil || len(errs) != 0 {
		t.Errorf("codeowners errors = %v, %v", errs, err)
	}
	runs, err := src.CheckRuns(ctx, head)
	if err != nil || len(runs) != 10 || !strings.Contains(runs[2].DetailsURL, "/actions/runs/30123456789/job/") {
		t.Errorf("check runs = %d, %v", len(runs), err)
	}
	run, err := src.WorkflowRun(ctx, 30123456789)
	if err != nil || run.Path != ".github/workflows/run-sweep.yml" || run.HeadSHA != head || run.Conclusion != "success" {
		t.Errorf("run = %+v, %v", run, err)
	}
	list, err := src.WorkflowRuns(ctx, "run-sweep.yml", checks.RunQuery{Event: "pull_request", Branch: "amd/qwen35-agentic-v0521", Status: "completed"})
	if err != nil || len(list) != 2 || list[0].ID != 30123456789 {
		t.Errorf("runs = %+v, %v", list, err)
	}
	arts, err := src.Artifacts(ctx, 30123456789)
	if err != nil || len(arts) != 7 {
		t.Fatalf("artifacts = %v, %v", arts, err)
	}
	got, err := src.ArtifactFiles(ctx, arts[0], func(n string) bool { return n == "agg_eval_all.json" })
	if err != nil || len(got) != 1 || !strings.Contains(string(got[0].Data), `"em_strict": 0.955`) {
		t.Errorf("artifact files = %v, %v", got, err)
	}
	perm, err := src.Permission(ctx, "maintainer-a")
	if err != nil || !perm.IsAdmin() {
		t.Errorf("permission = %+v, %v", perm, err)
	}
	if _, err := src.Permission(ctx, "ghost"); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("unknown user: %v", err)
	}
	for login, want := range map[string]checks.Membership{"maintainer-a": checks.Member, "amd-owner-a": checks.NotMember} {
		if m, err := src.TeamMember(ctx, "SemiAnalysisAI", "core", login); m != want || err != nil {
			t.Errorf("team member %s = %v, %v", login, m, err)
		}
	}
	if m, err := src.TeamMember(ctx, "SemiAnalysisAI", "ghost-team", "maintainer-a"); m != checks.MembershipUnknown || err != nil {
		t.Errorf("unreadable team = %v, %v", m, err)
	}
	up, err := src.UpstreamPR(ctx, "sgl-project", "sglang", 21873)
	if err != nil || !up.Merged || up.MergedAt.IsZero() {
		t.Errorf("upstream = %+v, %v", up, err)
	}
	upFiles, err := src.UpstreamPRFiles(ctx, "sgl-project", "sglang", 21873)
	if err != nil || len(upFiles) != 1 || !strings.Contains(upFiles[0].Patch, "--speculative-num-steps 3") {
		t.Errorf("upstream files = %+v, %v", upFiles, err)
	}
	page, err := src.FetchPage(ctx, "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5")
	if err != nil || page.StatusCode != 200 || !strings.Contains(string(page.Body), "--tp 4") {
		t.Errorf("page = %d, %v", page.StatusCode, err)
	}
	if p, err := src.FetchPage(ctx, "https://docs.sglang.io/missing"); !errors.Is(err, checks.ErrNotFound) || p.StatusCode != 404 {
		t.Errorf("missing page: %d %v", p.StatusCode, err)
	}
	for _, bad := range []string{"file:///etc/passwd", "ftp://x/y", "/relative", "javascript:alert(1)"} {
		if _, err := src.FetchPage(ctx, bad); !errors.Is(err, checks.ErrMalformed) {
			t.Errorf("FetchPage(%q) = %v, want ErrMalformed", bad, err)
		}
	}
	if len(s.Writes()) != 0 {
		t.Errorf("the Source wrote to GitHub: %+v", s.Writes())
	}
}

func TestPaginationAndTruncatedCommits(t *testing.T) {
	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	r.Commit("base", "")
	r.Branch("main", "base")
	var commits []string
	for i := 0; i < 260; i++ {
		commits = append(commits, fmt.Sprintf("c%03d", i))
		r.Commit(commits[i], "")
	}
	var files []*fixture.File
	for i := 0; i < 230; i++ {
		files = append(files, &fixture.File{Filename: fmt.Sprintf("dir/f%03d.txt", i), Patch: "@@ -0,0 +1 @@\n+x"})
	}
	files = append(files, &fixture.File{Filename: "bin.png", Status: "added", NoPatch: true},
		&fixture.File{Filename: "moved.txt", PreviousFilename: "old.txt"})
	p := r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c259"}, Commits: commits, Files: files})
	for i := 0; i < 150; i++ {
		p.Comments = append(p.Comments, &fixture.Comment{User: "u", Body: fmt.Sprint(i)})
	}
	s := githubtest.New(t, fx)
	src := newSource(t, s, Options{})
	ctx := context.Background()
	got, err := src.Files(ctx)
	if err != nil || len(got) != 232 {
		t.Fatalf("files = %d, %v", len(got), err)
	}
	if !got[230].PatchMissing || got[231].PatchMissing {
		t.Errorf("PatchMissing: binary=%v rename=%v", got[230].PatchMissing, got[231].PatchMissing)
	}
	if n := s.Calls("GET /repos/{owner}/{repo}/pulls/{number}/files"); n != 3 {
		t.Errorf("file pages = %d, want 3", n)
	}
	// GitHub lists 250 of the 260 commits; the comparison of base and
	// head, paginated, gives them all.
	cl, err := src.Commits(ctx)
	if err != nil || len(cl.Commits) != 260 || cl.Truncated || cl.Commits[0].SHA != fixture.CommitSHA(ixFull, "c000") ||
		cl.Commits[259].SHA != fixture.CommitSHA(ixFull, "c259") {
		t.Errorf("commits = %d truncated=%v, %v", len(cl.Commits), cl.Truncated, err)
	}
	if n := s.Calls("GET /repos/{owner}/{repo}/compare/{basehead...}"); n != 3 {
		t.Errorf("comparison pages = %d, want 3", n)
	}
	cs, err := src.Comments(ctx)
	if err != nil || len(cs) != 150 || cs[149].Body != "149" {
		t.Errorf("comments = %d, %v", len(cs), err)
	}
}

// When the comparison cannot give the PR's commits, the capped list stands,
// marked truncated, so the checks say what they could not examine.
func TestTruncatedCommitsWithoutComparison(t *testing.T) {
	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	r.Commit("base", "")
	r.Branch("main", "base")
	var commits []string
	for i := 0; i < 255; i++ {
		commits = append(commits, fmt.Sprintf("c%03d", i))
		r.Commit(commits[i], "")
	}
	r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c254"}, Commits: commits, Files: []*fixture.File{{Filename: "a.txt", Patch: "@@ -0,0 +1 @@\n+x"}}})
	s := githubtest.New(t, fx)
	s.AddFault(githubtest.Fault{Method: "GET", Path: `/compare/`, Status: http.StatusNotFound})
	cl, err := newSource(t, s, Options{}).Commits(context.Background())
	if err != nil || len(cl.Commits) != 250 || !cl.Truncated {
		t.Errorf("commits = %d truncated=%v, %v", len(cl.Commits), cl.Truncated, err)
	}
}

func TestMemoizedAndDeduplicated(t *testing.T) {
	s, fx := sample(t)
	s.SetLatency(30 * time.Millisecond)
	src := newSource(t, s, Options{})
	ctx := context.Background()
	head := fx.SHA(ixFull, "head")
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := src.Files(ctx); err != nil {
				t.Error(err)
			}
			if _, err := src.ReadFile(ctx, head, "inferencex-e2e/configs/amd-master.yaml"); err != nil {
				t.Error(err)
			}
			if _, err := src.CheckRuns(ctx, head); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, ep := range []string{"GET /repos/{owner}/{repo}/pulls/{number}/files", "GET /repos/{owner}/{repo}/contents/{path...}",
		"GET /repos/{owner}/{repo}/commits/{ref}/check-runs"} {
		if n := s.Calls(ep); n != 1 {
			t.Errorf("%s called %d times, want 1", ep, n)
		}
	}
}

func TestCacheAcrossVerifications(t *testing.T) {
	s, fx := sample(t)
	cache := NewCache(64 << 20)
	ctx := context.Background()
	head := fx.SHA(ixFull, "head")
	wantAgg := func(n string) bool { return n == "agg_eval_all.json" }
	verify := func() {
		src := newSource(t, s, Options{Cache: cache})
		if _, err := src.ReadFile(ctx, head, "inferencex-e2e/configs/amd-master.yaml"); err != nil {
			t.Fatal(err)
		}
		if _, err := src.ReadFile(ctx, head, "does/not/exist"); !errors.Is(err, checks.ErrNotFound) {
			t.Fatal(err)
		}
		if _, err := src.ReadFile(ctx, "main", ".github/CODEOWNERS"); err != nil {
			t.Fatal(err)
		}
		arts, err := src.Artifacts(ctx, 30123456789)
		if err != nil {
			t.Fatal(err)
		}
		files, err := src.ArtifactFiles(ctx, arts[0], wantAgg)
		if err != nil || len(files) != 1 {
			t.Fatalf("artifact: %v %v", files, err)
		}
	}
	verify()
	s.ResetCounts()
	verify()
	if n := s.Calls("GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"); n != 0 {
		t.Errorf("second verification requested %d downloads, want 0", n)
	}
	if n := s.Calls("GET /_blob/{owner}/{repo}/artifacts/{file}"); n != 0 {
		t.Errorf("second verification downloaded %d archives, want 0", n)
	}
	// Only the branch-name read (mutable ref) goes to GitHub again.
	if n := s.Calls("GET /repos/{owner}/{repo}/contents/{path...}"); n != 1 {
		t.Errorf("contents calls = %d, want 1 (the read at a branch name)", n)
	}
	if st := cache.Stats(); st.Hits == 0 || st.Entries == 0 {
		t.Errorf("cache stats = %+v", st)
	}
	// An entry not extracted before needs the archive again.
	src := newSource(t, s, Options{Cache: cache})
	arts, _ := src.Artifacts(ctx, 30123456789)
	if _, err := src.ArtifactFiles(ctx, arts[0], func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if n := s.Calls("GET /_blob/{owner}/{repo}/artifacts/{file}"); n != 0 {
		t.Errorf("all entries were cached (the artifact has one file), downloads = %d", n)
	}
}

func TestCacheEvictsByBytes(t *testing.T) {
	c := NewCache(1000)
	for i := 0; i < 10; i++ {
		c.put(fmt.Sprint(i), make([]byte, 200), 200)
	}
	st := c.Stats()
	if st.Bytes > 1000 || st.Entries != 3 || st.Evicted != 7 {
		t.Errorf("stats = %+v", st)
	}
	if _, ok := c.get("9"); !ok {
		t.Error("newest entry evicted")
	}
	if _, ok := c.get("0"); ok {
		t.Error("oldest entry kept")
	}
	c.put("huge", make([]byte, 5000), 5000)
	if _, ok := c.get("huge"); ok {
		t.Error("value larger than the cache was stored")
	}
}

func TestFaultsAreRetried(t *testing.T) {
	s, fx := sample(t)
	src := newSource(t, s, Options{})
	ctx := context.Background()
	s.AddFault(githubtest.Fault{Path: `/pulls/3412/files$`, Status: 502, Times: 2})
	s.AddFault(githubtest.SecondaryLimitFault(`/check-runs$`, 1, 429, 0))
	s.AddFault(githubtest.Fault{Path: `/_blob/`, Status: 503, Times: 1})
	if _, err := src.Files(ctx); err != nil {
		t.Errorf("files: %v", err)
	}
	if _, err := src.CheckRuns(ctx, fx.SHA(ixFull, "head")); err != nil {
		t.Errorf("check runs: %v", err)
	}
	// The archive download (the redirect and the storage URL it names)
	// is retried like any GitHub read.
	arts, _ := src.Artifacts(ctx, 30123456789)
	if _, err := src.ArtifactFiles(ctx, arts[0], nil); err != nil {
		t.Errorf("blob failure: %v", err)
	}
	if err := src.Transient(); err != nil {
		t.Errorf("retried faults left a transient failure: %v", err)
	}
	s.AddFault(githubtest.Fault{Path: `/pulls/3412/commits$`, Status: 500})
	if _, err := src.Commits(ctx); !retry.IsTransient(err) || src.Transient() == nil {
		t.Errorf("persistent 500 must surface as a transient error, got %v", err)
	}
}

func TestExpiredArtifacts(t *testing.T) {
	s, _ := sample(t)
	src := newSource(t, s, Options{})
	ctx := context.Background()
	arts, err := src.Artifacts(ctx, 30100000001)
	if err != nil || len(arts) != 1 || !arts[0].Expired {
		t.Fatalf("artifacts = %v, %v", arts, err)
	}
	if _, err := src.ArtifactFiles(ctx, arts[0], nil); !errors.Is(err, checks.ErrExpired) {
		t.Errorf("expired flag: %v", err)
	}
	// A stale listing said "not expired" but GitHub answers 410.
	stale := arts[0]
	stale.Expired = false
	if _, err := src.ArtifactFiles(ctx, stale, nil); !errors.Is(err, checks.ErrExpired) {
		t.Errorf("410: %v", err)
	}
	if _, err := src.ArtifactFiles(ctx, checks.Artifact{ID: 999, Name: "ghost"}, nil); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("404: %v", err)
	}
	if n := s.Calls("GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"); n != 2 {
		t.Errorf("zip calls = %d, want 2 (the expired flag needs none)", n)
	}
}

func TestReadFileLimits(t *testing.T) {
	fx := fixture.New("verdict")
	big := strings.Repeat("0123456789abcdef", 1<<17) // 2 MiB: 403 too_large unless asked for raw
	fx.Tree("t").Put("big.txt", big).Put("small.txt", "ok\n")
	r := fx.Repo(ixFull)
	sha := r.Commit("c", "t")
	r.Branch("main", "c")
	s := githubtest.New(t, fx)
	ctx := context.Background()
	src := newSource(t, s, Options{MaxFileBytes: 4 << 20})
	data, err := src.ReadFile(ctx, sha, "big.txt")
	if err != nil || string(data) != big {
		t.Errorf("big file via raw: %d bytes, %v", len(data), err)
	}
	if n := s.URICallCounts()["GET /repos/"+ixFull+"/contents/big.txt?ref="+sha]; n != 2 {
		t.Errorf("%d requests for big.txt, want 2 (the default media type, then raw)", n)
	}
	small := newSource(t, s, Options{MaxFileBytes: 1 << 20})
	if _, err := small.ReadFile(ctx, sha, "big.txt"); !errors.Is(err, checks.ErrTooLarge) {
		t.Errorf("over cap: %v", err)
	}
	if d, err := small.ReadFile(ctx, sha, "small.txt"); err != nil || string(d) != "ok\n" {
		t.Errorf("small: %q %v", d, err)
	}
}

func TestUpstreamFallback(t *testing.T) {
	s, _ := sample(t)
	ctx := context.Background()
	// The installation cannot see upstream repositories.
	s.AddFault(githubtest.Fault{Path: `^/repos/sgl-project/`, Auth: "ghs_inst-token", Status: 404})
	src := newSource(t, s, Options{})
	if _, err := src.UpstreamPR(ctx, "sgl-project", "sglang", 21873); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("without fallback: %v", err)
	}
	src = newSource(t, s, Options{UpstreamClient: client(t, s, "")})
	pr, err := src.UpstreamPR(ctx, "sgl-project", "sglang", 21873)
	if err != nil || !pr.Merged {
		t.Errorf("with fallback: %+v, %v", pr, err)
	}
	if files, err := src.UpstreamPRFiles(ctx, "sgl-project", "sglang", 21873); err != nil || len(files) != 1 {
		t.Errorf("files with fallback: %v", err)
	}
	if _, err := src.UpstreamPR(ctx, "sgl-project", "sglang", 1); !errors.Is(err, checks.ErrNotFound) {
		t.Errorf("missing upstream PR: %v", err)
	}
	open, err := src.UpstreamPR(ctx, "vllm-project", "recipes", 512)
	if err != nil || open.Merged || open.State != "open" {
		t.Errorf("open upstream PR = %+v, %v", open, err)
	}
}

func TestPageCap(t *testing.T) {
	s, _ := sample(t)
	src := newSource(t, s, Options{MaxPageBytes: 100})
	if _, err := src.FetchPage(context.Background(), "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5"); !errors.Is(err, checks.ErrTooLarge) {
		t.Errorf("page over cap: %v", err)
	}
}

func TestTempFilesRemoved(t *testing.T) {
	s, _ := sample(t)
	dir := t.TempDir()
	src := newSource(t, s, Options{TempDir: dir})
	ctx := context.Background()
	arts, _ := src.Artifacts(ctx, 30123456789)
	for _, a := range arts {
		if _, err := src.ArtifactFiles(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	_ = os.Remove
}
