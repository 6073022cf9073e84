package checks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

// Shared fixtures for the tests of Checks 3, 11, 12, 13 and 15. They build
// the change-set model directly so the checks are tested on their own rules.

const (
	specHead    = "1a2b3c4d5e6f7081920a1b2c3d4e5f6071829304"
	specBase    = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0"
	specDefault = "d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0"
)

// specPR builds a PR whose change set is cs and whose sign-off carries detail
// in its Additional detail section.
func specPR(t *testing.T, cs *checks.ChangeSet, src *checkstest.Source, layout checks.Layout, detail string) *checks.PR {
	t.Helper()
	if src == nil {
		src = &checkstest.Source{}
	}
	settings := checks.Defaults()
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Verified things\n### Additional detail section:\n" + detail + "\nSigned: `owner-a`\n"
	pr := &checks.PR{
		Owner: "SemiAnalysisAI", Repo: "InferenceX", Number: 3301,
		HeadSHA: specHead, BaseSHA: specBase, BaseTip: specBase, DefaultSHA: specDefault,
		SignOff:  checks.ParseSignOff(body),
		Settings: &settings,
		Layout:   layout,
		Source:   src,
	}
	if cs != nil {
		if _, err := checks.Memo(pr, "changeset", func() (*checks.ChangeSet, error) { return cs, nil }); err != nil {
			t.Fatal(err)
		}
	}
	return pr
}

// specRun runs a check and finalizes its result as the runner does.
func specRun(c checks.Check, pr *checks.PR) checks.Result {
	return c.Finalize(c.Run(context.Background(), pr))
}

func specSet(file, role, kind, name, value string, line int) checks.Setting {
	return checks.Setting{Name: name, Value: value, File: file, Line: line, Role: role, Kind: kind}
}

// specEntry is a master entry with one scenario and one search-space element.
func specEntry(key, prefix, framework string, agentic, spec bool, ss checks.SearchSpace) *checks.ConfigEntry {
	typ := "fixed-seq-len"
	if agentic {
		typ = "agentic-coding"
	}
	return &checks.ConfigEntry{
		Key: key, File: "configs/nvidia-master.yaml", Image: "lmsysorg/sglang:v0.5.20-cu130",
		Model: "org/model", ModelPrefix: prefix, Runner: "b200", Precision: "fp8", Framework: framework,
		Scenarios:  []checks.Scenario{{Type: typ, Search: []checks.SearchSpace{ss}}},
		SKU:        "b200",
		Agentic:    agentic,
		SpecDecode: spec,
		OpenSource: strings.Contains(framework, "vllm") || strings.Contains(framework, "sglang"),
	}
}

func specCheck(t *testing.T, r checks.Result, status checks.Status, reason string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %s, want %s (reason %q)", r.Status, status, r.Reason.EN)
	}
	if !strings.Contains(r.Reason.EN, reason) {
		t.Fatalf("reason = %q, want it to contain %q", r.Reason.EN, reason)
	}
	if r.Reason.ZH == "" || strings.Contains(r.Reason.EN, "\n") || strings.Contains(r.Reason.ZH, "\n") {
		t.Fatalf("reason must be one line in both languages: %+v", r.Reason)
	}
}
