package repoconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// SchemaFile is where the generated schema is committed, relative to the
// repository root, for editors to validate verdict.yml against.
const SchemaFile = "deploy/verdict.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of verdict.yml with the
// keys of presets (the served ones), generated from the types, their
// defaults and the key tables, so it says what Check enforces (the same
// keys, types, enumerations, bounds and patterns).
func Schema(presets []*checks.Preset) ([]byte, error) {
	tb, err := tableFor(presets)
	if err != nil {
		return nil, err
	}
	def := tb.defaults()
	body, err := tb.typeSchema(def.Type(), def, "", nil)
	if err != nil {
		return nil, err
	}
	top := object{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"title", "Verdict repository configuration (" + Path + ")"},
		{"description", "Read from the default branch and merged over the defaults: the app's keys and those of every served preset; a repository may set only its own preset's. Lists replace the defaults; image_orgs and checks add to them."},
	}
	top = append(top, body...)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	return b.Bytes(), nil
}

// typeSchema is the schema of values of type t at specPath; def is the
// default value there (invalid when there is none); spec is the nearest
// table entry, whose constraints apply to the scalars below it.
func (tb *table) typeSchema(t reflect.Type, def reflect.Value, specPath string, spec *keySpec) (object, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		if def.IsValid() {
			if def.IsNil() {
				def = reflect.Value{}
			} else {
				def = def.Elem()
			}
		}
	}
	var o object
	switch {
	case t == nodeType:
		// The preset's own settings: the preset validates them.
		return object{{"type", "object"}}, nil
	}
	switch t.Kind() {
	case reflect.Struct:
		props := object{}
		for _, f := range structKeys(t) {
			sp := join(specPath, f.name)
			s := tb.specs[sp]
			if s == nil {
				return nil, fmt.Errorf("key %s has no entry in the key table", sp)
			}
			if s.Refused != nil {
				continue
			}
			var fd reflect.Value
			if def.IsValid() {
				fd = def.FieldByIndex(f.index)
			}
			fs, err := tb.typeSchema(f.typ, fd, sp, s)
			if err != nil {
				return nil, err
			}
			if s.Doc != "" {
				fs = append(object{{"description", s.Doc}}, fs...)
			}
			if d, ok := defaultOf(fd); ok {
				fs = append(fs, member{"default", d})
			}
			props = append(props, member{f.name, fs})
		}
		o = object{{"type", "object"}, {"properties", props}, {"additionalProperties", false}}
	case reflect.Map:
		elem, err := tb.typeSchema(t.Elem(), reflect.Value{}, join(specPath, "*"), orSpec(tb.specs[join(specPath, "*")], spec))
		if err != nil {
			return nil, err
		}
		keyPattern := ""
		if spec != nil {
			keyPattern = spec.KeyPattern
		}
		if keyPattern == "" && t.Key().Kind() == reflect.Int {
			keyPattern = `^-?[0-9]+$`
		}
		o = object{{"type", "object"}}
		if keyPattern != "" {
			o = append(o, member{"propertyNames", object{{"pattern", keyPattern}}})
		}
		o = append(o, member{"additionalProperties", elem})
	case reflect.Slice:
		elem, err := tb.typeSchema(t.Elem(), reflect.Value{}, specPath, spec)
		if err != nil {
			return nil, err
		}
		o = object{{"type", "array"}, {"items", elem}}
	case reflect.String:
		o = object{{"type", "string"}}
		if spec != nil && len(spec.Enum) > 0 {
			o = append(o, member{"enum", spec.Enum})
		}
		if spec != nil && spec.Pattern != "" {
			o = append(o, member{"pattern", spec.Pattern})
		}
	case reflect.Bool:
		o = object{{"type", "boolean"}}
	case reflect.Int, reflect.Int64:
		o = append(object{{"type", "integer"}}, bounds(spec)...)
	case reflect.Float64:
		o = append(object{{"type", "number"}}, bounds(spec)...)
	default:
		return nil, fmt.Errorf("key %s: no schema for Go type %s", specPath, t)
	}
	return o, nil
}

// defaultOf is the JSON default of a scalar, list or mapping key; structs
// carry their defaults on their own keys.
func defaultOf(v reflect.Value) (any, bool) {
	for v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	switch {
	case !v.IsValid(), v.Kind() == reflect.Struct:
		return nil, false
	case (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil():
		return nil, false
	}
	return v.Interface(), true
}

func orSpec(a, b *keySpec) *keySpec {
	if a != nil {
		return a
	}
	return b
}

func bounds(spec *keySpec) object {
	var o object
	if spec == nil {
		return o
	}
	if !math.IsNaN(spec.Min) {
		o = append(o, member{"minimum", spec.Min})
	}
	if !math.IsNaN(spec.Max) {
		o = append(o, member{"maximum", spec.Max})
	}
	return o
}

// structKey is one YAML key of a struct, with inline structs flattened.
type structKey struct {
	name  string
	typ   reflect.Type
	index []int
}

func structKeys(t reflect.Type) []structKey {
	var out []structKey
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for _, k := range structKeys(f.Type) {
				k.index = append([]int{i}, k.index...)
				out = append(out, k)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, structKey{name: name, typ: f.Type, index: []int{i}})
	}
	return out
}

// object is a JSON object that keeps its members in order, so the schema
// reads in the order of the key table.
type object []member

type member struct {
	Key   string
	Value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalNoEscape(m.Value)
		if err != nil {
			return nil, fmt.Errorf("schema member %s: %w", m.Key, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
