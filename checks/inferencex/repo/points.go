package repo

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// The benchmark points a master entry asks for: one point per concurrency of
// each search-space element, identified by its shape — the scenario and
// element fields other than the concurrency range — so that "the same point"
// means the same shape at the same concurrency.

// ConfigPoint is one benchmark point of a config.
type ConfigPoint struct {
	Key      string
	Scenario string
	// Shape is the canonical form of every field that shapes the point
	// except concurrency: scenario fields (isl, osl, dram-utilization, …)
	// and the element's fields (tp, ep, dp-attn, srt-recipe, …).
	Shape string
	Conc  int
	// Desc is the short human form reasons print (tp=8 ep=8 conc=24).
	Desc string
}

// ID is the point's identity within one config.
func (p ConfigPoint) ID() string { return p.Shape + fmt.Sprintf("\x00conc=%d", p.Conc) }

// concFields are the element fields that only enumerate concurrency.
var concFields = map[string]bool{"conc-list": true, "conc-start": true, "conc-end": true}

// ConfigPoints expands an entry's search spaces into points, sorted.
// Concurrency lists come from the master reader's expansion (conc-list as
// given; conc-start..conc-end doubling, end included).
func ConfigPoints(c *ConfigEntry) []ConfigPoint {
	var out []ConfigPoint
	for _, sc := range c.Scenarios {
		scen := map[string]any{}
		for k, v := range sc.Fields.Map() {
			if k != "search-space" {
				scen[k] = v
			}
		}
		if len(scen) == 0 {
			scen["isl"], scen["osl"] = sc.ISL, sc.OSL
		}
		for _, ss := range sc.Search {
			el := map[string]any{}
			fields := ss.Fields.Map()
			for k, v := range fields {
				if !concFields[k] {
					el[k] = v
				}
			}
			if len(fields) == 0 {
				el["tp"], el["ep"], el["pp"], el["spec-decoding"], el["srt-recipe"] = ss.TP, ss.EP, ss.PP, ss.SpecDecoding, ss.SrtRecipe
			}
			shape := sc.Type + "|" + canonical(scen) + "|" + canonical(el)
			for _, conc := range ss.Conc {
				out = append(out, ConfigPoint{Key: c.Key, Scenario: sc.Type, Shape: shape, Conc: conc, Desc: pointDesc(ss, conc)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Shape != out[j].Shape {
			return out[i].Shape < out[j].Shape
		}
		return out[i].Conc < out[j].Conc
	})
	return out
}

// canonical is a deterministic encoding of decoded YAML (encoding/json sorts
// map keys); values it cannot encode fall back to their printed form.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func pointDesc(ss SearchSpace, conc int) string {
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
	if v, ok := ss.Fields.Get("dp-attn"); ok && fmt.Sprint(v) == "true" {
		parts = append(parts, "dp-attn")
	}
	if ss.KVOffloading != "" && ss.KVOffloading != "none" {
		parts = append(parts, "kv-offloading="+ss.KVOffloading)
	}
	parts = append(parts, fmt.Sprintf("conc=%d", conc))
	return strings.Join(parts, " ")
}

// TopLevelDiff lists the top-level fields (other than scenarios) that differ
// between two versions of an entry, sorted.
func TopLevelDiff(a, b *ConfigEntry) []string {
	ra, rb := a.Raw.Map(), b.Raw.Map()
	if ra == nil || rb == nil {
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
	for k := range ra {
		keys[k] = true
	}
	for k := range rb {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if k == "scenarios" {
			continue
		}
		if !reflect.DeepEqual(ra[k], rb[k]) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ScenarioTypes lists an entry's scenario types, sorted and unique.
func ScenarioTypes(c *ConfigEntry) []string {
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

// ScenarioContent is the canonical content of all scenarios of one type.
func ScenarioContent(c *ConfigEntry, typ string) string {
	var parts []string
	for _, s := range c.Scenarios {
		if s.Type != typ {
			continue
		}
		if m := s.Fields.Map(); m != nil {
			parts = append(parts, canonical(m))
			continue
		}
		for _, p := range ConfigPoints(&ConfigEntry{Key: c.Key, Scenarios: []Scenario{s}}) {
			parts = append(parts, p.ID())
		}
	}
	return strings.Join(parts, "\n")
}
