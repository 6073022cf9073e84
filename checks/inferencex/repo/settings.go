// Package repo is the model of an InferenceX benchmark repository as the
// preset's checks see it: the repository's settings for Verdict, its two
// layouts, CODEOWNERS and who owns a PR's paths, the master configs, the
// srt-slurm recipes and launch scripts that define how a config runs (read
// as runtime settings), MODELS.md's scenario names, waivers and the
// checklist labels. The change-set model of a pull request
// is built on it in package changeset. The shared models are Facts of the
// checks contract, computed once per verification.
package repo

import (
	"slices"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// SettingsParam hands the repository's settings to the checks. The
// application sets it on every PR it verifies; an unset value reads as nil
// and the checks that need settings fall back to Defaults.
var SettingsParam = checks.NewParam[*Settings]("InferenceX settings")

// Settings are what the rows read of the repository's configuration
// (.github/verdict.yml on the default branch): the preset's own keys and
// the few keys of the app's table the rows need too. Defaults() is the
// InferenceX preset.
type Settings struct {
	Keys `yaml:",inline"`

	// SignOffPhrase is the case-sensitive substring that makes a comment a
	// sign-off candidate.
	SignOffPhrase string `yaml:"signoff_phrase" json:"signoff_phrase"`
	// CoreTeam is the core team owner (for example @SemiAnalysisAI/core),
	// compared case-insensitively.
	CoreTeam string `yaml:"core_team" json:"core_team"`
	// AllowSelfSignOff lets a code owner sign off their own PR. Off by
	// default, as policy-bot and Prow refuse an author's own approval: a
	// sign-off is a second pair of eyes.
	AllowSelfSignOff bool `yaml:"allow_self_signoff" json:"allow_self_signoff"`
	// MaxFileBytes caps the files the rows read, so bad input stays
	// bounded.
	MaxFileBytes int64 `yaml:"max_file_bytes" json:"max_file_bytes"`
}

// Keys are the top-level keys the preset adds to the configuration file
// (KeyTable documents them).
type Keys struct {
	// Layout overrides individual paths of the auto-detected layout.
	Paths Layout `yaml:"paths" json:"paths"`
	// ForceLayout pins "legacy" or "e2e" instead of auto-detection.
	ForceLayout string `yaml:"layout" json:"layout"`

	// Check 1 group prefixes (matched against check-run names by prefix).
	BenchmarkGroups  []string `yaml:"benchmark_groups" json:"benchmark_groups"`
	EvalGroups       []string `yaml:"eval_groups" json:"eval_groups"`
	Aggregators      []string `yaml:"aggregators" json:"aggregators"`
	RequireEvalGroup bool     `yaml:"require_eval_group" json:"require_eval_group"`
	SweepWorkflow    string   `yaml:"sweep_workflow" json:"sweep_workflow"`

	// Check 2.
	DefaultEvalThreshold float64 `yaml:"default_eval_threshold" json:"default_eval_threshold"`

	// Check 4 and the reuse commands.
	ReuseAssociations       []string `yaml:"reuse_associations" json:"reuse_associations"`
	ReuseIncompatibleLabels []string `yaml:"reuse_incompatible_labels" json:"reuse_incompatible_labels"`
	ReusableArtifacts       []string `yaml:"reusable_artifacts" json:"reusable_artifacts"`
	ReusableArtifactPrefix  []string `yaml:"reusable_artifact_prefixes" json:"reusable_artifact_prefixes"`

	// Check 6.
	EstablishedSKUs      []string            `yaml:"established_skus" json:"established_skus"`
	ImageOrgs            map[string][]string `yaml:"image_orgs" json:"image_orgs"`
	OpenSourceFrameworks []string            `yaml:"open_source_frameworks" json:"open_source_frameworks"`

	// Check 10: harness patch files reviewed as not touching the serving stack.
	HarnessPatchAllowlist []string `yaml:"harness_patch_allowlist" json:"harness_patch_allowlist"`

	// Check 3: "all" (every vLLM/SGLang deployment) or "single-node" (only
	// single-node recipes need an upstream link, the older rule).
	UpstreamRecipeScope string `yaml:"upstream_recipe_scope" json:"upstream_recipe_scope"`

	// Check 14, and who its escalation asks to look.
	ParetoMinimum     int      `yaml:"pareto_minimum" json:"pareto_minimum"`
	EscalationHandles []string `yaml:"escalation_handles" json:"escalation_handles"`
}

// Defaults returns the InferenceX preset.
func Defaults() Settings {
	return Settings{
		SignOffPhrase: signoff.DefaultPhrase,
		CoreTeam:      "@SemiAnalysisAI/core",
		MaxFileBytes:  8 << 20,
		Keys:          DefaultKeys(),
	}
}

// DefaultKeys are the defaults of the preset's own keys.
func DefaultKeys() Keys {
	return Keys{
		BenchmarkGroups: []string{
			"single-node ", "multi-node ", "agentic /", "multi-node agentic /", "canary /",
		},
		EvalGroups:              []string{"eval /", "agentic eval /", "multi-node eval /", "multi-node agentic eval /"},
		Aggregators:             []string{"collect-results", "collect-evals", "check-changelog", "reuse-sweep-gate", "setup"},
		RequireEvalGroup:        true,
		SweepWorkflow:           ".github/workflows/run-sweep.yml",
		DefaultEvalThreshold:    0.85,
		ReuseAssociations:       []string{"OWNER", "MEMBER", "COLLABORATOR"},
		ReuseIncompatibleLabels: []string{"evals-only", "agentx-fast"},
		ReusableArtifacts:       []string{"results_bmk", "eval_results_all"},
		ReusableArtifactPrefix:  []string{"bmk_agentic_"},
		EstablishedSKUs:         []string{"h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x"},
		ImageOrgs: map[string][]string{
			"vllm":   {"vllm/"},
			"sglang": {"lmsysorg/"},
		},
		OpenSourceFrameworks:  []string{"vllm", "dynamo-vllm", "sglang", "sglang-disagg", "dynamo-sglang", "vllm-disagg", "mori-sglang", "llmd-vllm", "llm-d"},
		UpstreamRecipeScope:   "all",
		ParetoMinimum:         5,
		EscalationHandles:     []string{"@maintainer-a", "@maintainer-b"},
		HarnessPatchAllowlist: nil,
	}
}

// IsOpenSource reports whether a framework is an open-source engine.
func (s *Settings) IsOpenSource(framework string) bool {
	return slices.Contains(s.OpenSourceFrameworks, framework)
}

// IsEstablishedSKU reports whether a normalized SKU is established hardware.
func (s *Settings) IsEstablishedSKU(sku string) bool {
	return slices.Contains(s.EstablishedSKUs, sku)
}
