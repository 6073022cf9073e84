package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

const (
	headSHA = "1111111111111111111111111111111111111111"
	baseSHA = "2222222222222222222222222222222222222222"
	mainSHA = "3333333333333333333333333333333333333333"
	relSHA  = "4444444444444444444444444444444444444444"
)

// fakeGitHub is snapshot.GitHub in memory: a unit test of the snapshot
// needs no HTTP server (the end-to-end tests keep the fake GitHub server).
type fakeGitHub struct {
	base     string // the PR's base branch
	branches map[string]string
	src      *checkstest.Source
	// reads records the branch tips read (read concurrently, so in no
	// particular order).
	mu    sync.Mutex
	reads []string
}

func (f *fakeGitHub) Repository(_ context.Context, owner, name string) (*github.Repository, error) {
	return &github.Repository{DefaultBranch: github.String("main"), HTMLURL: github.String("https://github.com/" + owner + "/" + name)}, nil
}

func (f *fakeGitHub) PullRequest(_ context.Context, _, _ string, number int) (*github.PullRequest, error) {
	return &github.PullRequest{
		Number: github.Int(number), Title: github.String("Tune"), State: github.String("open"),
		User:         &github.User{Login: github.String("contrib")},
		Labels:       []*github.Label{{Name: github.String("sweep")}},
		ChangedFiles: github.Int(1),
		Head:         &github.PullRequestBranch{Ref: github.String("tune"), SHA: github.String(headSHA)},
		Base:         &github.PullRequestBranch{Ref: github.String(f.base), SHA: github.String(baseSHA)},
	}, nil
}

func (f *fakeGitHub) BranchSHA(_ context.Context, _, _, branch string) (string, error) {
	f.mu.Lock()
	f.reads = append(f.reads, branch)
	f.mu.Unlock()
	sha, ok := f.branches[branch]
	if !ok {
		return "", fmt.Errorf("no branch %s", branch)
	}
	return sha, nil
}

func (f *fakeGitHub) Evidence(string, string, int) snapshot.Evidence { return evidence{f.src} }

// evidence is the in-memory Source, which never fails transiently.
type evidence struct{ *checkstest.Source }

func (evidence) Transient() error { return nil }

// presets are those the App serves.
var presets = []*checks.Preset{inferencex.Preset, checklist.Preset}

func TestTake(t *testing.T) {
	tests := []struct {
		name   string
		base   string
		config string // .github/verdict.yml on main; "" for none
		marker bool   // inferencex-e2e/pyproject.toml on main
		tip    string
		reads  []string
		layout string
		owners string // the CODEOWNERS path the layout reads
	}{
		{name: "base is the default branch", base: "main", tip: mainSHA, reads: []string{"main"}, layout: "legacy", owners: ".github/CODEOWNERS"},
		{name: "base is another branch", base: "release", tip: relSHA, reads: []string{"main", "release"}, layout: "legacy", owners: ".github/CODEOWNERS"},
		{name: "e2e detected", base: "main", marker: true, tip: mainSHA, reads: []string{"main"}, layout: "e2e", owners: ".github/CODEOWNERS"},
		{name: "layout pinned, path overridden", base: "main", config: "layout: e2e\npaths:\n  codeowners: docs/CODEOWNERS\n",
			tip: mainSHA, reads: []string{"main"}, layout: "e2e", owners: "docs/CODEOWNERS"},
		{name: "legacy pinned over the marker", base: "main", config: "layout: legacy\n", marker: true,
			tip: mainSHA, reads: []string{"main"}, layout: "legacy", owners: ".github/CODEOWNERS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{}
			if tt.config != "" {
				src.SetFile(mainSHA, ".github/verdict.yml", tt.config)
			}
			if tt.marker {
				src.SetFile(mainSHA, repo.E2EMarker, "[project]\n")
			} else {
				// An InferenceX repository in the legacy layout.
				src.SetFile(mainSHA, repo.LegacyLayout().Checklist, "## Template\n")
			}
			gh := &fakeGitHub{base: tt.base, branches: map[string]string{"main": mainSHA, "release": relSHA}, src: src}
			snap, err := snapshot.Take(context.Background(), gh, presets, "acme", "bench", 7)
			if err != nil {
				t.Fatal(err)
			}
			pr := snap.PR
			if pr.HeadSHA != headSHA || pr.BaseSHA != baseSHA || pr.BaseTip != tt.tip || pr.DefaultSHA != mainSHA ||
				pr.DefaultBranch != "main" || pr.BaseRef != tt.base || pr.Author != "contrib" || !pr.HasLabel("sweep") || pr.ChangedFiles != 1 {
				t.Errorf("pinned PR = %+v", pr)
			}
			slices.Sort(gh.reads)
			if !slices.Equal(gh.reads, tt.reads) {
				t.Errorf("branch tips read %v, want %v", gh.reads, tt.reads)
			}
			if snap.Preset != inferencex.Preset {
				t.Fatalf("preset %s, want inferencex", snap.Preset.Name)
			}
			// The checks read the layout and settings the configuration
			// selects from the PR.
			if l, err := repo.LayoutFact.Of(context.Background(), pr); err != nil || l.Name != tt.layout || l.CodeOwners != tt.owners {
				t.Errorf("layout %s reading %s (%v), want %s reading %s", l.Name, l.CodeOwners, err, tt.layout, tt.owners)
			}
			if s := repo.SettingsParam.Get(pr); s == nil || s.SignOffPhrase != snap.Config.SignOffPhrase {
				t.Errorf("settings on the PR = %+v", s)
			}
			if snap.Evidence == nil || pr.Source != checks.Source(snap.Evidence) || snap.RepoURL != "https://github.com/acme/bench" {
				t.Errorf("evidence %v, source %v, repository %q", snap.Evidence, pr.Source, snap.RepoURL)
			}
		})
	}
}

// TestTakeBindsThePreset: a repository laid out for no preset gets the
// fallback; one that names a preset gets it, detection or not; a preset
// that is not served is a configuration error.
func TestTakeBindsThePreset(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		marker       bool
		want         string
	}{
		{"a plain repository", "", false, "checklist"},
		{"the e2e layout", "", true, "inferencex"},
		{"named over detection", "preset: checklist\n", true, "checklist"},
		{"not served", "preset: prow\n", false, `line 1: preset "prow" is not served here (served: inferencex, checklist)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{}
			if tt.config != "" {
				src.SetFile(mainSHA, ".github/verdict.yml", tt.config)
			}
			if tt.marker {
				src.SetFile(mainSHA, repo.E2EMarker, "[project]\n")
			}
			gh := &fakeGitHub{base: "main", branches: map[string]string{"main": mainSHA}, src: src}
			snap, err := snapshot.Take(context.Background(), gh, presets, "acme", "bench", 7)
			var ce *snapshot.ConfigError
			switch {
			case err != nil && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Take = %v, want a ConfigError containing %q", err, tt.want)
			case err == nil && snap.Preset.Name != tt.want:
				t.Fatalf("preset %s, want %s", snap.Preset.Name, tt.want)
			}
		})
	}
}

// TestTakeInvalidConfiguration: an unusable verdict.yml is a ConfigError
// that names the file version read, so the PR can be told where.
func TestTakeInvalidConfiguration(t *testing.T) {
	src := &checkstest.Source{}
	src.SetFile(mainSHA, ".github/verdict.yml", "signoff_phrase: ok\nlayout: sideways\n")
	gh := &fakeGitHub{base: "main", branches: map[string]string{"main": mainSHA}, src: src}
	snap, err := snapshot.Take(context.Background(), gh, presets, "acme", "bench", 7)
	var ce *snapshot.ConfigError
	if snap != nil || !errors.As(err, &ce) {
		t.Fatalf("Take = %v, %v; want a ConfigError", snap, err)
	}
	if ce.Branch != "main" || ce.SHA != mainSHA || ce.RepoURL != "https://github.com/acme/bench" ||
		ce.Problems == nil || ce.Problems.FirstLine() != 2 || !strings.Contains(err.Error(), ".github/verdict.yml") {
		t.Errorf("ConfigError = %+v (%v)", ce, err)
	}
	cfg, err := snapshot.Configuration(context.Background(), gh, evidence{src}, presets, "acme", "bench")
	if !errors.As(err, &ce) {
		t.Errorf("Configuration = %+v, %v; want the same ConfigError", cfg, err)
	}
}

func TestTakeReportsWhatFailed(t *testing.T) {
	gh := &fakeGitHub{base: "release", branches: map[string]string{"main": mainSHA}, src: &checkstest.Source{}}
	if _, err := snapshot.Take(context.Background(), gh, presets, "acme", "bench", 7); err == nil || !strings.Contains(err.Error(), "reading base branch release") {
		t.Errorf("err = %v, want the base branch read named", err)
	}
	gh.src.ReadFileError = errors.New("disk on fire")
	gh.base = "main"
	if _, err := snapshot.Take(context.Background(), gh, presets, "acme", "bench", 7); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("err = %v, want the configuration read's", err)
	}
}

// aheadEvidence is evidence that can read ahead at a branch, recording
// what it was asked in the order of gh's branch reads.
type aheadEvidence struct {
	evidence
	gh *fakeGitHub
}

func (e aheadEvidence) ReadAhead(_ context.Context, branch string, paths ...string) {
	e.gh.mu.Lock()
	defer e.gh.mu.Unlock()
	e.gh.reads = append(e.gh.reads, "ahead "+branch+": "+strings.Join(paths, " "))
}

func (e aheadEvidence) Pin(branch, sha string) {
	e.gh.mu.Lock()
	defer e.gh.mu.Unlock()
	e.gh.reads = append(e.gh.reads, "pin "+branch+" "+sha)
}

// TestTakeReadsTheConfigurationAhead: with evidence that can, the
// configuration and the layout marker are read at the default branch
// while its tip is read, and pinned to the tip once it is known.
func TestTakeReadsTheConfigurationAhead(t *testing.T) {
	src := &checkstest.Source{}
	src.SetFile(mainSHA, repo.E2EMarker, "[project]\n")
	gh := &fakeGitHub{base: "main", branches: map[string]string{"main": mainSHA}, src: src}
	snap, err := snapshot.TakeWith(context.Background(), gh, aheadEvidence{evidence{src}, gh}, presets, "acme", "bench", 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ahead main: .github/verdict.yml " + repo.E2EMarker + " " + repo.LegacyLayout().Checklist, "main", "pin main " + mainSHA}
	if !slices.Equal(gh.reads, want) {
		t.Errorf("reads %q, want %q", gh.reads, want)
	}
	if l, err := repo.LayoutFact.Of(context.Background(), snap.PR); err != nil || l.Name != "e2e" || snap.PR.DefaultSHA != mainSHA {
		t.Errorf("layout %s (%v) at %s", l.Name, err, snap.PR.DefaultSHA)
	}
}
