package checks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Benchmark points of a master entry (Check 12): one point per concurrency
// of each search-space element, identified by its recipe — the scenario and
// element fields other than the concurrency range — so that "the same point"
// means the same recipe at the same concurrency.

// BenchPoint is one benchmark point of a config.
type BenchPoint struct {
	Key      string
	Scenario string
	// Recipe is the canonical form of every field that shapes the point
	// except concurrency: scenario fields (isl, osl, dram-utilization, …)
	// and the element's fields (tp, ep, dp-attn, srt-recipe, …).
	Recipe string
	Conc   int
	// Desc is the short human form reasons print (tp=8 ep=8 conc=24).
	Desc string
}

// ID is the point's identity within one config.
func (p BenchPoint) ID() string { return p.Recipe + fmt.Sprintf("\x00conc=%d", p.Conc) }

// ptConcFields are the element fields that only enumerate concurrency.
var ptConcFields = map[string]bool{"conc-list": true, "conc-start": true, "conc-end": true}

// ConfigPoints expands an entry's search spaces into points, sorted.
// Concurrency lists come from the master reader's expansion (conc-list as
// given; conc-start..conc-end doubling, end included).
func ConfigPoints(c *ConfigEntry) []BenchPoint {
	var out []BenchPoint
	for _, sc := range c.Scenarios {
		scen := map[string]any{}
		for k, v := range sc.Fields {
			if k != "search-space" {
				scen[k] = v
			}
		}
		if len(scen) == 0 {
			scen["isl"], scen["osl"] = sc.ISL, sc.OSL
		}
		for _, ss := range sc.Search {
			el := map[string]any{}
			for k, v := range ss.Fields {
				if !ptConcFields[k] {
					el[k] = v
				}
			}
			if len(ss.Fields) == 0 {
				el["tp"], el["ep"], el["pp"], el["spec-decoding"], el["srt-recipe"] = ss.TP, ss.EP, ss.PP, ss.SpecDecoding, ss.SrtRecipe
			}
			recipe := sc.Type + "|" + ptCanon(scen) + "|" + ptCanon(el)
			for _, conc := range ss.Conc {
				out = append(out, BenchPoint{Key: c.Key, Scenario: sc.Type, Recipe: recipe, Conc: conc, Desc: ptDesc(ss, conc)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Recipe != out[j].Recipe {
			return out[i].Recipe < out[j].Recipe
		}
		return out[i].Conc < out[j].Conc
	})
	return out
}

// ptCanon is a deterministic encoding of decoded YAML (encoding/json sorts
// map keys); values it cannot encode fall back to their printed form.
func ptCanon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func ptDesc(ss SearchSpace, conc int) string {
	var parts []string
	if ss.TP > 0 {
		parts = append(parts, fmt.Sprintf("tp=%d", ss.TP))
	}
	if ss.EP > 1 {
		parts = append(parts, fmt.Sprintf("ep=%d", ss.EP))
	}
	if ss.PP > 1 {
		parts = append(parts, fmt.Sprintf("pp=%d", ss.PP))
	}
	if v, ok := ss.Fields["dp-attn"]; ok && fmt.Sprint(v) == "true" {
		parts = append(parts, "dp-attn")
	}
	if ss.KVOffloading != "" && ss.KVOffloading != "none" {
		parts = append(parts, "kv-offloading="+ss.KVOffloading)
	}
	parts = append(parts, fmt.Sprintf("conc=%d", conc))
	return strings.Join(parts, " ")
}

// aoTopLevelDiff lists the top-level fields (other than scenarios) that differ
// between two versions of an entry, sorted.
func aoTopLevelDiff(a, b *ConfigEntry) []string {
	if a.Raw == nil || b.Raw == nil {
		var out []string
		for _, f := range []struct {
			n    string
			x, y string
		}{{"image", a.Image, b.Image}, {"model", a.Model, b.Model}, {"model-prefix", a.ModelPrefix, b.ModelPrefix},
			{"runner", a.Runner, b.Runner}, {"precision", a.Precision, b.Precision}, {"framework", a.Framework, b.Framework}} {
			if f.x != f.y {
				out = append(out, f.n)
			}
		}
		if a.MultiNode != b.MultiNode {
			out = append(out, "multinode")
		}
		if a.Disagg != b.Disagg {
			out = append(out, "disagg")
		}
		return out
	}
	keys := map[string]bool{}
	for k := range a.Raw {
		keys[k] = true
	}
	for k := range b.Raw {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if k == "scenarios" {
			continue
		}
		if !reflect.DeepEqual(a.Raw[k], b.Raw[k]) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// aoScenarioTypes lists an entry's scenario types, sorted and unique.
func aoScenarioTypes(c *ConfigEntry) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range c.Scenarios {
		if !seen[s.Type] {
			seen[s.Type] = true
			out = append(out, s.Type)
		}
	}
	sort.Strings(out)
	return out
}

// aoScenarioCanon is the canonical content of all scenarios of one type.
func aoScenarioCanon(c *ConfigEntry, typ string) string {
	var parts []string
	for _, s := range c.Scenarios {
		if s.Type != typ {
			continue
		}
		if s.Fields != nil {
			parts = append(parts, ptCanon(s.Fields))
			continue
		}
		for _, p := range ConfigPoints(&ConfigEntry{Key: c.Key, Scenarios: []Scenario{s}}) {
			parts = append(parts, p.ID())
		}
	}
	return strings.Join(parts, "\n")
}
