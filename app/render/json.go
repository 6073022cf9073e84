package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/verdict-bot/verdict/checks"
)

// jsonVerdict fixes the field order of the machine-readable verdict.
type jsonVerdict struct {
	Verdict     checks.Overall `json:"verdict"`
	AssessedSHA string         `json:"assessed_sha"`
	SignOff     string         `json:"signoff"`
	AdvancedTo  string         `json:"advanced_to,omitempty"`
	// AffectedConfigs is null when the preset's model was not built.
	AffectedConfigs []string    `json:"affected_configs"`
	Checks          []jsonCheck `json:"checks"`
}

type jsonCheck struct {
	Number   int               `json:"number"`
	Name     string            `json:"name"`
	Status   checks.Status     `json:"status"`
	Reason   string            `json:"reason"`
	ReasonZH string            `json:"reason_zh"`
	Evidence []checks.Evidence `json:"evidence,omitempty"`
}

// JSON renders v as the machine-readable verdict (for `verdict check --json`
// and the audit record). It applies the same input checks and guard as
// Markdown and refuses, rather than describes, a verdict that fails them.
// Reasons are the checks' own text; HTML neutralization is a Markdown concern.
func JSON(v Verdict) ([]byte, error) {
	if err := v.checkInputs(); err != nil {
		return nil, err
	}
	en, err := v.verdictText(EN)
	if err != nil {
		return nil, err
	}
	if err := Validate(en, v.Preset); err != nil {
		return nil, fmt.Errorf("verdict failed validation: %w", err)
	}
	rows := slices.Clone(v.Rows)
	slices.SortStableFunc(rows, func(a, b checks.Outcome) int { return a.Number - b.Number })
	out := jsonVerdict{
		Verdict:     v.Overall,
		AssessedSHA: v.HeadSHA,
		SignOff:     v.Key,
		AdvancedTo:  v.AdvancedTo,
		Checks:      make([]jsonCheck, 0, len(rows)),
	}
	if v.AffectedConfigs != nil {
		out.AffectedConfigs = slices.Clone(v.AffectedConfigs) // empty stays [], not null
		slices.Sort(out.AffectedConfigs)
	}
	for _, o := range rows {
		name := o.Name.EN
		if c, ok := v.Preset.Row(o.Number); ok && name == "" {
			name = c.Name.EN
		}
		zh := o.Result.Reason.ZH
		if zh == "" {
			zh = o.Result.Reason.EN
		}
		out.Checks = append(out.Checks, jsonCheck{
			Number:   o.Number,
			Name:     name,
			Status:   o.Result.Status,
			Reason:   o.Result.Reason.EN,
			ReasonZH: zh,
			Evidence: o.Result.Evidence,
		})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// Reasons quote paths and flags; keep them readable.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encoding verdict JSON: %w", err)
	}
	return b.Bytes(), nil
}
