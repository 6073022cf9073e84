package repo

import (
	"reflect"
	"sync"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// Fields are the decoded fields of a master entry, a scenario or a
// search-space element, as yaml.v3 decodes them into map[string]any.
// Entries read through the fast path decode them on first use: of a master
// config's thousands of entries only the few a check looks into field by
// field are ever decoded into maps.
type Fields struct {
	m    map[string]any
	src  *entryText
	path fieldPath
}

// fieldPath locates a scenario or search-space element in its entry's
// decoded value by the indexes of the entry's own lists.
type fieldPath struct {
	scenario   string // "" for the entry itself
	item, elem int    // elem < 0 for the scenario item itself
}

// FieldsOf holds already decoded fields.
func FieldsOf(m map[string]any) Fields { return Fields{m: m} }

// Map returns the fields, nil when there are none. The map is shared and
// must not be modified.
func (f Fields) Map() map[string]any {
	if f.src == nil {
		return f.m
	}
	return f.src.at(f.path)
}

// Get returns one field.
func (f Fields) Get(k string) (any, bool) {
	v, ok := f.Map()[k]
	return v, ok
}

// entryText is the text of one master entry, decoded into maps on first
// use. Every copy of an entry (the base, head and default-branch readings
// of the same text) shares one.
type entryText struct {
	text string
	once sync.Once
	raw  map[string]any
}

func (t *entryText) value() map[string]any {
	t.once.Do(func() {
		// The fast path already read this text, so it decodes again.
		if v, err := yamlx.DecodeEntry(t.text); err == nil {
			t.raw, _ = v.(map[string]any)
		}
	})
	return t.raw
}

func (t *entryText) at(p fieldPath) map[string]any {
	raw := t.value()
	if p.scenario == "" {
		return raw
	}
	sc, _ := raw["scenarios"].(map[string]any)
	items, _ := sc[p.scenario].([]any)
	if p.item >= len(items) {
		return nil
	}
	m, _ := items[p.item].(map[string]any)
	if p.elem < 0 {
		return m
	}
	ss, _ := m["search-space"].([]any)
	if p.elem >= len(ss) {
		return nil
	}
	e, _ := ss[p.elem].(map[string]any)
	return e
}

// sameValue reports whether two readings of an entry decode to the same
// value: the same text is, without decoding either.
func sameValue(a, b *ConfigEntry) bool {
	if a == b || a.Raw.src != nil && b.Raw.src != nil && a.Raw.src.text == b.Raw.src.text {
		return true
	}
	return reflect.DeepEqual(a.Raw.Map(), b.Raw.Map())
}
