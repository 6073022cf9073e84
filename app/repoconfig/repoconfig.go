// Package repoconfig reads a repository's .github/verdict.yml from its
// default branch and merges it over the built-in InferenceX preset. It is
// never read from a PR head: a pull request must not change its own rules.
package repoconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Path is where the configuration lives on the default branch.
const Path = ".github/verdict.yml"

// maxBytes bounds the configuration file; a larger one is refused.
const maxBytes = 256 << 10

// Config is the per-repository configuration.
type Config struct {
	repo.Settings `yaml:",inline"`

	// Status configures the commit status on the assessed commit.
	Status StatusConfig `yaml:"status"`
	// CheckRun configures the check run carrying the full verdict.
	CheckRun CheckRunConfig `yaml:"check_run"`
	// BotLogins are the identities whose comments are the bot's own verdicts.
	BotLogins []string `yaml:"bot_logins"`
}

// StatusConfig is the commit-status feature (gen-1 behaviour, on by default).
type StatusConfig struct {
	Enabled *bool  `yaml:"enabled"`
	Context string `yaml:"context"`
	// WarnAs maps a WARN verdict to "success" (default) or "failure".
	WarnAs string `yaml:"warn_as"`
}

// CheckRunConfig is the check-run feature.
type CheckRunConfig struct {
	Enabled *bool  `yaml:"enabled"`
	Name    string `yaml:"name"`
}

// Default returns the built-in configuration.
func Default() Config {
	t := true
	return Config{
		Settings: repo.Defaults(),
		Status:   StatusConfig{Enabled: &t, Context: "codeowner-signoff-verify", WarnAs: "success"},
		CheckRun: CheckRunConfig{Enabled: &t, Name: "Verdict / sign-off"},
	}
}

// StatusEnabled reports whether commit statuses are posted.
func (c Config) StatusEnabled() bool { return c.Status.Enabled == nil || *c.Status.Enabled }

// CheckRunEnabled reports whether the check run is posted.
func (c Config) CheckRunEnabled() bool { return c.CheckRun.Enabled == nil || *c.CheckRun.Enabled }

// Parse merges a verdict.yml over the defaults. Unknown keys are errors, so
// a typo never silently disables a rule.
func Parse(data []byte) (Config, error) {
	cfg := Default()
	if len(data) > maxBytes {
		return cfg, fmt.Errorf("%s is %d bytes, over the %d-byte limit", Path, len(data), maxBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return Default(), fmt.Errorf("parsing %s: %s", Path, friendlyYAMLError(err))
	}
	if err := cfg.validate(); err != nil {
		return Default(), fmt.Errorf("validating %s: %w", Path, err)
	}
	return cfg, nil
}

func (c Config) validate() error {
	switch c.Status.WarnAs {
	case "success", "failure":
	default:
		return fmt.Errorf("status.warn_as must be success or failure, not %q", c.Status.WarnAs)
	}
	switch c.ForceLayout {
	case "", "legacy", "e2e":
	default:
		return fmt.Errorf("layout must be legacy or e2e, not %q", c.ForceLayout)
	}
	switch c.UpstreamRecipeScope {
	case "all", "single-node":
	default:
		return fmt.Errorf("upstream_recipe_scope must be all or single-node, not %q", c.UpstreamRecipeScope)
	}
	if c.ParetoMinimum < 1 {
		return fmt.Errorf("pareto_minimum must be at least 1")
	}
	if strings.TrimSpace(c.SignOffPhrase) == "" {
		return fmt.Errorf("signoff_phrase must not be empty")
	}
	for n := range c.Checks {
		if n < 0 || n > 15 {
			return fmt.Errorf("checks: no check %d", n)
		}
	}
	return nil
}

// Load reads the configuration at ref (the default branch's commit). A
// missing file means the defaults.
func Load(ctx context.Context, src checks.Source, ref string) (Config, error) {
	data, err := src.ReadFile(ctx, ref, Path)
	if errors.Is(err, checks.ErrNotFound) {
		return Default(), nil
	}
	if err != nil {
		return Default(), fmt.Errorf("reading %s: %w", Path, err)
	}
	return Parse(data)
}

// unknownFieldRE matches yaml.v3's message for a key KnownFields refuses.
var unknownFieldRE = regexp.MustCompile(`field (\S+) not found in type \S+`)

// friendlyYAMLError says "unknown key x" where yaml.v3 names Go types, so a
// maintainer reading the error sees their file, not our structs.
func friendlyYAMLError(err error) string {
	return unknownFieldRE.ReplaceAllString(err.Error(), "unknown key $1")
}
