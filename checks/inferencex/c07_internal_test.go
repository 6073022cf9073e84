package inferencex

import (
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestNonSpecPoints(t *testing.T) {
	entry := func(specs ...string) *repo.ConfigEntry {
		var sp []repo.SearchSpace
		for _, s := range specs {
			sp = append(sp, repo.SearchSpace{SpecDecoding: s})
		}
		return &repo.ConfigEntry{Scenarios: []repo.Scenario{{Type: "agentic-coding", Search: sp}}}
	}
	for _, tc := range []struct {
		name  string
		specs []string
		want  bool
	}{
		{"every point drafts", []string{"dspark", "dspark"}, false},
		{"a point says none", []string{"dspark", "none"}, true},
		{"a point says nothing beside one that drafts", []string{"dspark", ""}, true},
		{"no point says anything", []string{"", ""}, false},
	} {
		if got := nonSpecPoints(entry(tc.specs...), "Agentic coding", recipeLookup{}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if nonSpecPoints(entry("dspark", "none"), "Single-turn 8k1k", recipeLookup{}) {
		t.Error("a point of another scenario counted")
	}
}
