package serving

import (
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Band is a set of a config's benchmark points served the same way: one job
// of a recipe with variants (RULES.md, Check 11), or the whole config when
// its recipes have none.
type Band struct {
	// Variant is the recipe variant ("override_c1", "zip_override_x[0]",
	// "base" when a selector names the base); "" when the config's recipes
	// have no variants.
	Variant string
	// Points names the band's concurrencies ("conc 1, 2"), "" when unknown.
	Points string
	// Settings are the band's settings: the recipe's base with the
	// variant's keys replaced (a null one removed), with the other effective
	// files' settings.
	Settings []repo.Setting
	// NoDraft is set when the variant removes the draft with a null
	// override of a speculative setting; NullAt says where.
	NoDraft bool
	NullAt  string
}

// Label names the band in reasons: "override_c1, conc 1, 2".
func (b Band) Label() string {
	if b.Points == "" {
		return b.Variant
	}
	return b.Variant + ", " + b.Points
}

// Bands splits a config into the bands its recipe variants serve. Each
// search-space element runs the variants its recipe's selector names (all
// override and zip jobs without one, as srtctl does); a band's points are
// the variant's own benchmark concurrencies, else the element's.
func Bands(c *repo.ConfigEntry, l repo.Layout, files []*repo.EffectiveFile) []Band {
	byPath := map[string]*repo.EffectiveFile{}
	var variantFiles []*repo.EffectiveFile
	for _, f := range files {
		if f == nil || f.Kind != "recipe" {
			continue
		}
		byPath[f.Path] = f
		if len(variantsOf(f)) > 0 {
			variantFiles = append(variantFiles, f)
		}
	}
	if len(variantFiles) == 0 {
		return []Band{{Settings: AllSettings(files)}}
	}
	type job struct {
		file    *repo.EffectiveFile
		variant string
		conc    []int
	}
	var jobs []job
	seen := map[string]bool{}
	add := func(f *repo.EffectiveFile, sel string, conc []int) {
		if sel == "base" {
			if k := f.Path + "\x00"; !seen[k] {
				seen[k] = true
				jobs = append(jobs, job{f, "", conc})
			}
			return
		}
		for _, v := range variantsOf(f) {
			if k := f.Path + "\x00" + v; repo.Selects(sel, v) && !seen[k] {
				seen[k] = true
				jobs = append(jobs, job{f, v, conc})
			}
		}
	}
	for _, sc := range c.Scenarios {
		for _, ss := range sc.Search {
			for _, ref := range repo.RecipeRefs(l, ss) {
				if f := byPath[ref.Path]; f != nil && len(variantsOf(f)) > 0 {
					add(f, ref.Selector, ss.Conc)
				}
			}
		}
	}
	for _, f := range variantFiles {
		// A variant recipe the search space names no way Bands can map:
		// every job of it is assessed.
		if !anyJob(seen, f.Path) {
			add(f, "", nil)
		}
	}
	if len(jobs) == 0 {
		return []Band{{Settings: AllSettings(files)}}
	}
	var out []Band
	for _, j := range jobs {
		var others []*repo.EffectiveFile
		for _, f := range files {
			if f != nil && f != j.file {
				others = append(others, baseOnly(f))
			}
		}
		merged, nullAt := mergeVariant(j.file, j.variant)
		b := Band{Variant: j.variant, Points: bandPoints(j.file, j.variant, j.conc), NullAt: nullAt, NoDraft: nullAt != ""}
		if j.variant == "" {
			b.Variant = "base"
		}
		b.Settings = append(AllSettings(others), AllSettings([]*repo.EffectiveFile{merged})...)
		out = append(out, b)
	}
	return out
}

func anyJob(seen map[string]bool, p string) bool {
	for k := range seen {
		if strings.HasPrefix(k, p+"\x00") {
			return true
		}
	}
	return false
}

// variantsOf lists a recipe's variant names in file order.
func variantsOf(f *repo.EffectiveFile) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range f.Settings {
		if s.Variant != "" && !seen[s.Variant] {
			seen[s.Variant] = true
			out = append(out, s.Variant)
		}
	}
	return out
}

// baseOnly is f without its variant settings.
func baseOnly(f *repo.EffectiveFile) *repo.EffectiveFile {
	c := *f
	c.Settings = nil
	for _, s := range f.Settings {
		if s.Variant == "" {
			c.Settings = append(c.Settings, s)
		}
	}
	return &c
}

// settingKey identifies a setting across base and variant, as srtctl's deep
// merge does: the same key of the same role.
func settingKey(s repo.Setting) string {
	return s.Role + "\x00" + s.Kind + "\x00" + KnobName(s.Name)
}

// mergeVariant is f's base with variant's keys replacing the base's and its
// null keys removing them. nullAt names the first speculative setting the
// variant removes, "" when it removes none.
func mergeVariant(f *repo.EffectiveFile, variant string) (merged *repo.EffectiveFile, nullAt string) {
	over := map[string]bool{}
	var mine []repo.Setting
	for _, s := range f.Settings {
		if s.Variant != variant {
			continue
		}
		over[settingKey(s)] = true
		if s.Null {
			if nullAt == "" && draftKnob(KnobName(s.Name)) {
				nullAt = KnobSource{Name: s.Name, Setting: s}.Where()
			}
			continue
		}
		mine = append(mine, s)
	}
	c := *f
	c.Settings = nil
	for _, s := range f.Settings {
		if s.Variant == "" && !over[settingKey(s)] {
			c.Settings = append(c.Settings, s)
		}
	}
	c.Settings = append(c.Settings, mine...)
	return &c, nullAt
}

// draftKnob reports whether a normalized setting name configures the draft:
// its method, model or length.
func draftKnob(n string) bool {
	switch n {
	case "num-speculative-tokens", "max-draft-len", "num-nextn-predict-layers", "decoding-type", "draft-model", "method":
		return true
	}
	return strings.HasPrefix(n, "speculative")
}

// bandPoints names a job's concurrencies: the variant's own
// benchmark.concurrencies, else those of the search-space element.
func bandPoints(f *repo.EffectiveFile, variant string, conc []int) string {
	var vals []string
	for _, s := range f.Settings {
		if s.Variant == variant && !s.Null && strings.HasSuffix(s.Name, "benchmark.concurrencies") {
			vals = append(vals, strings.Trim(s.Value, "[] "))
		}
	}
	if len(vals) == 0 {
		for _, c := range conc {
			vals = append(vals, strconv.Itoa(c))
		}
	}
	if len(vals) == 0 {
		return ""
	}
	return "conc " + strings.Join(vals, ", ")
}
