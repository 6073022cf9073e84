// Package inferencex is the InferenceX preset: the sixteen rows of the
// InferenceX sign-off checklist, one file per row (c00_codeowner.go …
// c15_description.go), each declaring its whole row in one checks.Check
// literal. The rules are written down in RULES.md; the models the rows read
// live in repo (the repository and the change set), serving (how configs are
// served) and sweep (CI evidence).
package inferencex

import (
	"sort"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
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
	Name:     "inferencex",
	Title:    checks.T("InferenceX sign-off checklist", "InferenceX 签核清单"),
	Rows:     rows,
	Affected: AffectedConfigs,
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
