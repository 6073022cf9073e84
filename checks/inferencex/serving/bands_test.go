package serving

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestBands(t *testing.T) {
	const rec = "benchmarks/multi_node/srt-slurm-recipes/x/variants.yaml"
	sets, err := repo.ParseSrtRecipe(rec, []byte(`base:
  roles:
    agg:
      args: {speculative-num-steps: 3, tp-size: 8}
override_a:
  roles:
    agg:
      args: {speculative-num-steps: 2}
override_b:
  roles:
    agg:
      args: {speculative-config: null}
`))
	if err != nil {
		t.Fatal(err)
	}
	script := &repo.EffectiveFile{Path: "benchmarks/lib.sh", Kind: "helper", Settings: []repo.Setting{{Name: "HELPER", Value: "1", Kind: "env"}}}
	files := []*repo.EffectiveFile{{Path: rec, Kind: "recipe", Settings: sets}, script}
	summary := func(bs []Band) string {
		var out []string
		for _, b := range bs {
			var names []string
			for _, s := range b.Settings {
				names = append(names, s.Name+"="+s.Value)
			}
			out = append(out, b.Label()+":"+strings.Join(names, ",")+map[bool]string{true: ":nodraft"}[b.NoDraft])
		}
		return strings.Join(out, " | ")
	}
	for _, tc := range []struct {
		name string
		ss   repo.SearchSpace
		want string
	}{
		{"no selector: every job", repo.SearchSpace{SrtRecipe: rec, Conc: []int{4}},
			"override_a, conc 4:HELPER=1,tp-size=8,speculative-num-steps=2 | override_b, conc 4:HELPER=1,speculative-num-steps=3,tp-size=8:nodraft"},
		{"a selector", repo.SearchSpace{SrtRecipe: rec + ":override_a", Conc: []int{1, 2}},
			"override_a, conc 1, 2:HELPER=1,tp-size=8,speculative-num-steps=2"},
		{"base", repo.SearchSpace{SrtRecipe: rec + ":base"},
			"base:HELPER=1,speculative-num-steps=3,tp-size=8"},
		{"a path the search space does not name", repo.SearchSpace{SrtRecipe: "elsewhere.yaml"},
			"override_a:HELPER=1,tp-size=8,speculative-num-steps=2 | override_b:HELPER=1,speculative-num-steps=3,tp-size=8:nodraft"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &repo.ConfigEntry{Scenarios: []repo.Scenario{{Search: []repo.SearchSpace{tc.ss}}}}
			if got := summary(Bands(c, repo.LegacyLayout(), files)); got != tc.want {
				t.Errorf("bands\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	// A config whose recipes have no variants is one band of every setting.
	plain := []*repo.EffectiveFile{script}
	if bs := Bands(&repo.ConfigEntry{}, repo.LegacyLayout(), plain); len(bs) != 1 || bs[0].Variant != "" || len(bs[0].Settings) != 1 {
		t.Fatalf("plain bands %+v", bs)
	}
}
