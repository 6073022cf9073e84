package welcome_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/welcome"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestPostOnceOnBenchmarkPRs(t *testing.T) {
	fx, err := githubtest.LoadFixture(filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic"))
	if err != nil {
		t.Fatal(err)
	}
	srv := githubtest.New(t, fx)
	gh, err := ghclient.NewToken(srv.BaseURL(), srv.InstallationToken())
	if err != nil {
		t.Fatal(err)
	}
	p := welcome.Poster{BotLogins: []string{"verdict[bot]"}}
	for i, want := range []bool{true, false} {
		wrote, err := p.Post(context.Background(), gh, "SemiAnalysisAI", "InferenceX", 3412)
		if err != nil {
			t.Fatal(err)
		}
		if wrote != want {
			t.Fatalf("call %d wrote = %v, want %v", i, wrote, want)
		}
	}
	n := 0
	for _, c := range srv.Comments("SemiAnalysisAI/InferenceX", 3412) {
		if strings.HasPrefix(c.Body, render.WelcomeMarker) {
			n++
			if !strings.Contains(c.Body, "<summary>中文</summary>") || !strings.Contains(c.Body, "As a PR reviewer and CODEOWNER") {
				t.Errorf("welcome body incomplete:\n%s", c.Body)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d welcome comments, want 1", n)
	}
}

func TestTouchesBenchmarks(t *testing.T) {
	l := repo.E2ELayout()
	tests := []struct {
		path string
		want bool
	}{
		{"inferencex-e2e/configs/amd-master.yaml", true},
		{"inferencex-e2e/perf-changelog.yaml", true},
		{"inferencex-e2e/benchmarks/single_node/x.sh", true},
		{"inferencex-e2e/configs/runners.yaml", false},
		{"README.md", false},
		{"configs/amd-master.yaml", false},
	}
	for _, tt := range tests {
		if got := welcome.TouchesBenchmarks(l, []checks.ChangedFile{{Path: tt.path}}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.path, got, tt.want)
		}
	}
}
