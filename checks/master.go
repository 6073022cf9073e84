package checks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
)

// LoadMasterConfigs returns every entry of the master configs (all
// *-master.yaml directly in Layout.ConfigsDir, so deprecated/ is excluded)
// at ref, classified as §4.0 says, memoized per ref. Files that cannot be
// read or parsed are InputProblems; the other files' entries are still
// returned. The error is set only when the configs directory cannot be
// listed at all.
func LoadMasterConfigs(ctx context.Context, pr *PR, ref string) (map[string]*ConfigEntry, []InputProblem, error) {
	type out struct {
		m  map[string]*ConfigEntry
		ps []InputProblem
	}
	o, err := Memo(pr, "master\x00"+ref, func() (out, error) {
		m, ps, err := loadMaster(ctx, pr, ref)
		return out{m, ps}, err
	})
	return o.m, o.ps, err
}

func loadMaster(ctx context.Context, pr *PR, ref string) (map[string]*ConfigEntry, []InputProblem, error) {
	dir := pr.Layout.ConfigsDir
	es, err := csList(ctx, pr, ref, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("loading master configs: %w", err)
	}
	var files []string
	for _, e := range es {
		if e.Type != "dir" && strings.HasSuffix(e.Name, "-master.yaml") {
			files = append(files, path.Join(dir, e.Name))
		}
	}
	sort.Strings(files)
	parsed := make([][]*ConfigEntry, len(files))
	probs := make([][]InputProblem, len(files))
	csForEach(csMaxReads, len(files), func(i int) {
		b, err := csRead(ctx, pr, ref, files[i])
		if err != nil {
			probs[i] = []InputProblem{{Path: files[i], Err: err.Error()}}
			return
		}
		parsed[i], probs[i] = parseMasterCached(pr, files[i], b)
	})
	m := map[string]*ConfigEntry{}
	var ps []InputProblem
	for i, f := range files {
		ps = append(ps, probs[i]...)
		for _, e := range parsed[i] {
			if prev, dup := m[e.Key]; dup {
				ps = append(ps, InputProblem{Path: f, Err: fmt.Sprintf("duplicate master key %s (also in %s:%d)", e.Key, prev.File, prev.Line)})
				continue
			}
			classify(e, pr.Settings)
			m[e.Key] = e
		}
	}
	return m, ps, nil
}

// parseMasterCached parses a master file, reusing the decoded entries of
// byte-identical entry chunks already parsed in this verification: the
// base, head and default-branch copies of a master config differ in a few
// entries, so each distinct entry is decoded once.
func parseMasterCached(pr *PR, file string, data []byte) ([]*ConfigEntry, []InputProblem) {
	cache, _ := Memo(pr, "masterchunks", func() (*chunkCache, error) { return &chunkCache{m: map[string]chunkResult{}}, nil })
	return parseMaster(file, data, cache)
}

// ParseMasterConfig parses one master-config file into entries (not yet
// classified). Problems are malformed YAML and duplicate keys.
func ParseMasterConfig(file string, data []byte) ([]*ConfigEntry, []InputProblem) {
	return parseMaster(file, data, nil)
}

func parseMaster(file string, data []byte, cache *chunkCache) ([]*ConfigEntry, []InputProblem) {
	chunks, err := splitTopLevel(data)
	if err != nil {
		return parseMasterWhole(file, data)
	}
	var out []*ConfigEntry
	var ps []InputProblem
	seen := map[string]int{}
	for _, c := range chunks {
		if l, dup := seen[c.key]; dup {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("line %d: duplicate key %q (first at line %d)", c.line, c.key, l)})
			continue
		}
		seen[c.key] = c.line
		proto, err := cache.entry(c.key, c.text)
		if err != nil {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("entry %s at line %d: %v", c.key, c.line, shiftYAMLError(err, c.line-1))})
			continue
		}
		e := new(ConfigEntry)
		*e = *proto
		e.File, e.Line = file, c.line
		out = append(out, e)
	}
	return out, ps
}

// entryFromRaw builds the typed view of one master entry. The scenario and
// search-space views are derived from Raw and never mutate it.
func entryFromRaw(key string, v any) (*ConfigEntry, error) {
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("entry is not a mapping")
	}
	e := &ConfigEntry{
		Key:         key,
		Raw:         raw,
		Image:       cfgStr(raw["image"]),
		Model:       cfgStr(raw["model"]),
		ModelPrefix: cfgStr(raw["model-prefix"]),
		Runner:      cfgStr(raw["runner"]),
		Precision:   cfgStr(raw["precision"]),
		Framework:   cfgStr(raw["framework"]),
		MultiNode:   cfgTruthy(raw["multinode"]),
		Disagg:      cfgTruthy(raw["disagg"]),
	}
	sc, _ := raw["scenarios"].(map[string]any)
	types := make([]string, 0, len(sc))
	for t := range sc {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		items, _ := sc[t].([]any)
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			s := Scenario{Type: t, ISL: cfgInt(m["isl"]), OSL: cfgInt(m["osl"]), Fields: m}
			ss, _ := m["search-space"].([]any)
			for _, x := range ss {
				if sm, ok := x.(map[string]any); ok {
					s.Search = append(s.Search, searchSpace(sm))
				}
			}
			e.Scenarios = append(e.Scenarios, s)
		}
	}
	return e, nil
}

// maxConcPoints bounds the expansion of a conc-start/conc-end range.
const maxConcPoints = 64

func searchSpace(m map[string]any) SearchSpace {
	s := SearchSpace{
		Fields:       m,
		TP:           cfgInt(m["tp"]),
		EP:           cfgInt(m["ep"]),
		PP:           cfgInt(m["pp"]),
		SpecDecoding: cfgStr(m["spec-decoding"]),
		SrtRecipe:    cfgStr(m["srt-recipe"]),
		KVOffloading: cfgStr(m["kv-offloading"]),
	}
	if l, ok := m["conc-list"].([]any); ok {
		for _, c := range l {
			s.Conc = append(s.Conc, cfgInt(c))
		}
	} else if lo, hi := cfgInt(m["conc-start"]), cfgInt(m["conc-end"]); lo > 0 && hi >= lo {
		// The sweep generator doubles from start to end, end included.
		for c := lo; c <= hi && len(s.Conc) < maxConcPoints; c *= 2 {
			s.Conc = append(s.Conc, c)
		}
		if s.Conc[len(s.Conc)-1] != hi && len(s.Conc) < maxConcPoints {
			s.Conc = append(s.Conc, hi)
		}
	}
	for _, role := range []string{"prefill", "decode"} {
		rm, _ := m[role].(map[string]any)
		as, _ := rm["additional-settings"].([]any)
		for _, a := range as {
			if v, ok := strings.CutPrefix(strings.TrimSpace(cfgStr(a)), "CONFIG_FILE="); ok {
				s.ConfigFiles = append(s.ConfigFiles, strings.Trim(v, `"'`))
			}
		}
	}
	return s
}

// classify fills the §4.0 classifications that the entry itself decides.
// Recipe-based spec-decode detection is added by the change-set builder for
// affected configs, whose recipes it reads.
func classify(e *ConfigEntry, s *Settings) {
	e.SKU = NormalizeSKU(e.Runner)
	k := strings.ToLower(e.Key)
	for _, sc := range e.Scenarios {
		if sc.Type == "agentic-coding" {
			e.Agentic = true
		}
		for _, ss := range sc.Search {
			if d := strings.ToLower(ss.SpecDecoding); d != "" && d != "none" {
				e.SpecDecode = true
			}
			if p := strings.ToLower(ss.SrtRecipe); strings.Contains(p, "agentic") || strings.Contains(p, "agentx") {
				e.Agentic = true
			}
		}
	}
	if strings.Contains(k, "agentic") || strings.Contains(k, "agentx") {
		e.Agentic = true
	}
	if strings.HasSuffix(k, "-mtp") || strings.Contains(k, "eagle") || strings.Contains(k, "dspark") {
		e.SpecDecode = true
	}
	if s != nil {
		e.OpenSource = s.IsOpenSource(e.Framework)
	}
}

// NormalizeSKU turns a runner into its SKU: drop a "cluster:" prefix,
// lowercase, keep the text before the first "-".
func NormalizeSKU(runner string) string {
	r := strings.ToLower(strings.TrimSpace(runner))
	r = strings.TrimPrefix(r, "cluster:")
	r, _, _ = strings.Cut(r, "-")
	return r
}

// diffKeys compares two master maps: keys only in head, keys in both whose
// decoded values differ, keys only in base. All sorted.
func diffKeys(base, head map[string]*ConfigEntry) (added, changed, removed []string) {
	for k, h := range head {
		b, ok := base[k]
		switch {
		case !ok:
			added = append(added, k)
		case b == h:
			// The entry cache hands out one value per distinct entry
			// text, so identical entries need no deep comparison.
		case !reflect.DeepEqual(b.Raw, h.Raw):
			changed = append(changed, k)
		}
	}
	for k := range base {
		if _, ok := head[k]; !ok {
			removed = append(removed, k)
		}
	}
	sort.Strings(added)
	sort.Strings(changed)
	sort.Strings(removed)
	return
}

func cfgStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func cfgTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(x) {
		case "true", "yes", "1":
			return true
		}
	case int:
		return x != 0
	}
	return false
}

func cfgInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case uint64:
		return int(x)
	case float64:
		return int(x)
	case string:
		var n int
		if _, err := fmt.Sscanf(x, "%d", &n); err == nil {
			return n
		}
	}
	return 0
}
