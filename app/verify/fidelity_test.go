package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
)

// Scenarios where GitHub behaves as it documents and a forgiving fake would
// hide the difference.

func rowOf(t *testing.T, out verify.Outcome, n int) checks.Outcome {
	t.Helper()
	for _, r := range out.Verdict.Rows {
		if r.Number == n {
			return r
		}
	}
	t.Fatalf("no row %d", n)
	return checks.Outcome{}
}

func TestPROverTheFileListingCapGetsAFailClosedVerdictAtOnce(t *testing.T) {
	fx := loadSample(t)
	pr := fx.Repos[0].Pulls[0]
	for i := len(pr.Files); i < 3004; i++ {
		pr.Files = append(pr.Files, &fixture.File{Filename: fmt.Sprintf("inferencex-e2e/docs/generated/f%04d.md", i),
			Status: "added", Patch: "@@ -0,0 +1 @@\n+generated"})
	}
	srv := githubtest.New(t, fx)
	req := sampleRequest()
	req.Publish = true
	out, err := newTestVerifier().Verify(context.Background(), client(t, srv), req)
	if err != nil {
		t.Fatalf("a PR over the cap must get a verdict, not an error the queue retries: %v", err)
	}
	if out.Status != verify.Verified || out.Verdict.Overall != checks.VerdictRejected {
		t.Fatalf("outcome %s %s, want VERIFIED REJECTED", out.Status, out.Verdict.Overall)
	}
	const msg = "GitHub lists at most 3,000 files of a PR; this PR has 3,004"
	if r := rowOf(t, out, 0); r.Result.Status != checks.Fail || !strings.Contains(r.Result.Reason.EN, msg) {
		t.Errorf("Check 0 = %s %q, want FAIL saying %q", r.Result.Status, r.Result.Reason.EN, msg)
	}
	if !strings.Contains(out.Markdown, msg) {
		t.Error("the published verdict does not say why the file list could not be used")
	}
	if n := srv.Calls("GET /repos/{owner}/{repo}/pulls/{number}/files"); n != 30 {
		t.Errorf("the file list was read in %d pages, want 30 (once)", n)
	}
	if head := srv.Statuses(sampleRepo, "head"); len(head) == 0 || head[0].GetState() != "failure" {
		t.Errorf("statuses on H = %+v, want failure", head)
	}
}

func TestFailedAttemptAndGreenRerunPassCheck1(t *testing.T) {
	fx := loadSample(t)
	runs := fx.Repos[0].CheckRuns["head"]
	// The first attempt of one benchmark job failed; the re-run (same
	// workflow run, a new job and a newer check run) is the green one the
	// fixture lists. GitHub lists only the re-run by default.
	green := runs[2]
	failed := &fixture.CheckRun{ID: green.ID - 1000, Name: green.Name, Status: "completed", Conclusion: "failure",
		Run: green.Run, Job: green.Job + 500}
	fx.Repos[0].CheckRuns["head"] = append([]*fixture.CheckRun{failed}, runs...)
	srv := githubtest.New(t, fx)
	out, err := newTestVerifier().Verify(context.Background(), client(t, srv), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if r := rowOf(t, out, 1); r.Result.Status != checks.Pass {
		t.Errorf("Check 1 = %s %q, want PASS on the green re-run", r.Result.Status, r.Result.Reason.EN)
	}
	all, _, err := rest(t, srv).Checks.ListCheckRunsForRef(context.Background(), "SemiAnalysisAI", "InferenceX",
		fx.SHA(sampleRepo, "head"), nil)
	if err != nil || all.GetTotal() != len(runs) {
		t.Errorf("the fake lists %d runs by default, want %d (the failed attempt hidden): %v", all.GetTotal(), len(runs), err)
	}
}

func TestLargeMasterConfigIsReadRaw(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sample")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic"))); err != nil {
		t.Fatal(err)
	}
	// 2 MiB of comments after the configuration, on both sides of the PR.
	pad := "\n" + strings.Repeat("# padding to make the master config larger than the contents API inlines\n", 2<<20/72)
	for _, tree := range []string{"main", "head"} {
		p := filepath.Join(dir, "trees", tree, "inferencex-e2e", "configs", "amd-master.yaml")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(data, pad...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big, err := fixture.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := githubtest.New(t, big)
	out, err := newTestVerifier().Verify(context.Background(), client(t, srv), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	ref := githubtest.New(t, loadSample(t))
	want, err := newTestVerifier().Verify(context.Background(), client(t, ref), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range out.Verdict.Rows {
		if w := want.Verdict.Rows[i]; r.Result.Status != w.Result.Status {
			t.Errorf("Check %d = %s %q with a 2 MiB master config, %s %q without", r.Number, r.Result.Status, r.Result.Reason.EN,
				w.Result.Status, w.Result.Reason.EN)
		}
	}
	raw := 0
	for uri, n := range srv.URICallCounts() {
		if strings.Contains(uri, "/contents/inferencex-e2e/configs/amd-master.yaml?") {
			raw += n - 1 // one default-media-type request per ref, refused
		}
	}
	if raw == 0 {
		t.Error("the master config was never fetched with the raw media type")
	}
}
