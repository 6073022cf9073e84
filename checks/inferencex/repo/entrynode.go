package repo

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// entryFromNode builds the typed view of one master entry straight from the
// fast parser's tree, as entryFromRaw builds it from the generic decoding
// (TestEntryFromNodeAgrees holds them to that), without building the maps:
// Raw and the scenario and search-space Fields decode from src on first use.
func entryFromNode(key string, v yamlx.Node, src *entryText) (*ConfigEntry, error) {
	if v.Kind() != yamlx.Mapping {
		return nil, errors.New("entry is not a mapping")
	}
	e := &ConfigEntry{Key: key, Raw: Fields{src: src}}
	var scenarios yamlx.Node
	hasScenarios := false
	v.Each(func(k string, x yamlx.Node) {
		switch k {
		case "image":
			e.Image = nodeStr(x)
		case "model":
			e.Model = nodeStr(x)
		case "model-prefix":
			e.ModelPrefix = nodeStr(x)
		case "runner":
			e.Runner = nodeStr(x)
		case "precision":
			e.Precision = nodeStr(x)
		case "framework":
			e.Framework = nodeStr(x)
		case "multinode":
			e.MultiNode = nodeTruthy(x)
		case "disagg":
			e.Disagg = nodeTruthy(x)
		case "scenarios":
			scenarios, hasScenarios = x, x.Kind() == yamlx.Mapping
		}
	})
	if !hasScenarios {
		return e, nil
	}
	type scenarioList struct {
		typ   string
		items yamlx.Node
	}
	var buf [4]scenarioList
	lists := buf[:0]
	scenarios.Each(func(t string, x yamlx.Node) { lists = append(lists, scenarioList{t, x}) })
	slices.SortFunc(lists, func(a, b scenarioList) int { return strings.Compare(a.typ, b.typ) })
	for _, l := range lists {
		if l.items.Kind() != yamlx.Sequence {
			continue
		}
		item := -1
		l.items.Each(func(_ string, m yamlx.Node) {
			item++
			if m.Kind() != yamlx.Mapping {
				return
			}
			s := Scenario{Type: l.typ, Fields: Fields{src: src, path: fieldPath{scenario: l.typ, item: item, elem: -1}}}
			m.Each(func(k string, x yamlx.Node) {
				switch k {
				case "isl":
					s.ISL = nodeInt(x)
				case "osl":
					s.OSL = nodeInt(x)
				case "search-space":
					if x.Kind() != yamlx.Sequence {
						return
					}
					s.Search = make([]SearchSpace, 0, x.Len())
					elem := -1
					x.Each(func(_ string, el yamlx.Node) {
						elem++
						if el.Kind() == yamlx.Mapping {
							s.Search = append(s.Search, searchSpaceNode(el, Fields{src: src, path: fieldPath{scenario: l.typ, item: item, elem: elem}}))
						}
					})
					if len(s.Search) == 0 {
						s.Search = nil
					}
				}
			})
			e.Scenarios = append(e.Scenarios, s)
		})
	}
	return e, nil
}

// searchSpaceNode is searchSpace read from the tree.
func searchSpaceNode(m yamlx.Node, f Fields) SearchSpace {
	s := SearchSpace{Fields: f}
	var concList yamlx.Node
	var roles [3]yamlx.Node // prefill, decode, an aggregated worker
	hasList, hasRole := false, [3]bool{}
	lo, hi := 0, 0
	m.Each(func(k string, x yamlx.Node) {
		switch k {
		case "tp":
			s.TP = nodeInt(x)
		case "ep":
			s.EP = nodeInt(x)
		case "pp":
			s.PP = nodeInt(x)
		case "spec-decoding":
			s.SpecDecoding = nodeStr(x)
		case "srt-recipe":
			s.SrtRecipe = nodeStr(x)
		case "kv-offloading":
			s.KVOffloading = nodeStr(x)
		case "conc-list":
			concList, hasList = x, x.Kind() == yamlx.Sequence
		case "conc-start":
			lo = nodeInt(x)
		case "conc-end":
			hi = nodeInt(x)
		case "prefill":
			roles[0], hasRole[0] = x, x.Kind() == yamlx.Mapping
		case "decode":
			roles[1], hasRole[1] = x, x.Kind() == yamlx.Mapping
		case "worker":
			roles[2], hasRole[2] = x, x.Kind() == yamlx.Mapping
		}
	})
	switch {
	case hasList:
		if n := concList.Len(); n > 0 {
			s.Conc = make([]int, 0, n)
			concList.Each(func(_ string, c yamlx.Node) { s.Conc = append(s.Conc, nodeInt(c)) })
		}
	case lo > 0 && hi >= lo:
		s.Conc = concRange(lo, hi)
	}
	for i, r := range roles {
		if !hasRole[i] {
			continue
		}
		as, ok := r.Get("additional-settings")
		if !ok || as.Kind() != yamlx.Sequence {
			continue
		}
		as.Each(func(_ string, a yamlx.Node) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(nodeStr(a)), "CONFIG_FILE="); ok {
				s.ConfigFiles = append(s.ConfigFiles, strings.Trim(v, `"'`))
			}
		})
	}
	return s
}

// nodeStr is cfgStr of the node's value.
func nodeStr(n yamlx.Node) string {
	switch n.Kind() {
	case yamlx.Null:
		return ""
	case yamlx.String:
		return n.Str()
	}
	return fmt.Sprint(n.Any())
}

// nodeTruthy is cfgTruthy of the node's value.
func nodeTruthy(n yamlx.Node) bool {
	switch n.Kind() {
	case yamlx.Bool:
		return n.Bool()
	case yamlx.String:
		return cfgTruthy(n.Str())
	case yamlx.Int:
		return n.Int() != 0
	}
	return false
}

// nodeInt is AsInt of the node's value.
func nodeInt(n yamlx.Node) int {
	switch n.Kind() {
	case yamlx.Int:
		return n.Int()
	case yamlx.Float:
		return int(n.Float())
	case yamlx.String:
		return AsInt(n.Str())
	}
	return 0
}
