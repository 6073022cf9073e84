package scope_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

const (
	tip  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	head = "cccccccccccccccccccccccccccccccccccccccc"
)

const owners = `* @SemiAnalysisAI/core
/configs/amd-master.yaml @amd-owner @SemiAnalysisAI/amd
/configs/nvidia-master.yaml @nv-admin
/docs/ docs@example.com
`

// prFor is a legacy-layout PR changing files, with CODEOWNERS at the tip.
func prFor(src *checkstest.Source, files ...checks.ChangedFile) *checks.PR {
	src.FilesValue = files
	if src.Perms == nil {
		src.Perms = map[string]checks.Permission{"nv-admin": {Permission: "admin", RoleName: "admin"}}
	}
	settings := repo.Defaults()
	return checkstest.NewPR(src, checkstest.Identity("acme", "bench", 7), checkstest.Commits(head, tip, tip, tip),
		checkstest.With(repo.SettingsParam, &settings), checkstest.Fact(repo.LayoutFact, repo.LegacyLayout()),
		func(pr *checks.PR) { pr.ChangedFiles = len(files) })
}

func TestOf(t *testing.T) {
	file := func(p string) checks.ChangedFile { return checks.ChangedFile{Path: p} }
	tests := []struct {
		name   string
		files  []checks.ChangedFile
		owners []string // nil: no sign-off required
	}{
		{"core team only", []checks.ChangedFile{file("README.md")}, nil},
		{"an individual admin needs no sign-off", []checks.ChangedFile{file("configs/nvidia-master.yaml")}, nil},
		{"people and teams do", []checks.ChangedFile{file("configs/amd-master.yaml")}, []string{"@amd-owner", "@semianalysisai/amd"}},
		{"email owners do", []checks.ChangedFile{file("docs/x.md")}, []string{"docs@example.com"}},
		{"a rename out of an owned path counts", []checks.ChangedFile{{Path: "README.md", PreviousPath: "configs/amd-master.yaml"}},
			[]string{"@amd-owner", "@semianalysisai/amd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{}
			src.SetFile(tip, ".github/CODEOWNERS", owners)
			sc, err := scope.Of(context.Background(), inferencex.Preset, prFor(src, tt.files...))
			if err != nil {
				t.Fatal(err)
			}
			if sc.Required != (tt.owners != nil) || !slices.Equal(sc.Owners, tt.owners) {
				t.Errorf("scope = %+v, want owners %v", sc, tt.owners)
			}
		})
	}
}

func TestOfRefusesToGuess(t *testing.T) {
	amd := checks.ChangedFile{Path: "configs/amd-master.yaml"}
	tests := []struct {
		name  string
		setup func(src *checkstest.Source, pr *checks.PR)
		err   string
		is    error
	}{
		{"a short file list", func(_ *checkstest.Source, pr *checks.PR) { pr.ChangedFiles = 2 }, "the file list has 1 files but the PR reports 2", scope.ErrIncomplete},
		{"an empty CODEOWNERS", func(src *checkstest.Source, _ *checks.PR) { src.SetFile(tip, ".github/CODEOWNERS", " \n") }, ".github/CODEOWNERS at base tip bbbbbbb is empty", nil},
		{"an unreadable CODEOWNERS", func(src *checkstest.Source, _ *checks.PR) { src.ReadFileError = errors.New("boom") }, "reading .github/CODEOWNERS at base tip bbbbbbb: boom", nil},
		{"GitHub's diagnostics", func(src *checkstest.Source, _ *checks.PR) {
			src.OwnersErrs = map[string][]checks.CodeownersError{tip: {{Line: 2, Message: "Unknown owner"}}}
		}, "has 1 error(s) reported by GitHub (line 2: Unknown owner)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{}
			src.SetFile(tip, ".github/CODEOWNERS", owners)
			pr := prFor(src, amd)
			tt.setup(src, pr)
			_, err := scope.Of(context.Background(), inferencex.Preset, pr)
			if err == nil || !strings.Contains(err.Error(), tt.err) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
	// Past GitHub's listing cap the unlisted files could need anyone.
	src := &checkstest.Source{FilesError: fmt.Errorf("3000 files: %w", checks.ErrTooLarge)}
	src.SetFile(tip, ".github/CODEOWNERS", owners)
	if sc, err := scope.Of(context.Background(), inferencex.Preset, prFor(src)); err != nil || !sc.Required || len(sc.Problems) != 1 {
		t.Errorf("over the cap: %+v, %v; want required", sc, err)
	}
}

// TestCodeOwnersReadOnce: the gate and Check 0 share one read and parse of
// CODEOWNERS on the same PR.
func TestCodeOwnersReadOnce(t *testing.T) {
	src := &checkstest.Source{}
	src.SetFile(tip, ".github/CODEOWNERS", owners)
	pr := prFor(src, checks.ChangedFile{Path: "configs/amd-master.yaml"})
	pr.SignOff = checks.SignOff{Author: "amd-owner"}
	if _, err := scope.Of(context.Background(), inferencex.Preset, pr); err != nil {
		t.Fatal(err)
	}
	reads := src.Calls["ReadFile"]
	if r := checkstest.RunOne(t, pr, inferencex.Codeowner); r.Status != checks.Pass {
		t.Fatalf("Check 0 = %s %q", r.Status, r.Reason.EN)
	}
	if src.Calls["ReadFile"] != reads {
		t.Errorf("Check 0 read files again (%d reads after the gate's %d)", src.Calls["ReadFile"], reads)
	}
}
