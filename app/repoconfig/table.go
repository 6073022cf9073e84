package repoconfig

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
)

// table is the key table of a set of served presets: the app's keys and
// every preset's, the one Go type they decode into together (the app's
// Config, then each preset's settings, all inline), and the defaults. A
// file is checked against all of them, since the preset is chosen only
// afterwards (Bind), which then refuses another preset's keys.
type table struct {
	typ   reflect.Type
	specs map[string]*keySpec
	// presets are the presets with keys of their own, in field order after
	// the app's Config (field 0).
	presets []*checks.Preset
	// owner is the preset of each top-level key a preset adds.
	owner map[string]*checks.Preset
}

// tables caches the table of each set of presets: a server serves one set.
var tables sync.Map // string (the presets' addresses) -> *table

// tableFor returns the key table of presets. Two tables that name one key
// are a programming error, reported for every file (and by a test).
func tableFor(presets []*checks.Preset) (*table, error) {
	var id strings.Builder
	for _, p := range presets {
		fmt.Fprintf(&id, "%p,", p)
	}
	if t, ok := tables.Load(id.String()); ok {
		return t.(*table), nil
	}
	t, err := newTable(presets)
	if err != nil {
		return nil, err
	}
	tables.Store(id.String(), t)
	return t, nil
}

func newTable(presets []*checks.Preset) (*table, error) {
	t := &table{specs: map[string]*keySpec{}, owner: map[string]*checks.Preset{}}
	for path, s := range appSpecs {
		t.specs[path] = s
	}
	top := map[string]string{}
	for _, k := range structKeys(reflect.TypeOf(Config{})) {
		top[k.name] = "the app"
	}
	fields := []reflect.StructField{{Name: "App", Type: reflect.TypeOf(Config{}), Tag: `yaml:",inline"`}}
	for _, p := range presets {
		if p.Settings == nil {
			continue
		}
		typ := p.Settings.Default().Type()
		if typ.Kind() != reflect.Struct {
			return nil, fmt.Errorf("preset %s: settings of type %s, want a struct", p.Name, typ)
		}
		for _, k := range structKeys(typ) {
			if by, ok := top[k.name]; ok {
				return nil, fmt.Errorf("preset %s: key %s is also %s's", p.Name, k.name, by)
			}
			top[k.name] = "preset " + p.Name
			t.owner[k.name] = p
		}
		for _, k := range p.Settings.Keys {
			if _, ok := t.specs[k.Path]; ok {
				return nil, fmt.Errorf("preset %s: key %s is listed twice", p.Name, k.Path)
			}
			if first, _, _ := strings.Cut(k.Path, "."); t.owner[first] != p {
				return nil, fmt.Errorf("preset %s: its key table lists %s, which its settings do not have", p.Name, k.Path)
			}
			t.specs[k.Path] = spec(k)
		}
		t.presets = append(t.presets, p)
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("Preset%d", len(t.presets)), Type: typ, Tag: `yaml:",inline"`})
	}
	t.typ = reflect.StructOf(fields)
	return t, nil
}

// defaults is a new value of the table's type holding every default.
func (t *table) defaults() reflect.Value {
	v := reflect.New(t.typ).Elem()
	v.Field(0).Set(reflect.ValueOf(Default()))
	for i, p := range t.presets {
		v.Field(i + 1).Set(p.Settings.Default())
	}
	return v
}

// presetKey is a top-level key of a file that a preset adds, where the
// file sets it (merged in through an alias included).
type presetKey struct {
	Key, Preset  string
	Line, Column int
}

// presetKeys are the keys of idx (the walker's, by concrete path) that the
// table's presets add, in file order.
func (t *table) presetKeys(idx map[string]*yaml.Node) []presetKey {
	var out []presetKey
	for path, n := range idx {
		if p := t.owner[path]; p != nil {
			out = append(out, presetKey{Key: path, Preset: p.Name, Line: n.Line, Column: n.Column})
		}
	}
	slices.SortFunc(out, func(a, b presetKey) int { return cmp.Or(a.Line-b.Line, a.Column-b.Column) })
	return out
}

// config is the app's part of a value of the table's type.
func config(v reflect.Value) Config { return v.Field(0).Interface().(Config) }
