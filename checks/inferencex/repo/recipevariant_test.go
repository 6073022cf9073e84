package repo

import (
	"slices"
	"testing"
)

func TestSplitRecipeSelector(t *testing.T) {
	for _, tc := range []struct{ in, path, sel string }{
		{"recipes/glm5.2/agentx.yaml:zip_override_mtp_agentx_hightpt[0]", "recipes/glm5.2/agentx.yaml", "zip_override_mtp_agentx_hightpt[0]"},
		{"recipes/k3/agg-variants.yaml:override_dcp8_dspark4", "recipes/k3/agg-variants.yaml", "override_dcp8_dspark4"},
		{"a/b.yml:base", "a/b.yml", "base"},
		{"a/b.yaml:zip_override_x", "a/b.yaml", "zip_override_x"},
		{"a/b.yaml", "a/b.yaml", ""},
		{"a/b.yaml:something", "a/b.yaml:something", ""},
		{" a/b.yaml ", "a/b.yaml", ""},
	} {
		p, s := SplitRecipeSelector(tc.in)
		if p != tc.path || s != tc.sel {
			t.Errorf("SplitRecipeSelector(%q) = %q, %q", tc.in, p, s)
		}
	}
}

func TestSelects(t *testing.T) {
	for _, tc := range []struct {
		sel, variant string
		want         bool
	}{
		{"", "", false}, {"", "override_a", true}, {"", "zip_override_z[1]", true},
		{"base", "", true}, {"base", "override_a", false},
		{"override_a", "override_a", true}, {"override_a", "override_ab", false},
		{"zip_override_z", "zip_override_z[0]", true}, {"zip_override_z", "zip_override_zz[0]", false},
		{"zip_override_z[1]", "zip_override_z[1]", true}, {"zip_override_z[1]", "zip_override_z[0]", false},
	} {
		if got := Selects(tc.sel, tc.variant); got != tc.want {
			t.Errorf("Selects(%q, %q) = %v", tc.sel, tc.variant, got)
		}
	}
}

func TestRecipeRefs(t *testing.T) {
	l := E2ELayout()
	refs := RecipeRefs(l, SearchSpace{SrtRecipe: "benchmarks/multi_node/srt-slurm-recipes/k3/agg.yaml:override_c1",
		ConfigFiles: []string{"recipes/glm/x.yaml:zip_override_lat[2]", "/abs/outside.yaml", "glm5.2-fp8-h200.yaml"}})
	want := []RecipeRef{
		{Path: "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/k3/agg.yaml", Selector: "override_c1"},
		{Path: "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/glm/x.yaml", Selector: "zip_override_lat[2]"},
		// A bare name is an llm-d recipe.
		{Path: "inferencex-e2e/benchmarks/multi_node/llm-d-recipes/glm5.2-fp8-h200.yaml"},
	}
	if !slices.Equal(refs, want) {
		t.Fatalf("refs %+v", refs)
	}
}
