package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

const samplePAT = "ghp_maintainer_b_token"

func tokenSample(t *testing.T) *githubtest.Server {
	t.Helper()
	fx, err := fixture.Load(fixtureDir("sample-e2e-agentic"))
	if err != nil {
		t.Fatal(err)
	}
	fx.Tokens = map[string]string{samplePAT: "maintainer-b"}
	return githubtest.New(t, fx)
}

func checkAgainst(srv *githubtest.Server, token string, extra ...string) (int, string, string) {
	var out, errb bytes.Buffer
	args := append([]string{"--github-url", srv.BaseURL(), "--token", token, "--repo", "SemiAnalysisAI/InferenceX",
		"--pr", "3412", "--date", "2026-11-20", "--publish"}, extra...)
	code := cmdCheck(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func verdictComments(srv *githubtest.Server) []fixture.Comment {
	var out []fixture.Comment
	for _, c := range srv.Comments("SemiAnalysisAI/InferenceX", 3412) {
		if strings.HasPrefix(c.Body, "<!-- codeowner-signoff-verify signoff=") {
			out = append(out, c)
		}
	}
	return out
}

func TestPublishWithAPersonalToken(t *testing.T) {
	srv := tokenSample(t)
	head := srv.Fixture().SHA("SemiAnalysisAI/InferenceX", "head")
	before := len(srv.CheckRuns("SemiAnalysisAI/InferenceX", head))
	code, _, stderr := checkAgainst(srv, samplePAT)
	if code == exitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; !strings.Contains(stderr, "only GitHub Apps can create check runs") || lines != 1 {
		t.Errorf("stderr = %q, want one line saying why no check run is created", stderr)
	}
	cs := verdictComments(srv)
	if len(cs) != 1 || cs[0].User != "maintainer-b" {
		t.Fatalf("verdict comments = %+v, want one by the token's user", cs)
	}
	sts := srv.Statuses("SemiAnalysisAI/InferenceX", head)
	if len(sts) != 1 || sts[0].GetState() == "pending" || sts[0].GetTargetURL() == "" {
		t.Errorf("statuses = %+v, want one final status and no pending", sts)
	}
	if n := len(srv.CheckRuns("SemiAnalysisAI/InferenceX", head)); n != before {
		t.Errorf("%d check runs, want the fixture's %d", n, before)
	}
	for _, w := range srv.Writes() {
		if strings.Contains(w.Path, "/check-runs") {
			t.Errorf("tried to write a check run with a personal token: %s %s", w.Method, w.Path)
		}
	}
	// Running again recognises the comment by the token's login.
	if code, _, stderr := checkAgainst(srv, samplePAT); code == exitError {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if cs := verdictComments(srv); len(cs) != 1 {
		t.Errorf("%d verdict comments after a second run, want 1", len(cs))
	}
}

func TestPublishWithAnInstallationToken(t *testing.T) {
	srv := tokenSample(t)
	head := srv.Fixture().SHA("SemiAnalysisAI/InferenceX", "head")
	before := len(srv.CheckRuns("SemiAnalysisAI/InferenceX", head))
	if code, _, stderr := checkAgainst(srv, srv.InstallationToken()); code != exitError || !strings.Contains(stderr, "VERDICT_APP_SLUG") {
		t.Fatalf("without the App's slug: exit %d %q, want an error naming VERDICT_APP_SLUG", code, stderr)
	}
	if w := srv.Writes(); len(w) != 0 {
		t.Fatalf("wrote %d times before refusing", len(w))
	}
	if code, _, stderr := checkAgainst(srv, srv.InstallationToken(), "--app-slug", "verdict"); code == exitError || stderr != "" {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	if cs := verdictComments(srv); len(cs) != 1 || cs[0].User != "verdict[bot]" {
		t.Errorf("verdict comments = %+v", cs)
	}
	if n := len(srv.CheckRuns("SemiAnalysisAI/InferenceX", head)); n != before+1 {
		t.Errorf("%d check runs, want %d", n, before+1)
	}
}

func TestPublishFailureLeavesNothingPending(t *testing.T) {
	srv := tokenSample(t)
	srv.AddFault(githubtest.Fault{Method: "POST", Path: `/issues/3412/comments$`, Status: 422})
	code, _, stderr := checkAgainst(srv, samplePAT)
	if code != exitError || !strings.Contains(stderr, "publishing verdict") {
		t.Fatalf("exit %d %q, want a publishing error", code, stderr)
	}
	for _, w := range srv.Writes() {
		if !strings.HasSuffix(w.Path, "/issues/3412/comments") {
			t.Errorf("wrote %s %s although the verdict comment could not be posted", w.Method, w.Path)
		}
	}
}
