// Package repoconfig reads a repository's .github/verdict.yml from its
// default branch: the app's keys, merged over their defaults, and the keys
// of the served presets, which it validates and leaves to the chosen preset
// to read. It is never read from a PR head: a pull request must not change
// its own rules.
package repoconfig

import (
	"context"
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Path is where the configuration lives on the default branch.
const Path = ".github/verdict.yml"

// maxBytes bounds the configuration file; a larger one is refused.
const maxBytes = 256 << 10

// Config is the per-repository configuration.
type Config struct {
	// Preset names the checklist the repository is verified with; empty
	// lets the presets detect it (Bind).
	Preset string `yaml:"preset"`
	// PresetSettings are the chosen preset's own settings, which the
	// preset reads and validates itself (checks.Preset.Configure).
	PresetSettings yaml.Node `yaml:"preset_settings"`

	// SignOffPhrase is the case-sensitive substring that makes a comment a
	// sign-off candidate.
	SignOffPhrase string `yaml:"signoff_phrase"`
	// CoreTeam and AllowSelfSignOff are read by the presets' owner rows
	// (each reads them from the file over its own defaults); they are the
	// app's keys because every preset takes them.
	CoreTeam         string `yaml:"core_team"`
	AllowSelfSignOff bool   `yaml:"allow_self_signoff"`
	// Checks turns individual rows off.
	Checks map[int]CheckSettings `yaml:"checks"`
	// MaxFileBytes caps the files a verification reads.
	MaxFileBytes int64 `yaml:"max_file_bytes"`

	// Status configures the commit status on the assessed commit.
	Status StatusConfig `yaml:"status"`
	// CheckRun configures the check run carrying the full verdict.
	CheckRun CheckRunConfig `yaml:"check_run"`
	// BotLogins are the identities whose comments are the bot's own verdicts.
	BotLogins []string `yaml:"bot_logins"`
	// MinimizeOutdated hides the verdict comments that no longer stand
	// (on by default).
	MinimizeOutdated *bool `yaml:"minimize_outdated"`

	// file is the configuration as read, for the preset's own reading.
	file []byte
	// presetKeys are the keys it sets that a preset adds, for Bind to
	// refuse another preset's.
	presetKeys []presetKey
}

// StatusConfig is the commit-status feature (on by default).
type StatusConfig struct {
	Enabled *bool  `yaml:"enabled"`
	Context string `yaml:"context"`
	// WarnAs maps a WARN verdict to "success" (default) or "failure".
	WarnAs string `yaml:"warn_as"`
	// OnPush is the state posted on a pushed head that no verdict covers:
	// "pending" (default) or "failure", which blocks merging even where
	// branch protection lets pending statuses through.
	OnPush string `yaml:"on_push"`
}

// CheckSettings tunes one row.
type CheckSettings struct {
	// Disabled removes the row (it renders N/A "disabled by configuration").
	Disabled bool `yaml:"disabled"`
}

// CheckRunConfig is the check-run feature.
type CheckRunConfig struct {
	Enabled *bool  `yaml:"enabled"`
	Name    string `yaml:"name"`
}

// Default returns the built-in configuration.
func Default() Config {
	// One bool each: the YAML decoder writes through a pointer it finds
	// set, so a shared one would let `status.enabled: false` turn the
	// check run off too.
	on := func() *bool { t := true; return &t }
	return Config{
		SignOffPhrase: signoff.DefaultPhrase,
		MaxFileBytes:  8 << 20,
		Status:        StatusConfig{Enabled: on(), Context: "codeowner-signoff-verify", WarnAs: "success", OnPush: "pending"},
		CheckRun:      CheckRunConfig{Enabled: on(), Name: "Verdict / sign-off"},

		MinimizeOutdated: on(),
	}
}

// File is the configuration file as read (nil for the defaults), for a
// preset's own reading.
func (c Config) File() []byte { return c.file }

// Enabled reports whether row n is on.
func (c Config) Enabled(n int) bool { return !c.Checks[n].Disabled }

// StatusEnabled reports whether commit statuses are posted.
func (c Config) StatusEnabled() bool { return c.Status.Enabled == nil || *c.Status.Enabled }

// CheckRunEnabled reports whether the check run is posted.
func (c Config) CheckRunEnabled() bool { return c.CheckRun.Enabled == nil || *c.CheckRun.Enabled }

// MinimizeOutdatedEnabled reports whether verdict comments that no longer
// stand are hidden as outdated.
func (c Config) MinimizeOutdatedEnabled() bool {
	return c.MinimizeOutdated == nil || *c.MinimizeOutdated
}

// Parse merges a verdict.yml over the defaults, with the keys of presets
// (the served ones) beside the app's. Unknown keys are errors, so a typo
// never silently disables a rule; an invalid file is an *Error listing
// every problem with its line.
func Parse(data []byte, presets []*checks.Preset) (Config, error) {
	cfg, probs := Check(data, presets)
	if len(probs) > 0 {
		return cfg, fmt.Errorf("%s: %w", Path, &Error{Problems: probs})
	}
	return cfg, nil
}

// Load reads the configuration at ref (the default branch's commit), with
// the keys of presets beside the app's. A missing file means the defaults.
func Load(ctx context.Context, src checks.Source, ref string, presets []*checks.Preset) (Config, error) {
	data, err := src.ReadFile(ctx, ref, Path)
	if errors.Is(err, checks.ErrNotFound) {
		return Default(), nil
	}
	if err != nil {
		return Default(), fmt.Errorf("reading %s: %w", Path, err)
	}
	return Parse(data, presets)
}
