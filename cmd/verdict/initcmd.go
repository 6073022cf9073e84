package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
)

// initMaxBytes bounds each file init reads (checklist, workflows).
const initMaxBytes = 1 << 20

// repoFiles reads a repository's files: a local work tree or a GitHub
// repository's default branch.
type repoFiles interface {
	read(ctx context.Context, p string) ([]byte, error) // ErrNotFound when absent
	list(ctx context.Context, dir string) ([]string, error)
}

// cmdInit is verdict init: a starting .github/verdict.yml for the
// checklist preset, read from the repository's checklist.
func cmdInit(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dir := fs.String("repo-dir", ".", "local checkout to read the checklist and workflows from (its work tree)")
	repoFlag := fs.String("repo", "", "read OWNER/NAME's default branch on GitHub instead of a local checkout")
	githubURL := fs.String("github-url", envOr("VERDICT_GITHUB_URL", "https://api.github.com/"), "GitHub REST API base URL (with --repo)")
	token := fs.String("token", "", "GitHub token (default $GITHUB_TOKEN; with --repo)")
	checklistPath := fs.String("checklist", "", "the checklist file (default: the pull request template, where GitHub looks)")
	phrase := fs.String("phrase", "", "the sign-off phrase to write (default: keep Verdict's)")
	write := fs.Bool("write", false, "write "+repoconfig.Path+" under --repo-dir instead of printing it (never over an existing file)")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: verdict init [--repo-dir DIR | --repo OWNER/NAME] [--checklist PATH] [--phrase TEXT] [--write]\n\n"+
			"Reads the repository's review checklist (its checkbox items) and prints a starting\n"+
			"%s for the checklist preset: each item bound to the verifier it most likely\n"+
			"means, or to attested, with a comment per item. Review it, then run verdict config check.\n\nFlags:\n", repoconfig.Path)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "verdict init: "+format+"\n", a...)
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "verdict init: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *write && *repoFlag != "" {
		fmt.Fprintln(env.Stderr, "verdict init: --write writes into --repo-dir; with --repo, redirect the output")
		return 2
	}
	var files repoFiles = localFiles{dir: *dir}
	if *repoFlag != "" {
		owner, name, ok := strings.Cut(*repoFlag, "/")
		if !ok || owner == "" || name == "" {
			fmt.Fprintf(env.Stderr, "verdict init: --repo must be OWNER/NAME, not %q\n", *repoFlag)
			return 2
		}
		tok := *token
		if tok == "" {
			tok = env.Getenv("GITHUB_TOKEN")
		}
		gf, err := newGitHubFiles(ctx, *githubURL, tok, owner, name)
		if err != nil {
			return fail("%v", oneLine(err))
		}
		files = gf
	}
	paths := checklist.TemplatePaths
	if *checklistPath != "" {
		paths = []string{*checklistPath}
	}
	var s checklist.Starter
	for _, p := range paths {
		data, err := files.read(ctx, p)
		if errors.Is(err, checks.ErrNotFound) {
			continue
		}
		if err != nil {
			return fail("reading %s: %v", p, oneLine(err))
		}
		s.Checklist, s.Template = p, data
		break
	}
	if s.Checklist == "" {
		return fail("no checklist found (looked for %s); name it with --checklist", strings.Join(paths, ", "))
	}
	s.Workflows = map[string][]byte{}
	names, err := files.list(ctx, ".github/workflows")
	if err != nil && !errors.Is(err, checks.ErrNotFound) {
		return fail("listing .github/workflows: %v", oneLine(err))
	}
	for _, n := range names {
		if ext := path.Ext(n); ext != ".yml" && ext != ".yaml" {
			continue
		}
		if data, err := files.read(ctx, n); err == nil {
			s.Workflows[n] = data
		}
	}
	s.Phrase = *phrase
	out, err := s.Config()
	if err != nil {
		return fail("%v", err)
	}
	if !*write {
		env.Stdout.Write(out)
		return 0
	}
	target := filepath.Join(*dir, filepath.FromSlash(repoconfig.Path))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fail("%v", err)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fail("%v (init never overwrites a configuration)", err)
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return fail("%v", err)
	}
	if err := f.Close(); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(env.Stdout, "wrote %s from %s: review every binding, then run verdict config check %s\n", target, s.Checklist, target)
	return 0
}

// localFiles reads a work tree.
type localFiles struct{ dir string }

func (l localFiles) read(_ context.Context, p string) ([]byte, error) {
	f, err := os.Open(filepath.Join(l.dir, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", p, checks.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, initMaxBytes+1))
	if err == nil && len(data) > initMaxBytes {
		return nil, fmt.Errorf("%s is over %d bytes: %w", p, initMaxBytes, checks.ErrTooLarge)
	}
	return data, err
}

func (l localFiles) list(_ context.Context, dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(l.dir, filepath.FromSlash(dir)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, checks.ErrNotFound)
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out, err
}

// githubFiles reads a repository's default branch through the API.
type githubFiles struct {
	src checks.Source
	sha string
}

func newGitHubFiles(ctx context.Context, base, token, owner, name string) (githubFiles, error) {
	ro := ghclient.RetryOptions{MaxWait: 30 * time.Second}
	gh, err := ghclient.NewToken(base, token, ghclient.Options{Retry: ro})
	if err != nil {
		return githubFiles{}, err
	}
	api := ghapi.New(gh, ghsource.Options{Retry: ro, MaxFileBytes: initMaxBytes})
	r, err := api.Repository(ctx, owner, name)
	if err != nil {
		return githubFiles{}, fmt.Errorf("reading %s/%s: %w", owner, name, err)
	}
	sha, err := api.BranchSHA(ctx, owner, name, r.GetDefaultBranch())
	if err != nil {
		return githubFiles{}, fmt.Errorf("reading the default branch: %w", err)
	}
	return githubFiles{src: api.Evidence(owner, name, 0), sha: sha}, nil
}

func (g githubFiles) read(ctx context.Context, p string) ([]byte, error) {
	return g.src.ReadFile(ctx, g.sha, p)
}

func (g githubFiles) list(ctx context.Context, dir string) ([]string, error) {
	entries, err := g.src.ListDir(ctx, g.sha, dir)
	var out []string
	for _, e := range entries {
		if e.Type == "file" {
			out = append(out, e.Path)
		}
	}
	return out, err
}
