package render

import (
	"context"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// withExtraRow is the InferenceX preset with a 17th, advisory row that
// escalates: what a preset adding a row hands the app, with no app edit.
func withExtraRow() *checks.Preset {
	extra := &checks.Check{Number: 16, Name: checks.T("Extra", "额外"), Advisory: true, Escalates: true,
		Run: func(context.Context, *checks.PR) checks.Result { return checks.PassR(checks.T("ok", "好")) }}
	p := *inferencex.Preset
	p.Name = "inferencex-plus"
	p.Rows = append(append([]*checks.Check(nil), p.Rows...), extra)
	return &p
}

func TestAPresetsExtraRowNeedsNoRendererEdit(t *testing.T) {
	p := withExtraRow()
	rows := append(baseRows(), checks.Outcome{Number: 16, Advisory: true,
		Result: checks.Result{Status: checks.Warn, Reason: checks.T("look at this", "请看")}})
	v := verdictFor(rows)
	v.Preset = p
	v.Overall = checks.Decide(rows)
	body, err := Render(v)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	md := body.Markdown()
	for _, want := range []string{"Check 16 (Extra): WARN — look at this", "检查 16（额外）：警告 — 请看", "@maintainer-a"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
	if _, err := JSON(v); err != nil {
		t.Errorf("json: %v", err)
	}
	// The guard holds the text to the preset it is handed: 16 rows are
	// not a complete verdict of the 17-row preset, and the 17th row is
	// not a row of the 16-row one.
	v16 := verdictFor(baseRows())
	en, err := v16.verdictText(EN)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(en, p); err == nil || !strings.Contains(err.Error(), "Check 16 is missing") {
		t.Errorf("16 rows against the 17-row preset: %v", err)
	}
	en17, err := v.verdictText(EN)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(en17, inferencex.Preset); err == nil || !strings.Contains(err.Error(), "not a row of the inferencex checklist") {
		t.Errorf("a 17th row against the 16-row preset: %v", err)
	}
	// An advisory row of the preset may not FAIL; a blocking one may not WARN.
	if err := Validate(strings.Replace(en17, "⚠️ Check 16 (Extra): WARN", "❌ Check 16 (Extra): FAIL", 1), p); err == nil {
		t.Error("the advisory 17th row FAILed unnoticed")
	}
}
