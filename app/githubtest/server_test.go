package githubtest

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

const repo = "acme/bench"

func codeFixture(t *testing.T) *fixture.Fixture {
	t.Helper()
	fx := fixture.New("verdict")
	fx.Tree("base").Put("README.md", "hello\n").Put("configs/a.yaml", "a: 1\nb: 2\nc: 3\n").Put("docs/x.md", "x\n")
	fx.Tree("head").From("base").Put("configs/a.yaml", "a: 1\nb: 20\nc: 3\n").Put("new.txt", "new\n")
	fx.Trees["head"].Delete = []string{"docs"}
	r := fx.Repo(repo)
	r.Commit("base", "base")
	r.Commit("head", "head")
	r.Branch("main", "base")
	r.Collaborator("alice", "admin", "admin")
	pr := r.Pull(&fixture.Pull{Number: 7, Title: "Tune", Head: fixture.Ref{Ref: "tune", Commit: "head"}, Labels: []string{"sweep-enabled"}})
	pr.Comments = []*fixture.Comment{{User: "bob", Association: "MEMBER", Body: "/use 123"}}
	r.AddCheckRuns("head", &fixture.CheckRun{Name: "agentic / p1 | x", Run: 55, Job: 66})
	run := r.Run(&fixture.WorkflowRun{ID: 55, HeadCommit: "head", HeadBranch: "tune"})
	run.Artifacts = []*fixture.Artifact{
		{ID: 900, Name: "eval_results_all", Files: map[string]string{"agg_eval_all.json": `[{"task":"gsm8k"}]`}},
		{ID: 901, Name: "old", Expired: true, Files: map[string]string{"x": "y"}},
	}
	fx.Team("acme", "core", "alice")
	fx.Page("https://recipes.example/qwen", 200, "<h1>Qwen</h1>")
	return fx
}

func TestGeneratedFilesAndContents(t *testing.T) {
	s := New(t, codeFixture(t))
	c := s.Client()
	ctx := context.Background()
	files, _, err := c.PullRequests.ListFiles(ctx, "acme", "bench", 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.GetStatus()+" "+f.GetFilename())
	}
	if want := "modified configs/a.yaml,removed docs/x.md,added new.txt"; strings.Join(got, ",") != want {
		t.Fatalf("files = %v, want %s", got, want)
	}
	if want := "@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 20\n c: 3"; files[0].GetPatch() != want {
		t.Errorf("patch = %q, want %q", files[0].GetPatch(), want)
	}
	pr, _, err := c.PullRequests.Get(ctx, "acme", "bench", 7)
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetChangedFiles() != 3 || pr.GetHead().GetSHA() != fixture.CommitSHA(repo, "head") || pr.GetBase().GetRef() != "main" {
		t.Errorf("pr = %+v", pr)
	}
	fc, _, _, err := c.Repositories.GetContents(ctx, "acme", "bench", "configs/a.yaml", &github.RepositoryContentGetOptions{Ref: pr.GetHead().GetSHA()})
	if err != nil {
		t.Fatal(err)
	}
	if txt, _ := fc.GetContent(); txt != "a: 1\nb: 20\nc: 3\n" {
		t.Errorf("content = %q", txt)
	}
	_, dir, _, err := c.Repositories.GetContents(ctx, "acme", "bench", "configs", &github.RepositoryContentGetOptions{Ref: "main"})
	if err != nil || len(dir) != 1 || dir[0].GetName() != "a.yaml" {
		t.Errorf("dir = %v, %v", dir, err)
	}
	_, _, resp, err := c.Repositories.GetContents(ctx, "acme", "bench", "docs/x.md", &github.RepositoryContentGetOptions{Ref: "head"})
	if resp == nil || resp.StatusCode != 404 {
		t.Errorf("deleted file: %v", err)
	}
	req, _ := c.NewRequest("GET", "repos/acme/bench/contents/new.txt?ref=head", nil)
	req.Header.Set("Accept", "application/vnd.github.raw")
	var buf bytes.Buffer
	if _, err := c.Do(ctx, req, &buf); err != nil || buf.String() != "new\n" {
		t.Errorf("raw = %q, %v", buf.String(), err)
	}
	perm, _, err := c.Repositories.GetPermissionLevel(ctx, "acme", "bench", "alice")
	if err != nil || perm.GetPermission() != "admin" {
		t.Errorf("perm = %v %v", perm, err)
	}
	if _, resp, _ := c.Repositories.GetPermissionLevel(ctx, "acme", "bench", "nobody"); resp.StatusCode != 404 {
		t.Errorf("unknown user: %d", resp.StatusCode)
	}
	m, _, err := c.Teams.GetTeamMembershipBySlug(ctx, "acme", "core", "ALICE")
	if err != nil || m.GetState() != "active" {
		t.Errorf("membership = %v %v", m, err)
	}
}

func TestPaginationAndCommitCap(t *testing.T) {
	fx := fixture.New("verdict")
	r := fx.Repo(repo)
	r.Commit("b", "")
	r.Branch("main", "b")
	var commits []string
	for i := 0; i < 260; i++ {
		commits = append(commits, fmt.Sprintf("c%d", i))
		r.Commit(fmt.Sprintf("c%d", i), "")
	}
	var files []*fixture.File
	for i := 0; i < 75; i++ {
		files = append(files, &fixture.File{Filename: fmt.Sprintf("f%02d", i), Patch: "@@ -0,0 +1 @@\n+x"})
	}
	r.Pull(&fixture.Pull{Number: 1, Head: fixture.Ref{Commit: "c259"}, Commits: commits, Files: files})
	s := New(t, fx)
	c := s.Client()
	ctx := context.Background()
	opt := &github.ListOptions{PerPage: 30}
	var all []*github.CommitFile
	pages := 0
	for {
		fs, resp, err := c.PullRequests.ListFiles(ctx, "acme", "bench", 1, opt)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, fs...)
		if pages == 1 && resp.LastPage != 3 {
			t.Errorf("LastPage = %d, want 3", resp.LastPage)
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if pages != 3 || len(all) != 75 || all[74].GetFilename() != "f74" || all[0].GetAdditions() != 1 {
		t.Errorf("pages=%d files=%d", pages, len(all))
	}
	n := 0
	copt := &github.ListOptions{PerPage: 100}
	for {
		cs, resp, err := c.PullRequests.ListCommits(ctx, "acme", "bench", 1, copt)
		if err != nil {
			t.Fatal(err)
		}
		n += len(cs)
		if resp.NextPage == 0 {
			break
		}
		copt.Page = resp.NextPage
	}
	if n != 250 {
		t.Errorf("commits = %d, want GitHub's cap 250", n)
	}
	if got := s.Calls("GET /repos/{owner}/{repo}/pulls/{number}/files"); got != 3 {
		t.Errorf("file calls = %d", got)
	}
}

func TestMutationsAreVisible(t *testing.T) {
	s := New(t, codeFixture(t))
	c := s.Client()
	ctx := context.Background()
	created, _, err := c.Issues.CreateComment(ctx, "acme", "bench", 7, &github.IssueComment{Body: github.String("verdict")})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetUser().GetLogin() != "verdict[bot]" {
		t.Errorf("author = %s", created.GetUser().GetLogin())
	}
	if _, _, err := c.Issues.EditComment(ctx, "acme", "bench", created.GetID(), &github.IssueComment{Body: github.String("v2")}); err != nil {
		t.Fatal(err)
	}
	list, _, _ := c.Issues.ListComments(ctx, "acme", "bench", 7, nil)
	if len(list) != 2 || list[1].GetBody() != "v2" {
		t.Fatalf("comments = %v", list)
	}
	user := list[0].GetID()
	r1, resp, err := c.Reactions.CreateIssueCommentReaction(ctx, "acme", "bench", user, "+1")
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("reaction: %v %v", resp, err)
	}
	if _, resp, _ := c.Reactions.CreateIssueCommentReaction(ctx, "acme", "bench", user, "+1"); resp.StatusCode != 200 {
		t.Errorf("duplicate reaction status = %d, want 200", resp.StatusCode)
	}
	if got := s.Comments(repo, 7)[0].Reactions; len(got) != 1 || got[0].Content != "+1" {
		t.Errorf("reactions = %v", got)
	}
	if _, err := c.Reactions.DeleteIssueCommentReaction(ctx, "acme", "bench", user, r1.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Issues.DeleteComment(ctx, "acme", "bench", created.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, resp, _ := c.Issues.EditComment(ctx, "acme", "bench", created.GetID(), &github.IssueComment{Body: github.String("x")}); resp.StatusCode != 404 {
		t.Errorf("PATCH after delete = %d", resp.StatusCode)
	}
	head := fixture.CommitSHA(repo, "head")
	if _, _, err := c.Repositories.CreateStatus(ctx, "acme", "bench", head, &github.RepoStatus{State: github.String("pending"), Context: github.String("ctx")}); err != nil {
		t.Fatal(err)
	}
	if st := s.Statuses(repo, "head"); len(st) != 1 || st[0].GetState() != "pending" {
		t.Errorf("statuses = %v", st)
	}
	cr, _, err := c.Checks.CreateCheckRun(ctx, "acme", "bench", github.CreateCheckRunOptions{Name: "verdict", HeadSHA: head, Status: github.String("in_progress")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Checks.UpdateCheckRun(ctx, "acme", "bench", cr.GetID(), github.UpdateCheckRunOptions{Name: "verdict", Conclusion: github.String("success")}); err != nil {
		t.Fatal(err)
	}
	runs, _, _ := c.Checks.ListCheckRunsForRef(ctx, "acme", "bench", head, nil)
	if runs.GetTotal() != 2 || runs.CheckRuns[1].GetConclusion() != "success" || runs.CheckRuns[1].GetApp().GetSlug() != "verdict" {
		t.Errorf("check runs = %v", runs)
	}
	if !strings.Contains(runs.CheckRuns[0].GetDetailsURL(), "/actions/runs/55/job/66") {
		t.Errorf("details url = %s", runs.CheckRuns[0].GetDetailsURL())
	}
	w := s.Writes()
	if len(w) != 10 || w[0].Method != "POST" || w[0].Path != "/repos/acme/bench/issues/7/comments" || !strings.Contains(string(w[0].Body), "verdict") {
		t.Errorf("writes = %+v", w)
	}
}

func TestArtifactsAndRuns(t *testing.T) {
	s := New(t, codeFixture(t))
	c := s.Client()
	ctx := context.Background()
	runs, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "acme", "bench", "run-sweep.yml",
		&github.ListWorkflowRunsOptions{Event: "pull_request", Branch: "tune", Status: "completed"})
	if err != nil || runs.GetTotalCount() != 1 || runs.WorkflowRuns[0].GetHeadSHA() != fixture.CommitSHA(repo, "head") {
		t.Fatalf("runs = %v %v", runs, err)
	}
	arts, _, err := c.Actions.ListWorkflowRunArtifacts(ctx, "acme", "bench", 55, nil)
	if err != nil || len(arts.Artifacts) != 2 || arts.Artifacts[0].GetSizeInBytes() == 0 {
		t.Fatalf("artifacts = %v %v", arts, err)
	}
	u, _, err := c.Actions.DownloadArtifact(ctx, "acme", "bench", 900, 0)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "agg_eval_all.json" {
		t.Fatalf("zip: %v", err)
	}
	_, gone, _ := c.Actions.DownloadArtifact(ctx, "acme", "bench", 901, 0)
	if gone == nil || gone.StatusCode != http.StatusGone {
		t.Errorf("expired artifact: %v", gone)
	}
}

func TestFaultsAndLatency(t *testing.T) {
	s := New(t, codeFixture(t))
	c := s.Client()
	ctx := context.Background()
	s.AddFault(Fault{Path: `/pulls/7$`, Status: 502, Times: 2})
	for i := 0; i < 2; i++ {
		if _, resp, _ := c.PullRequests.Get(ctx, "acme", "bench", 7); resp.StatusCode != 502 {
			t.Fatalf("attempt %d: status %d", i, resp.StatusCode)
		}
	}
	if _, _, err := c.PullRequests.Get(ctx, "acme", "bench", 7); err != nil {
		t.Fatalf("after fault: %v", err)
	}
	s.AddFault(RateLimitFault(`/pulls/7/files`, 1, time.Minute))
	_, _, err := c.PullRequests.ListFiles(ctx, "acme", "bench", 7, nil)
	var rle *github.RateLimitError
	if !errors.As(err, &rle) {
		t.Errorf("want RateLimitError, got %v", err)
	}
	// go-github refuses further calls until the reset it saw; use a new client.
	c = s.Client()
	s.AddFault(SecondaryLimitFault(`/pulls/7/commits`, 1, 429, 3))
	_, resp, _ := c.PullRequests.ListCommits(ctx, "acme", "bench", 7, nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("secondary limit: %d %v", resp.StatusCode, resp.Header)
	}
	s.SetLatency(30 * time.Millisecond)
	start := time.Now()
	c.Repositories.Get(ctx, "acme", "bench")
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("latency not applied: %v", d)
	}
	if got := s.Calls("GET /repos/{owner}/{repo}/pulls/{number}"); got != 3 {
		t.Errorf("calls = %d, want 3 (faulted ones count)", got)
	}
}

func TestPageTransport(t *testing.T) {
	s := New(t, codeFixture(t))
	hc := &http.Client{Transport: s.PageTransport()}
	resp, err := hc.Get("https://recipes.example/qwen")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "<h1>Qwen</h1>" {
		t.Errorf("page = %d %q", resp.StatusCode, b)
	}
	resp, _ = hc.Get("https://recipes.example/none")
	if resp.StatusCode != 404 || s.PageCalls("https://recipes.example/qwen") != 1 {
		t.Errorf("missing page = %d", resp.StatusCode)
	}
}

func TestGHESBase(t *testing.T) {
	s := New(t, codeFixture(t))
	c, err := github.NewClient(nil).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := c.Repositories.Get(context.Background(), "acme", "bench")
	if err != nil || r.GetDefaultBranch() != "main" {
		t.Fatalf("repo via /api/v3: %v %v", r, err)
	}
}

func TestFixtureValidation(t *testing.T) {
	tests := []struct {
		name  string
		build func(*fixture.Fixture)
		want  string
	}{
		{"missing tree", func(f *fixture.Fixture) { f.Repo(repo).Commit("x", "nope"); f.Repo(repo).Branch("main", "x") }, `tree "nope" does not exist`},
		{"cycle", func(f *fixture.Fixture) { f.Tree("a").From("b"); f.Tree("b").From("a") }, "cycle"},
		{"bad branch", func(f *fixture.Fixture) { f.Repo(repo).Branch("main", "ghost") }, `branch main: commit "ghost"`},
		{"no default branch", func(f *fixture.Fixture) { f.Repo(repo).Commit("x", "") }, `default branch "main"`},
		{"pull without head", func(f *fixture.Fixture) {
			r := f.Repo(repo)
			r.Commit("x", "")
			r.Branch("main", "x")
			r.Pull(&fixture.Pull{Number: 1})
		}, "pull #1: head.commit"},
		{"bad path", func(f *fixture.Fixture) { f.Tree("a").Put("../etc/passwd", "x") }, "bad file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fixture.New("v")
			tt.build(f)
			_, err := Start(f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

// TestStalledBodyArrivesHalfSentWhileObserved: a stalled body reaches the
// client half sent whether or not an observer (the contract tests) copies
// the exchange; a copy that swallowed flushes would turn the stall into a
// slow header, which a client handles differently.
func TestStalledBodyArrivesHalfSentWhileObserved(t *testing.T) {
	prev := currentObserver()
	t.Cleanup(func() { Observe(prev) })
	for _, observed := range []bool{false, true} {
		Observe(nil)
		if observed {
			Observe(func(ex Exchange) {
				if prev != nil {
					prev(ex)
				}
			})
		}
		s := New(t, codeFixture(t))
		s.AddFault(Fault{Path: `/pulls/7/reviews$`, StallBody: 3 * time.Second, Times: 1})
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/repos/acme/bench/pulls/7/reviews", nil)
		req.Header.Set("Authorization", "token "+s.InstallationToken())
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1)
		_, err = io.ReadFull(resp.Body, buf)
		resp.Body.Close()
		if d := time.Since(start); err != nil || d > 2*time.Second {
			t.Errorf("observed=%v: first body byte after %v (%v), want it before the stall ends", observed, d, err)
		}
	}
}
