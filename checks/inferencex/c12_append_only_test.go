package inferencex_test

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/perfchangelog"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// aoElem is one search-space element with its already-expanded concurrency.
type aoElem struct {
	fields map[string]any
	conc   []int
}

func aoEntry(key, image string, elems ...aoElem) *repo.ConfigEntry {
	var search []repo.SearchSpace
	var raw []any
	for _, e := range elems {
		tp, _ := e.fields["tp"].(int)
		ep, _ := e.fields["ep"].(int)
		sr, _ := e.fields["srt-recipe"].(string)
		search = append(search, repo.SearchSpace{Fields: repo.FieldsOf(e.fields), TP: tp, EP: ep, SrtRecipe: sr, Conc: e.conc})
		raw = append(raw, e.fields)
	}
	scen := map[string]any{"dram-utilization": 0.8, "search-space": raw}
	return &repo.ConfigEntry{
		Key: key, Image: image, ModelPrefix: "dsv4", Framework: "vllm", Runner: "b300",
		Raw:       repo.FieldsOf(map[string]any{"image": image, "model-prefix": "dsv4", "framework": "vllm", "scenarios": map[string]any{"agentic-coding": []any{scen}}}),
		Scenarios: []repo.Scenario{{Type: "agentic-coding", Fields: repo.FieldsOf(scen), Search: search}},
		Agentic:   true, SpecDecode: true,
	}
}

func TestAppendOnlyCheck(t *testing.T) {
	const key = "dsv4-fp4-b300-vllm-agentic-mtp"
	const img = "vllm/vllm-openai:v0.12.0"
	const recipe = "benchmarks/single_node/srt-slurm-recipes/dsv4/vllm/b300-fp4-mtp/agentic.yaml"
	tp8 := map[string]any{"tp": 8, "ep": 1, "srt-recipe": recipe, "conc-start": 4, "conc-end": 48}
	tp4 := map[string]any{"tp": 4, "ep": 1, "srt-recipe": recipe, "conc-list": []any{1, 4, 8, 16}}
	base := aoEntry(key, img, aoElem{tp8, []int{4, 8, 16, 32, 48}}, aoElem{tp4, []int{1, 4, 8, 16}})
	tp4new := map[string]any{"tp": 4, "ep": 1, "srt-recipe": recipe, "conc-list": []any{1, 2, 4, 6, 8, 16}}
	grown := aoEntry(key, img, aoElem{tp8, []int{4, 8, 16, 32, 48}}, aoElem{tp4new, []int{1, 2, 4, 6, 8, 16}})
	ao := perfchangelog.Entry{ConfigKeys: []string{key}, AppendOnly: true, Line: 120, Matched: []string{key}}
	regular := perfchangelog.Entry{ConfigKeys: []string{"other"}, Line: 128, Matched: []string{"other"}}

	type tcase struct {
		name    string
		entries []perfchangelog.Entry
		head    *repo.ConfigEntry
		base    *repo.ConfigEntry
		changed []string
		files   []*repo.EffectiveFile
		runs    []checks.CheckRun
		status  checks.Status
		reason  string
	}
	evalOnly := ao
	evalOnly.EvalsOnly = true
	tests := []tcase{
		{name: "no append-only entry", entries: []perfchangelog.Entry{regular}, status: checks.NA, reason: "No added changelog entry uses append-only: true."},
		{name: "S10 mixed entries", entries: []perfchangelog.Entry{ao, regular}, head: grown,
			status: checks.Fail, reason: "append-only entries cannot share a sweep with regular changelog entries."},
		{name: "eval selection", entries: []perfchangelog.Entry{evalOnly}, head: grown,
			status: checks.Fail, reason: "append-only entry at changelog line 120 cannot carry evals-only."},
		{name: "selected config missing at base", entries: []perfchangelog.Entry{ao}, head: grown, base: &repo.ConfigEntry{},
			status: checks.Fail, reason: "Selected config " + key + " does not exist at base"},
		{name: "other key changed", entries: []perfchangelog.Entry{ao}, head: grown, changed: []string{key, "dsv4-fp4-b200-vllm"},
			status: checks.Fail, reason: "changed configs not selected by its changelog entry: dsv4-fp4-b200-vllm."},
		{name: "happy path", entries: []perfchangelog.Entry{ao}, head: grown, changed: []string{key},
			status: checks.Pass, reason: "Adds conc 2, 6 to " + key + "; all 9 base points unchanged; no shared files changed."},
		{name: "S10 existing point removed", entries: []perfchangelog.Entry{ao}, changed: []string{key},
			head: aoEntry(key, img, aoElem{map[string]any{"tp": 8, "ep": 1, "srt-recipe": recipe, "conc-list": []any{4, 8, 16, 48, 64}}, []int{4, 8, 16, 48, 64}},
				aoElem{tp4, []int{1, 4, 8, 16}}),
			status: checks.Fail, reason: "Existing point tp=8 conc=32 removed from " + key + "."},
		{name: "existing recipe modified", entries: []perfchangelog.Entry{ao}, changed: []string{key},
			head: aoEntry(key, img, aoElem{map[string]any{"tp": 8, "ep": 8, "srt-recipe": recipe, "conc-start": 4, "conc-end": 48}, []int{4, 8, 16, 32, 48}},
				aoElem{tp4new, []int{1, 2, 4, 6, 8, 16}}),
			status: checks.Fail, reason: "Existing point tp=8 conc=4 removed from " + key + "."},
		{name: "image changed", entries: []perfchangelog.Entry{ao}, changed: []string{key},
			head:   aoEntry(key, "vllm/vllm-openai:v0.13.0", aoElem{tp8, []int{4, 8, 16, 32, 48}}, aoElem{tp4new, []int{1, 2, 4, 6, 8, 16}}),
			status: checks.Fail, reason: "Existing points of " + key + " modified: image changed."},
		{name: "no new point", entries: []perfchangelog.Entry{ao}, head: base,
			status: checks.Fail, reason: "Append-only entry adds no new point to " + key + "."},
		{name: "S10 shared launcher changed", entries: []perfchangelog.Entry{ao}, head: grown, changed: []string{key},
			files:  []*repo.EffectiveFile{{Path: "runners/launch_b300.sh", Kind: "launcher", Changed: true}, {Path: recipe, Kind: "recipe"}},
			status: checks.Fail, reason: "Needs human review: launcher change may affect existing points: runners/launch_b300.sh."},
		{name: "existing recipe file changed", entries: []perfchangelog.Entry{ao}, head: grown, changed: []string{key},
			files:  []*repo.EffectiveFile{{Path: "inferencex-e2e/" + recipe, Kind: "recipe", Changed: true}},
			status: checks.Fail, reason: "launcher change may affect existing points: inferencex-e2e/" + recipe},
		{name: "new recipe only for new points", entries: []perfchangelog.Entry{ao}, changed: []string{key},
			head: aoEntry(key, img, aoElem{tp8, []int{4, 8, 16, 32, 48}}, aoElem{tp4, []int{1, 4, 8, 16}},
				aoElem{map[string]any{"tp": 2, "srt-recipe": "x/new.yaml", "conc-list": []any{2}}, []int{2}}),
			files:  []*repo.EffectiveFile{{Path: "x/new.yaml", Kind: "recipe", Changed: true}},
			status: checks.Pass, reason: "Adds conc 2 to " + key},
		{name: "check-changelog failed", entries: []perfchangelog.Entry{ao}, head: grown, changed: []string{key},
			runs:   []checks.CheckRun{{Name: "check-changelog", Status: "completed", Conclusion: "failure", HTMLURL: "https://example.test/run/1"}},
			status: checks.Fail, reason: "check-changelog failure on 1a2b3c4."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if tc.base != nil {
				b = nil
			}
			cs := &changeset.Model{
				ChangelogAdded: tc.entries,
				MasterBase:     map[string]*repo.ConfigEntry{},
				MasterHead:     map[string]*repo.ConfigEntry{},
				ChangedKeys:    tc.changed,
				Effective:      map[string][]*repo.EffectiveFile{key: tc.files},
			}
			if b != nil {
				cs.MasterBase[key] = b
			}
			if tc.head != nil {
				cs.MasterHead[key] = tc.head
			}
			src := &checkstest.Source{Runs: map[string][]checks.CheckRun{specHead: tc.runs}}
			pr := specPR(t, cs, src, repo.LegacyLayout(), "")
			specCheck(t, specRun(t, inferencex.AppendOnly, pr), tc.status, tc.reason)
		})
	}
}

// A regular entry whose config key selects nothing is a changelog finding,
// but what it selects is known (nothing): with no append-only entry the
// row is N/A, not "could not be verified".
func TestAppendOnlyNAWithAKeyThatSelectsNothing(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		r := inferencextest.NewRepo(layout)
		r.AppendChangelog("dsr1-fp4-mi355x-sglang", "no-such-config-anywhere")
		res, _ := r.RunCheck(t, inferencex.AppendOnly)
		if res.Status != checks.NA {
			t.Errorf("%s: %s — %s", name, res.Status, res.Reason.EN)
		}
	}
}
