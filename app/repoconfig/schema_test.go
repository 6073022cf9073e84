package repoconfig

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

var update = flag.Bool("update", false, "rewrite "+SchemaFile+" from the Config type and the key table")

func repoFile(name string) string { return filepath.Join("..", "..", filepath.FromSlash(name)) }

// TestSchemaUpToDate keeps the committed schema equal to the generated one.
func TestSchemaUpToDate(t *testing.T) {
	got, err := Schema(served)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(repoFile(SchemaFile), got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(repoFile(SchemaFile))
	if err != nil {
		t.Fatalf("%v (generate it with go test ./app/repoconfig -run TestSchemaUpToDate -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go test ./app/repoconfig -run TestSchemaUpToDate -update", SchemaFile)
	}
}

// configPaths lists every key path of Config (mapping keys as *), the way
// the key table spells them.
func configPaths(t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType {
		return // the preset's own settings
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, k := range structKeys(t) {
			p := join(prefix, k.name)
			*out = append(*out, p)
			configPaths(k.typ, p, out)
		}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Struct {
			configPaths(t.Elem(), join(prefix, "*"), out)
		}
	case reflect.Slice:
		configPaths(t.Elem(), prefix, out)
	}
}

// TestKeyTableMatchesConfig: every key the app's Config and each served
// preset's settings decode has exactly one table entry, and every entry
// names a key they decode.
func TestKeyTableMatchesConfig(t *testing.T) {
	tb, err := tableFor(served)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	configPaths(tb.typ, "", &paths)
	have := map[string]bool{}
	for _, p := range paths {
		have[p] = true
		if tb.specs[p] == nil {
			t.Errorf("key %s has no entry in the key table (app/repoconfig/keys.go or its preset's)", p)
		} else if tb.specs[p].Doc == "" && tb.specs[p].Refused == nil {
			t.Errorf("key %s has no description", p)
		}
	}
	for p := range tb.specs {
		if !have[p] {
			t.Errorf("key table entry %s names no key that decodes", p)
		}
	}
}

// TestPresetKeysAreChecked: a table that lists a key its preset's settings
// lack, or a preset key that is also the app's or another preset's, is
// refused, so a file is never checked against a wrong table.
func TestPresetKeysAreChecked(t *testing.T) {
	type own struct {
		Depth int `yaml:"depth"`
	}
	type clash struct {
		Context string `yaml:"status"`
	}
	settings := func(v any, keys ...checks.SettingKey) *checks.Settings {
		return &checks.Settings{Default: func() reflect.Value { return reflect.ValueOf(v) }, Keys: keys}
	}
	depth := checks.SettingKey{Path: "depth", Doc: "How deep.", Min: 1, Max: 3}
	tests := []struct {
		name    string
		presets []*checks.Preset
		wantErr string
	}{
		{"own key", []*checks.Preset{{Name: "a", Settings: settings(own{Depth: 2}, depth)}}, ""},
		{"undeclared key", []*checks.Preset{{Name: "a", Settings: settings(own{}, checks.SettingKey{Path: "width"})}}, "lists width"},
		{"the app's key", []*checks.Preset{{Name: "a", Settings: settings(clash{})}}, "key status is also the app's"},
		{"two presets", []*checks.Preset{{Name: "a", Settings: settings(own{}, depth)}, {Name: "b", Settings: settings(own{}, depth)}}, "key depth is also preset a's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newTable(tt.presets)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			_, probs := Check([]byte("depth: 5\n"), tt.presets)
			if len(probs) != 1 || probs[0].String() != "line 1: depth must be between 1 and 3, not 5" {
				t.Errorf("a preset's bound is not enforced: %v", probs)
			}
		})
	}
}

// TestExampleComplete keeps deploy/verdict.example.yml honest: it is valid,
// it shows the defaults (parsing it changes nothing) and it sets every key.
func TestExampleComplete(t *testing.T) {
	data, err := os.ReadFile(repoFile("deploy/verdict.example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := tableFor(served)
	if err != nil {
		t.Fatal(err)
	}
	all, _, probs := tb.check(data)
	for _, p := range probs {
		t.Errorf("deploy/verdict.example.yml: %s", p)
	}
	def := tb.defaults()
	// core_team's default is the preset's own: the example shows
	// InferenceX's.
	if c := config(all); c.CoreTeam == repo.Defaults().CoreTeam {
		c.CoreTeam = ""
		all.Field(0).Set(reflect.ValueOf(c))
	}
	withoutNoOps(all)
	if !reflect.DeepEqual(all.Interface(), def.Interface()) {
		t.Errorf("deploy/verdict.example.yml must show the defaults; parsing it gives\n%+v\nwant\n%+v", all, def)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	w := walker{idx: map[string]*yaml.Node{}, specs: tb.specs}
	w.walk(doc.Content[0], tb.typ, "", "")
	present := map[string]bool{}
	star := regexp.MustCompile(`\[\d+\]`)
	for p := range w.idx {
		p = star.ReplaceAllString(p, "")
		present[p] = true
		// A concrete mapping key stands for the table's "*".
		parts := strings.Split(p, ".")
		for i := range parts {
			q := append(append([]string(nil), parts[:i]...), "*")
			present[strings.Join(append(q, parts[i+1:]...), ".")] = true
		}
	}
	var missing []string
	for path, k := range tb.specs {
		if k.Refused == nil && !present[path] {
			missing = append(missing, path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("deploy/verdict.example.yml lacks these keys: %s", strings.Join(missing, ", "))
	}
}

// withoutNoOps drops, in all (a value of the table's type), what the
// example must write to show a key but that changes nothing: empty lists
// and checks entries that disable nothing.
func withoutNoOps(all reflect.Value) {
	c := config(all)
	c.file = nil
	if !c.hasPresetSettings() {
		c.PresetSettings = yaml.Node{}
	}
	for n, s := range c.Checks {
		if !s.Disabled {
			delete(c.Checks, n)
		}
	}
	if len(c.Checks) == 0 {
		c.Checks = nil
	}
	all.Field(0).Set(reflect.ValueOf(c))
	var clear func(v reflect.Value)
	clear = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				clear(v.Field(i))
			}
		case reflect.Slice:
			if v.Len() == 0 && !v.IsNil() {
				v.Set(reflect.Zero(v.Type()))
			}
		}
	}
	clear(all)
}

// TestSchemaAgreesWithCheck runs the committed schema (through a validator
// for the keywords it uses) on the example and on the cases of TestCheck
// whose defects a schema can express: both must accept and reject alike.
func TestSchemaAgreesWithCheck(t *testing.T) {
	raw, err := os.ReadFile(repoFile(SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(repoFile("deploy/verdict.example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in string
	}{
		{"example", string(example)},
		{"valid", "signoff_phrase: As a reviewer\nlayout: e2e\npaths:\n  models: docs/MODELS.md\n"},
		{"unknown", "sign_off_phrase: x\n"},
		{"nested unknown", "status:\n  warnas: failure\n"},
		{"range", "pareto_minimum: 0\n"},
		{"enum", "status:\n  warn_as: maybe\n"},
		{"fraction", "default_eval_threshold: 1.5\n"},
		{"type", "pareto_minimum: many\n"},
		{"list type", "benchmark_groups: single-node\n"},
		{"item enum", "reuse_associations: [OWNER, maintainer]\n"},
		{"empty prefix", "benchmark_groups: ['single-node ', '']\n"},
		{"handle", "core_team: SemiAnalysisAI/core\n"},
		{"parent path", "paths:\n  models: ../MODELS.md\n"},
		{"absolute path", "sweep_workflow: /x.yml\n"},
		{"refused", "paths:\n  root: x/\n"},
		{"check number", "checks:\n  16: {disabled: true}\n"},
		{"check disable", "checks:\n  15: {disabled: true}\n"},
		{"sku", "established_skus: [H100]\n"},
		{"bot login", "bot_logins: ['verdict[bot]']\n"},
		{"image org", "image_orgs:\n  trt: [nvcr.io/nvidia/]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v any
			if err := yaml.Unmarshal([]byte(c.in), &v); err != nil {
				t.Fatal(err)
			}
			schemaErr := validate(schema, normalize(v), "")
			_, probs := Check([]byte(c.in), served)
			if (schemaErr == "") != (len(probs) == 0) {
				t.Errorf("schema says %q, Check says %v", schemaErr, probs)
			}
		})
	}
}

// normalize turns yaml.v3's generic values into JSON's (string keys).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

// validate applies the JSON Schema keywords Schema emits; "" means valid.
func validate(s map[string]any, v any, at string) string {
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return at + ": not an object"
		}
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if pn, ok := s["propertyNames"].(map[string]any); ok {
				if !regexp.MustCompile(pn["pattern"].(string)).MatchString(k) {
					return at + "." + k + ": bad key"
				}
			}
			var sub map[string]any
			if p, ok := props[k].(map[string]any); ok {
				sub = p
			} else if ap, ok := s["additionalProperties"].(map[string]any); ok {
				sub = ap
			} else if s["additionalProperties"] == false {
				return at + "." + k + ": not allowed"
			}
			if sub != nil {
				if e := validate(sub, m[k], at+"."+k); e != "" {
					return e
				}
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return at + ": not an array"
		}
		for i, e := range l {
			if msg := validate(s["items"].(map[string]any), e, fmt.Sprintf("%s[%d]", at, i)); msg != "" {
				return msg
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return at + ": not a string"
		}
		if enum, ok := s["enum"].([]any); ok {
			found := false
			for _, e := range enum {
				found = found || e == str
			}
			if !found {
				return at + ": not in enum"
			}
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			return at + ": pattern"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return at + ": not a boolean"
		}
	case "integer", "number":
		var x float64
		switch n := v.(type) {
		case int:
			x = float64(n)
		case float64:
			if s["type"] == "integer" && n != math.Trunc(n) {
				return at + ": not an integer"
			}
			x = n
		default:
			return at + ": not a number"
		}
		if lo, ok := s["minimum"].(float64); ok && x < lo {
			return at + ": below minimum"
		}
		if hi, ok := s["maximum"].(float64); ok && x > hi {
			return at + ": above maximum"
		}
	}
	return ""
}
