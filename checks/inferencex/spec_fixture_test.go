package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
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
func specPR(t *testing.T, cs *changeset.Model, src *checkstest.Source, layout repo.Layout, detail string) *checks.PR {
	t.Helper()
	if src == nil {
		src = &checkstest.Source{}
	}
	opts := []checkstest.Option{
		checkstest.Identity("SemiAnalysisAI", "InferenceX", 3301),
		checkstest.Commits(specHead, specBase, specBase, specDefault),
	}
	if cs != nil {
		opts = append(opts, inferencextest.WithChangeSet(cs))
	}
	return inferencextest.NewPR(src, layout, detail, opts...)
}

// specRun runs a check through the real runner.
func specRun(t *testing.T, c *checks.Check, pr *checks.PR) checks.Result {
	t.Helper()
	return checkstest.RunOne(t, pr, c)
}

func specSet(file, role, kind, name, value string, line int) repo.Setting {
	return repo.Setting{Name: name, Value: value, File: file, Line: line, Role: role, Kind: kind}
}

// specEntry is a master entry with one scenario and one search-space element.
func specEntry(key, prefix, framework string, agentic, spec bool, ss repo.SearchSpace) *repo.ConfigEntry {
	typ := "fixed-seq-len"
	if agentic {
		typ = "agentic-coding"
	}
	return &repo.ConfigEntry{
		Key: key, File: "configs/nvidia-master.yaml", Image: "lmsysorg/sglang:v0.5.20-cu130",
		Model: "org/model", ModelPrefix: prefix, Runner: "b200", Precision: "fp8", Framework: framework,
		Scenarios:  []repo.Scenario{{Type: typ, Search: []repo.SearchSpace{ss}}},
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
