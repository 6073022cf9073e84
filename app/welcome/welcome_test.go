package welcome_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/welcome"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

func TestPostOnceOnBenchmarkPRs(t *testing.T) {
	fx, err := fixture.Load(filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic"))
	if err != nil {
		t.Fatal(err)
	}
	srv := githubtest.New(t, fx)
	gh, err := ghclient.NewToken(srv.BaseURL(), srv.InstallationToken())
	if err != nil {
		t.Fatal(err)
	}
	p := welcome.Poster{BotLogins: []string{"verdict[bot]"}, Presets: []*checks.Preset{inferencex.Preset, checklist.Preset}}
	for i, want := range []bool{true, false} {
		wrote, err := p.Post(context.Background(), ghapi.New(gh, ghsource.Options{}), "SemiAnalysisAI", "InferenceX", 3412)
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

// TestPinnedLayoutIsHonoured: a repository that pins its layout in
// .github/verdict.yml gets the reminder for the paths of that layout, even
// when detection on the default branch would pick the other one.
func TestPinnedLayoutIsHonoured(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		want         bool
	}{
		{"detected legacy layout", "", false},
		{"layout pinned to e2e", "layout: e2e\n", true},
		{"e2e with its configs moved", "layout: e2e\npaths:\n  configs_dir: inferencex-e2e/cfg\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := fixture.New("verdict")
			base := fx.Tree("base").Put("README.md", "bench\n")
			if tt.config != "" {
				base.Put(".github/verdict.yml", tt.config)
			}
			fx.Tree("head").From("base").Put("inferencex-e2e/configs/amd-master.yaml", "a: 1\n")
			r := fx.Repo("acme/bench")
			r.Commit("base", "base")
			r.Commit("head", "head")
			r.Branch("main", "base")
			r.Pull(&fixture.Pull{Number: 4, User: "contrib", Head: fixture.Ref{Ref: "feat", Commit: "head"}})
			srv := githubtest.New(t, fx)
			wrote, err := welcome.Poster{BotLogins: []string{"verdict[bot]"}, Presets: []*checks.Preset{inferencex.Preset, checklist.Preset}}.Post(context.Background(),
				ghapi.New(srv.Client(), ghsource.Options{}), "acme", "bench", 4)
			if err != nil || wrote != tt.want {
				t.Fatalf("Post = %v, %v; want %v", wrote, err, tt.want)
			}
		})
	}
}
