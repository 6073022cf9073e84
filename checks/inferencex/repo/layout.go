package repo

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Layout maps the benchmark repository's two layouts (RULES.md, "Layouts").
// Paths are repository-relative. The yaml names are the paths.* keys of
// .github/verdict.yml.
type Layout struct {
	Name          string `yaml:"name" json:"name"` // "legacy" or "e2e"
	Root          string `yaml:"root" json:"root"` // "" or "inferencex-e2e/"
	Checklist     string `yaml:"checklist" json:"checklist"`
	ChecklistZH   string `yaml:"checklist_zh" json:"checklist_zh"`
	Models        string `yaml:"models" json:"models"`
	ConfigsDir    string `yaml:"configs_dir" json:"configs_dir"`
	Changelog     string `yaml:"changelog" json:"changelog"`
	GoldenDir     string `yaml:"golden_dir" json:"golden_dir"`
	WaiverDir     string `yaml:"waiver_dir" json:"waiver_dir"`
	Thresholds    string `yaml:"thresholds" json:"thresholds"`
	BenchmarksDir string `yaml:"benchmarks_dir" json:"benchmarks_dir"`
	RunnersDir    string `yaml:"runners_dir" json:"runners_dir"`
	CodeOwners    string `yaml:"codeowners" json:"codeowners"`

	// EarlierConfigsDir is where the master configs were before they moved
	// to ConfigsDir: a commit without ConfigsDir is read there. Not a
	// setting: a repository that names its configs directory is read there.
	EarlierConfigsDir string `yaml:"-" json:"-"`
}

// LegacyLayout is the root layout of Aug 2026.
func LegacyLayout() Layout {
	return Layout{
		Name:          "legacy",
		Checklist:     "docs/PR_REVIEW_CHECKLIST.md",
		ChecklistZH:   "docs/PR_REVIEW_CHECKLIST_zh.md",
		Models:        "MODELS.md",
		ConfigsDir:    "configs",
		Changelog:     "perf-changelog.yaml",
		GoldenDir:     "golden_al_distribution",
		WaiverDir:     "docs/waiver",
		Thresholds:    "utils/evals/thresholds.yaml",
		BenchmarksDir: "benchmarks",
		RunnersDir:    "runners",
		CodeOwners:    ".github/CODEOWNERS",

		// Until July 2026 the master configs lived under .github/.
		EarlierConfigsDir: ".github/configs",
	}
}

// E2ELayout is the inferencex-e2e/ layout of late 2026.
func E2ELayout() Layout {
	const r = "inferencex-e2e/"
	return Layout{
		Name:          "e2e",
		Root:          r,
		Checklist:     r + "docs/PR_REVIEW_CHECKLIST.md",
		ChecklistZH:   r + "docs/PR_REVIEW_CHECKLIST_zh.md",
		Models:        r + "docs/MODELS.md",
		ConfigsDir:    r + "configs",
		Changelog:     r + "perf-changelog.yaml",
		GoldenDir:     r + "infx/golden_al_distribution",
		WaiverDir:     r + "docs/waiver",
		Thresholds:    r + "infx/evals/thresholds.yaml",
		BenchmarksDir: r + "benchmarks",
		RunnersDir:    r + "runners",
		CodeOwners:    ".github/CODEOWNERS",
	}
}

// LayoutFact is the layout this verification reads the repository with:
// the one the settings force, or the one detected on the default branch,
// with the settings' path overrides applied.
var LayoutFact = checks.NewFact("repository layout", nil, func(ctx context.Context, pr *checks.PR) (Layout, error) {
	s := SettingsParam.Get(pr)
	if s == nil {
		d := Defaults()
		s = &d
	}
	var l Layout
	switch s.ForceLayout {
	case "e2e":
		l = E2ELayout()
	case "legacy":
		l = LegacyLayout()
	default:
		var err error
		if l, err = DetectLayout(ctx, pr.Source, pr.DefaultSHA); err != nil {
			return Layout{}, err
		}
	}
	return l.Override(s.Paths), nil
})

// E2EMarker is the file whose presence on the default branch selects the
// e2e layout, exactly as the upstream workflow selects its Python project.
const E2EMarker = "inferencex-e2e/pyproject.toml"

// DetectLayout picks the layout from the default branch at ref.
func DetectLayout(ctx context.Context, src checks.Source, ref string) (Layout, error) {
	_, err := src.ReadFile(ctx, ref, E2EMarker)
	switch {
	case err == nil:
		return E2ELayout(), nil
	case errors.Is(err, checks.ErrNotFound):
		return LegacyLayout(), nil
	default:
		return Layout{}, fmt.Errorf("detecting repository layout: %w", err)
	}
}

// UnderConfigs reports whether p is inside the configs directory, where
// it is now or where it was.
func (l Layout) UnderConfigs(p string) bool {
	for _, d := range []string{l.ConfigsDir, l.EarlierConfigsDir} {
		if d != "" && strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// IsMasterConfig reports whether p is a master config: a *-master.yaml
// directly in the configs directory, where it is now or where it was.
func (l Layout) IsMasterConfig(p string) bool {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if !strings.HasSuffix(name, "-master.yaml") {
		return false
	}
	return dir == strings.TrimSuffix(l.ConfigsDir, "/") || (l.EarlierConfigsDir != "" && dir == strings.TrimSuffix(l.EarlierConfigsDir, "/"))
}

// WaiverPath is the waiver file for PR n.
func (l Layout) WaiverPath(n int) string { return path.Join(l.WaiverDir, fmt.Sprintf("%d.md", n)) }

// Override replaces any non-empty path from o.
func (l Layout) Override(o Layout) Layout {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&l.Checklist, o.Checklist)
	set(&l.ChecklistZH, o.ChecklistZH)
	set(&l.Models, o.Models)
	if o.ConfigsDir != "" {
		l.ConfigsDir, l.EarlierConfigsDir = o.ConfigsDir, ""
	}
	set(&l.Changelog, o.Changelog)
	set(&l.GoldenDir, o.GoldenDir)
	set(&l.WaiverDir, o.WaiverDir)
	set(&l.Thresholds, o.Thresholds)
	set(&l.BenchmarksDir, o.BenchmarksDir)
	set(&l.RunnersDir, o.RunnersDir)
	set(&l.CodeOwners, o.CodeOwners)
	return l
}
