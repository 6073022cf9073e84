// Package inferencex is the InferenceX preset: the sixteen rows of the
// InferenceX sign-off checklist, one file per row (c00_codeowner.go …
// c15_description.go), each declaring its whole row in one checks.Check
// literal. The rules are written down in RULES.md; the models the rows read
// live in repo (the repository and the change set), serving (how configs are
// served) and sweep (CI evidence).
package inferencex

import (
	"context"
	"errors"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

// rows are the preset's rows in order.
var rows = []*checks.Check{
	Codeowner,
	PassingSweep,
	Evals,
	UpstreamRecipe,
	ReuseCommand,
	ChecklistTemplate,
	UpstreamImages,
	DeprecatedModels,
	ArchitectureHacks,
	ChatTemplate,
	EnginePatches,
	GoldenAcceptance,
	AppendOnly,
	DraftPrecision,
	ParetoCoverage,
	Description,
}

// Preset is the InferenceX checklist as the app reaches it.
var Preset = &checks.Preset{
	Name:       "inferencex",
	Title:      checks.T("InferenceX sign-off checklist", "InferenceX 签核清单"),
	Rows:       rows,
	Affected:   AffectedConfigs,
	Detect:     repo.Detect,
	Marks:      []string{repo.E2EMarker, repo.LegacyLayout().Checklist},
	Configure:  configure,
	Settings:   repo.KeySettings,
	Escalation: escalation,
	Owners:     owners,
	Remind:     remind,
	ReadAhead:  readAhead,
	Commands:   []string{"use", "reuse-sweep-run"},
	Reuse:      reuseRules,
	Sample:     sample,
	Inputs:     changeset.Inputs,
}

// configure hands the rows the repository's settings: the top-level keys
// of the configuration file (which the app has validated against its key
// table) over the defaults. The preset takes no preset_settings.
func configure(pr *checks.PR, file []byte) []checks.ConfigProblem {
	var cfg struct {
		repo.Settings  `yaml:",inline"`
		PresetSettings yaml.Node `yaml:"preset_settings"`
	}
	cfg.Settings = repo.Defaults()
	if err := yaml.Unmarshal(file, &cfg); err != nil {
		return []checks.ConfigProblem{{Key: "", Message: checks.T("reading the settings: "+err.Error(), "读取设置失败："+checks.Code(err.Error()))}}
	}
	if n := cfg.PresetSettings; n.Kind == yaml.SequenceNode || n.Kind == yaml.ScalarNode && n.Tag != "!!null" || n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		return []checks.ConfigProblem{{Line: n.Line, Key: "preset_settings", Message: checks.T(
			"preset_settings: the inferencex preset takes no settings of its own",
			"preset_settings：inferencex 预设没有自己的设置")}}
	}
	repo.SettingsParam.Set(pr, &cfg.Settings)
	return nil
}

// artifactReader is an evidence source that can read a run's artifacts
// ahead once a row reads one of them.
type artifactReader interface {
	PrefetchArtifacts(pick func(arts []checks.Artifact) map[int64]func(name string) bool)
}

// readAhead starts the reads that need only the pinned commits and the
// layout and would otherwise wait for the rows that make them: the
// checklist template (read by the row that waits for every other row),
// CODEOWNERS at the base tip, and the benchmark artifacts of the run the
// rows assess (Check 14), once the files say the PR can move a curve.
func readAhead(ctx context.Context, pr *checks.PR) {
	go func() {
		l, err := repo.LayoutFact.Of(ctx, pr)
		if err != nil {
			return
		}
		if l.Checklist != "" && pr.DefaultSHA != "" {
			go pr.Source.ReadFile(ctx, pr.DefaultSHA, l.Checklist)
		}
		if l.CodeOwners != "" && pr.BaseTip != "" {
			go pr.Source.ReadFile(ctx, pr.BaseTip, l.CodeOwners)
		}
		if a, ok := pr.Source.(artifactReader); ok {
			// A PR changing no file that can move a curve gets no read
			// ahead: knowing takes the longest chain of reads.
			if files, err := pr.Source.Files(ctx); err == nil && sweep.MayMoveCurves(l, files) {
				a.PrefetchArtifacts(sweep.BenchReads)
			}
		}
	}()
}

// owners are the layout's CODEOWNERS, read and parsed through the fact
// Check 0 reads too, and the settings' core team.
func owners(ctx context.Context, pr *checks.PR) (checks.Owners, error) {
	co, err := repo.CodeOwnersFact.Of(ctx, pr)
	o := checks.Owners{CodeOwners: co.Path, Empty: errors.Is(err, repo.ErrEmptyCodeOwners),
		Match: co.File.Owners, Problems: co.File.ProblemLines()}
	if o.Empty {
		err = nil // the gate words an empty file itself
	}
	if err != nil {
		return o, err
	}
	o.CoreTeam = settingsOf(pr).CoreTeam
	return o, nil
}

// Registry returns the registry of the preset's rows.
func Registry() *checks.Registry {
	reg, err := Preset.Registry()
	if err != nil {
		panic(err) // the preset is a constant; a duplicate or a cycle is a programming error
	}
	return reg
}

// Name is the bilingual name of row n, or the zero Text when the preset has
// no such row.
func Name(n int) checks.Text {
	if c, ok := Preset.Row(n); ok {
		return c.Name
	}
	return checks.Text{}
}

// AffectedConfigs are the keys (sorted) of the configs the change-set model
// judged affected, for reporting once the rows have run. It never builds the
// model: false when no row did, or when it could not be built.
func AffectedConfigs(pr *checks.PR) ([]string, bool) {
	cs, ok := changeset.Fact.Peek(pr)
	if !ok || cs == nil {
		return nil, false
	}
	keys := make([]string, 0, len(cs.Affected))
	for _, e := range cs.Affected {
		keys = append(keys, e.Key)
	}
	sort.Strings(keys)
	return keys, true
}
