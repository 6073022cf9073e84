package repo

import (
	"path"
	"regexp"
	"strings"
)

// Recipe variants (RULES.md, Check 11): an srt-slurm recipe with a base
// block expands to one job per override_* block and per zip_override_*
// index; a recipe path may end in a selector naming the jobs it runs.

// RecipeRef is a recipe a search-space element runs: the repository path of
// the recipe and the selector its value ends in ("" for none).
type RecipeRef struct {
	Path     string
	Selector string
}

// selectorRE is the selector suffix of a recipe path: base, an override_ or
// zip_override_ block, or one job of a zip block.
var selectorRE = regexp.MustCompile(`^(.*\.ya?ml):(base|override_[A-Za-z0-9_.-]+|zip_override_[A-Za-z0-9_.-]+(\[[0-9]+\])?)$`)

// SplitRecipeSelector splits "recipe.yaml:zip_override_x[0]" into the
// recipe path and its selector.
func SplitRecipeSelector(v string) (recipe, selector string) {
	v = strings.TrimSpace(v)
	if m := selectorRE.FindStringSubmatch(v); m != nil {
		return m[1], m[2]
	}
	return v, ""
}

// RecipeRefs are the recipes a search-space element runs, with their
// selectors.
func RecipeRefs(l Layout, ss SearchSpace) []RecipeRef {
	var out []RecipeRef
	if ss.SrtRecipe != "" {
		p, sel := SplitRecipeSelector(ss.SrtRecipe)
		out = append(out, RecipeRef{Path: path.Clean(path.Join(l.Root, p)), Selector: sel})
	}
	for _, cf := range ss.ConfigFiles {
		p, sel := SplitRecipeSelector(cf)
		if r := resolveConfigFile(l, p); r != "" {
			out = append(out, RecipeRef{Path: r, Selector: sel})
		}
	}
	return out
}

// Selects reports whether a recipe selector runs the variant (the name a
// setting's Variant holds, "" for base). Without a selector srtctl runs
// every override_* and zip_override_* job and not the base.
func Selects(selector, variant string) bool {
	switch {
	case selector == "":
		return variant != ""
	case selector == "base":
		return variant == ""
	case variant == selector:
		return true
	}
	return strings.HasPrefix(selector, "zip_override_") && !strings.Contains(selector, "[") &&
		strings.HasPrefix(variant, selector+"[")
}
