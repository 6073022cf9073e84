package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// verdict init reads the checklist and workflows of a local work tree or
// of a repository's default branch on GitHub, and what it writes passes
// verdict config check.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	put := func(p, s string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI("init", "--repo-dir", dir); code != 1 || !strings.Contains(stderr, "no checklist found") {
		t.Fatalf("no checklist: exit %d, %q", code, stderr)
	}
	put("docs/REVIEW.md", "- [ ] Tests added\n- [ ] CI is green\n- [ ] Docs updated\n")
	put(".github/workflows/ci.yml", "on: pull_request\njobs:\n  test: {}\n")
	code, stdout, stderr := runCLI("init", "--repo-dir", dir, "--checklist", "docs/REVIEW.md", "--write")
	if code != 0 || !strings.Contains(stdout, "wrote ") {
		t.Fatalf("init --write: exit %d, %q %q", code, stdout, stderr)
	}
	cfg := filepath.Join(dir, ".github", "verdict.yml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"checklist: docs/REVIEW.md", "verify: checks\n      names: [test]", "- item: Docs updated\n      verify: attested"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %q in\n%s", want, data)
		}
	}
	if code, stdout, _ := runCLI("config", "check", cfg); code != 0 {
		t.Errorf("config check of the starter: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI("init", "--repo-dir", dir, "--checklist", "docs/REVIEW.md", "--write"); code != 1 || !strings.Contains(stderr, "never overwrites") {
		t.Errorf("second --write: exit %d, %q", code, stderr)
	}

	fx, err := fixture.Load(fixtureDir("checklist-service"))
	if err != nil {
		t.Fatal(err)
	}
	fx.Tokens = map[string]string{"ghp_svc_owner": "svc-owner"}
	srv := githubtest.New(t, fx)
	code, stdout, stderr = runCLI("init", "--github-url", srv.BaseURL(), "--token", "ghp_svc_owner", "--repo", "acme/ledger", "--checklist", "docs/REVIEWING.md")
	if code != 0 {
		t.Fatalf("init --repo: exit %d, %q", code, stderr)
	}
	for _, want := range []string{"- item: Every commit is signed off (DCO)\n      verify: dco", "and linked from the description\n      verify: linked",
		"of this PR\n      verify: attested", "do-not-merge\n      verify: labels\n      absent: [do-not-merge]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in\n%s", want, stdout)
		}
	}
}
