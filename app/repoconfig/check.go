package repoconfig

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Problem is one defect of a verdict.yml, at the place that has it.
type Problem struct {
	// Line and Column are 1-based; 0 when the defect concerns the whole file.
	Line, Column int
	// Key is the dotted path of the key (status.warn_as, checks.16,
	// benchmark_groups[2]); "" for syntax errors.
	Key string
	// Message says what is wrong and what is accepted.
	Message string
}

func (p Problem) String() string {
	if p.Line == 0 {
		return p.Message
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}

// Error is an invalid configuration: every problem found, in file order.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// FirstLine is the line of the first problem (0 if it has none), for the
// message that points a maintainer at the file.
func (e *Error) FirstLine() int {
	if len(e.Problems) == 0 {
		return 0
	}
	return e.Problems[0].Line
}

// maxNodes bounds the walk over a document, so aliases that expand a small
// file into millions of values cost nothing.
const maxNodes = 20000

// Check validates data as a verdict.yml: syntax, unknown keys, types and
// the ranges of the key table. It returns the configuration merged over the
// defaults and every problem found; with any problem the configuration is
// Default(), since rules that are half applied are worse than none.
func Check(data []byte) (Config, []Problem) {
	if len(data) > maxBytes {
		return Default(), []Problem{{Message: fmt.Sprintf("the file is %d bytes, over the %d-byte limit", len(data), maxBytes)}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Default(), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Default(), []Problem{syntaxProblem(err)}
	}
	if len(doc.Content) == 0 {
		return Default(), nil // comments only
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return Default(), nil
	}
	if root.Kind != yaml.MappingNode {
		return Default(), []Problem{{Line: root.Line, Column: root.Column,
			Message: "the file must be a mapping of keys (key: value), not " + kindName(root)}}
	}

	w := walker{idx: map[string]*yaml.Node{}}
	w.walk(root, reflect.TypeOf(Config{}), "", "")
	probs := w.probs
	cfg := Default()
	if err := root.Decode(&cfg); err != nil {
		probs = append(probs, w.decodeProblems(err)...)
	}
	probs = append(probs, w.constraints(reflect.ValueOf(cfg), "", "", nil)...)
	if len(probs) == 0 {
		return cfg, nil
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Line != probs[j].Line {
			return probs[i].Line < probs[j].Line
		}
		return probs[i].Column < probs[j].Column
	})
	return Default(), probs
}

var syntaxRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func syntaxProblem(err error) Problem {
	if m := syntaxRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return Problem{Line: n, Message: "YAML syntax: " + m[2]}
	}
	return Problem{Message: "YAML syntax: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "an alias"
}

// walker visits the document against the Config type, recording where
// every key is (idx, by concrete path) and which keys are unknown.
type walker struct {
	idx   map[string]*yaml.Node // concrete path -> the key's node (list items: the item)
	probs []Problem
	nodes int
}

func join(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

// walk checks the keys under n. specPath is the key table's path (with *
// for mapping keys), path the concrete one.
func (w *walker) walk(n *yaml.Node, t reflect.Type, specPath, path string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if w.nodes++; w.nodes > maxNodes {
		if w.nodes == maxNodes+1 {
			w.probs = append(w.probs, Problem{Line: n.Line, Column: n.Column, Key: path,
				Message: fmt.Sprintf("the document expands to more than %d values (aliases?)", maxNodes)})
		}
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // the decoder reports the type mismatch
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				w.walk(v, t, specPath, path)
				continue
			}
			sp, p := join(specPath, k.Value), join(path, k.Value)
			w.idx[p] = k
			ft, ok := fields[k.Value]
			spec := specs[sp]
			switch {
			case !ok || spec == nil:
				w.probs = append(w.probs, Problem{Line: k.Line, Column: k.Column, Key: p, Message: unknownKey(p, k.Value, fields)})
			case spec.Refused != "":
				w.probs = append(w.probs, Problem{Line: k.Line, Column: k.Column, Key: p, Message: p + " cannot be set: " + spec.Refused})
			default:
				w.walk(v, ft, sp, p)
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			w.idx[p] = k
			w.walk(v, t.Elem(), join(specPath, "*"), p)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			w.idx[p] = item
			w.walk(item, t.Elem(), specPath, p)
		}
	}
}

// yamlFields maps the YAML keys of struct type t to their field types,
// following yaml.v3's rules (tag name, else the lower-cased field name;
// ",inline" merges the embedded struct's keys).
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// unknownKey names the key and, when one is close, the key that was meant.
func unknownKey(path, key string, fields map[string]reflect.Type) string {
	best, bestD := "", math.MaxInt
	for f := range fields {
		if s := specs[join(strings.TrimSuffix(path, key), f)]; s != nil && s.Refused != "" {
			continue
		}
		d := distance(strings.ReplaceAll(strings.ToLower(key), "_", ""), strings.ReplaceAll(f, "_", ""))
		if d < bestD || (d == bestD && f < best) {
			best, bestD = f, d
		}
	}
	msg := "unknown key " + path
	if best != "" && bestD <= max(1, len(key)/4) {
		msg += " (did you mean " + strings.TrimSuffix(path, key) + best + "?)"
	}
	return msg
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

var typeErrRE = regexp.MustCompile("^line (\\d+): cannot unmarshal (!!\\w+)(?: `(.*)`)? into (\\S+)$")

// decodeProblems turns yaml.v3's type errors ("line 3: cannot unmarshal
// !!str `x` into int") into problems that name the key and the expected
// kind of value in the file's terms, not Go's.
func (w *walker) decodeProblems(err error) []Problem {
	te, ok := err.(*yaml.TypeError)
	if !ok {
		p := syntaxProblem(err)
		p.Message = strings.TrimPrefix(p.Message, "YAML syntax: ")
		return []Problem{p}
	}
	var out []Problem
	for _, e := range te.Errors {
		m := typeErrRE.FindStringSubmatch(e)
		if m == nil {
			out = append(out, Problem{Message: e})
			continue
		}
		line, _ := strconv.Atoi(m[1])
		p := Problem{Line: line}
		got := strings.TrimPrefix(m[2], "!!")
		if m[3] != "" {
			got += " " + strconv.Quote(m[3])
		}
		if key, k := w.keyAt(line, m[3]); k != nil {
			p.Key, p.Column = key, k.Column
			p.Message = fmt.Sprintf("%s must be %s, not %s", key, goKind(m[4]), got)
		} else {
			p.Message = fmt.Sprintf("want %s, not %s", goKind(m[4]), got)
		}
		out = append(out, p)
	}
	return out
}

// keyAt finds the key a type error on line is about: the key named value
// when the error is about a mapping key itself (checks: {three: ...}),
// else the deepest key on the line (the one whose value is there).
func (w *walker) keyAt(line int, value string) (string, *yaml.Node) {
	best, bestNode := "", (*yaml.Node)(nil)
	for p, k := range w.idx {
		if k.Line != line {
			continue
		}
		if value != "" && strings.HasSuffix(p, "."+value) && k.Value == value {
			return p, k
		}
		if len(p) > len(best) || len(p) == len(best) && p < best {
			best, bestNode = p, k
		}
	}
	return best, bestNode
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		return "a mapping"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	}
	return t
}

// constraints checks the decoded values against the key table. spec is the
// nearest table entry above v; values set by the defaults satisfy the table
// (a test makes sure), so a violation always has a place in the file.
func (w *walker) constraints(v reflect.Value, specPath, path string, spec *keySpec) []Problem {
	var out []Problem
	bad := func(p, format string, a ...any) {
		pr := Problem{Key: p, Message: fmt.Sprintf(format, a...)}
		for q := p; q != ""; q = parentPath(q) {
			if k := w.idx[q]; k != nil {
				pr.Line, pr.Column = k.Line, k.Column
				break
			}
		}
		out = append(out, pr)
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if strings.Contains(opts, "inline") {
				out = append(out, w.constraints(v.Field(i), specPath, path, spec)...)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			sp := join(specPath, name)
			s := specs[sp]
			if s == nil {
				s = spec
			}
			out = append(out, w.constraints(v.Field(i), sp, join(path, name), s)...)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			ks := fmt.Sprint(k.Interface())
			p := join(path, ks)
			if spec != nil && spec.keyRE != nil && !spec.keyRE.MatchString(ks) {
				bad(p, "%s: %s is not %s", path, quoteIfNeeded(ks), spec.KeyMeans)
				continue
			}
			sp := join(specPath, "*")
			s := spec
			if specs[sp] != nil {
				s = specs[sp]
			}
			out = append(out, w.constraints(v.MapIndex(k), sp, p, s)...)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			out = append(out, w.constraints(v.Index(i), specPath, fmt.Sprintf("%s[%d]", path, i), spec)...)
		}
	case reflect.String:
		if spec == nil {
			return nil
		}
		s := v.String()
		if len(spec.Enum) > 0 && !contains(spec.Enum, s) {
			bad(path, "%s must be %s, not %q", path, enumText(spec.Enum), s)
		}
		if spec.re != nil && !spec.re.MatchString(s) {
			bad(path, "%s must be %s, not %q", path, spec.Means, s)
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		if spec == nil {
			return nil
		}
		var x float64
		if v.Kind() == reflect.Float64 {
			x = v.Float()
		} else {
			x = float64(v.Int())
		}
		if !math.IsNaN(spec.Min) && x < spec.Min || !math.IsNaN(spec.Max) && x > spec.Max || math.IsNaN(x) {
			bad(path, "%s must be %s, not %v", path, rangeText(spec.Min, spec.Max), x)
		}
	}
	return out
}

var plainRE = regexp.MustCompile(`^[A-Za-z0-9_./@-]+$`)

// quoteIfNeeded quotes s unless it is a plain token.
func quoteIfNeeded(s string) string {
	if plainRE.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func enumText(enum []string) string {
	q := make([]string, 0, len(enum))
	empty := false
	for _, e := range enum {
		if e == "" {
			empty = true
			continue
		}
		q = append(q, e)
	}
	s := strings.Join(q[:len(q)-1], ", ")
	if s != "" {
		s += " or "
	}
	s += q[len(q)-1]
	if len(q) > 2 {
		s = "one of " + strings.Join(q, ", ")
	}
	if empty {
		s += " (or empty)"
	}
	return s
}

func rangeText(lo, hi float64) string {
	switch {
	case math.IsNaN(hi):
		return fmt.Sprintf("at least %v", lo)
	case math.IsNaN(lo):
		return fmt.Sprintf("at most %v", hi)
	}
	return fmt.Sprintf("between %v and %v", lo, hi)
}

func valueOf(c Config) reflect.Value { return reflect.ValueOf(c) }
