package sweep

import (
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Coverage is what a run's eval rows say about one affected config
// (RULES.md, Check 2): the rows of its own model prefix, hardware,
// framework, precision and spec-decoding method.
type Coverage struct {
	Config *repo.ConfigEntry
	Rows   []EvalRow
	// UnknownSpec counts rows that match the config in everything but do
	// not say their spec-decoding method, so cannot cover it.
	UnknownSpec int
}

// Covered reports whether at least one row covers the config.
func (c Coverage) Covered() bool { return len(c.Rows) > 0 }

// Identity names what a covering row must match, as "qwen3.5 mi355x sglang
// fp8 spec mtp".
func (c Coverage) Identity() string {
	e := c.Config
	return strings.Join([]string{e.ModelPrefix, repo.NormalizeSKU(e.Runner), strings.ToLower(e.Framework),
		strings.ToLower(e.Precision), "spec " + strings.Join(SpecMethods(e), "/")}, " ")
}

// Cover finds the rows that cover c. An eval of another model, another
// SKU, framework or precision, or of a draft setup the config does not run
// says nothing about the config.
func Cover(rows []EvalRow, c *repo.ConfigEntry) Coverage {
	out := Coverage{Config: c}
	methods := map[string]bool{}
	for _, m := range SpecMethods(c) {
		methods[m] = true
	}
	for _, r := range rows {
		if !strings.EqualFold(r.ModelPrefix, c.ModelPrefix) || c.ModelPrefix == "" ||
			repo.NormalizeSKU(r.HW) != repo.NormalizeSKU(c.Runner) ||
			!strings.EqualFold(r.Framework, c.Framework) || !strings.EqualFold(r.Precision, c.Precision) {
			continue
		}
		switch {
		case r.SpecDecoding == "":
			out.UnknownSpec++
		case methods[r.SpecDecoding]:
			out.Rows = append(out.Rows, r)
		}
	}
	return out
}

// SpecMethods are the spec-decoding methods a config's search spaces run,
// lowercased and sorted, "none" for an element without one (as the sweep
// generator defaults it).
func SpecMethods(c *repo.ConfigEntry) []string {
	set := map[string]bool{}
	for _, sc := range c.Scenarios {
		for _, ss := range sc.Search {
			m := strings.ToLower(strings.TrimSpace(ss.SpecDecoding))
			if m == "" {
				m = "none"
			}
			set[m] = true
		}
	}
	if len(set) == 0 {
		set["none"] = true
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// RowIdentity names what a row is an eval of, in Coverage.Identity's form.
func RowIdentity(r EvalRow) string {
	spec := r.SpecDecoding
	if spec == "" {
		spec = "unknown"
	}
	return strings.Join([]string{r.ModelPrefix, repo.NormalizeSKU(r.HW), strings.ToLower(r.Framework),
		strings.ToLower(r.Precision), "spec " + spec}, " ")
}
