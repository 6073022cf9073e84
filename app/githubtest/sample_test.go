package githubtest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

func TestSampleFixture(t *testing.T) {
	fx, err := fixture.Load("../../testdata/fixtures/sample-e2e-agentic")
	if err != nil {
		t.Fatal(err)
	}
	s := New(t, fx)
	c := s.Client()
	ctx := context.Background()
	pr, _, err := c.PullRequests.Get(ctx, "SemiAnalysisAI", "InferenceX", 3412)
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetChangedFiles() != 3 || pr.GetHead().GetSHA() != fx.SHA("SemiAnalysisAI/InferenceX", "head") {
		t.Errorf("pr: changed=%d head=%s", pr.GetChangedFiles(), pr.GetHead().GetSHA())
	}
	files, _, _ := c.PullRequests.ListFiles(ctx, "SemiAnalysisAI", "InferenceX", 3412, nil)
	var log string
	for _, f := range files {
		if strings.HasSuffix(f.GetFilename(), "perf-changelog.yaml") {
			log = f.GetPatch()
		}
	}
	if !strings.Contains(log, "+  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/3412") || strings.Contains(log, "\n-") {
		t.Errorf("changelog patch should be a pure append:\n%s", log)
	}
	if _, _, _, err := c.Repositories.GetContents(ctx, "SemiAnalysisAI", "InferenceX", "inferencex-e2e/pyproject.toml", &github.RepositoryContentGetOptions{Ref: "main"}); err != nil {
		t.Errorf("e2e marker: %v", err)
	}
	rv, _, err := c.PullRequests.GetReview(ctx, "SemiAnalysisAI", "InferenceX", 3412, 3900000001)
	if err != nil || !strings.HasPrefix(rv.GetBody(), "As a PR reviewer and CODEOWNER") || !strings.Contains(rv.GetBody(), "Signed: `amd-owner-a`") {
		t.Errorf("review: %v %q", err, rv.GetBody())
	}
	up, _, err := c.PullRequests.Get(ctx, "sgl-project", "sglang", 21873)
	if err != nil || !up.GetMerged() {
		t.Errorf("upstream: %v %v", up, err)
	}
	arts, _, _ := c.Actions.ListWorkflowRunArtifacts(ctx, "SemiAnalysisAI", "InferenceX", 30123456789, &github.ListOptions{PerPage: 100})
	if len(arts.Artifacts) != 7 {
		t.Errorf("artifacts = %d", len(arts.Artifacts))
	}
	hc := &http.Client{Transport: s.PageTransport()}
	resp, err := hc.Get("https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "sglang-rocm:v0.5.21") {
		t.Errorf("page body: %s", b)
	}
}
