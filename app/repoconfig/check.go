package repoconfig

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// Problem is one defect of a verdict.yml, at the place that has it.
type Problem struct {
	// Line and Column are 1-based; 0 when the defect concerns the whole file.
	Line, Column int
	// Key is the dotted path of the key (status.warn_as, checks.16,
	// benchmark_groups[2]); "" for syntax errors.
	Key string
	// Message says what is wrong and what is accepted; MessageZH says it in
	// Chinese (keys, values and YAML's own diagnostics stay as written).
	Message, MessageZH string
}

func (p Problem) String() string {
	if p.Line == 0 {
		return p.Message
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}

// StringZH is String in Chinese.
func (p Problem) StringZH() string {
	if p.Line == 0 {
		return p.MessageZH
	}
	return fmt.Sprintf("第 %d 行：%s", p.Line, p.MessageZH)
}

// problem builds a Problem from a message in both languages.
func problem(line, col int, key string, m meaning) Problem {
	return Problem{Line: line, Column: col, Key: key, Message: m.EN, MessageZH: m.ZH}
}

func msg(enFormat, zhFormat string, a ...any) meaning {
	return meaning{fmt.Sprintf(enFormat, a...), fmt.Sprintf(zhFormat, a...)}
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
// the ranges of the key tables of the app and of presets (the served ones).
// It returns the app's configuration merged over the defaults and every
// problem found; with any problem the configuration is Default(), since
// rules that are half applied are worse than none.
func Check(data []byte, presets []*checks.Preset) (Config, []Problem) {
	tb, err := tableFor(presets)
	if err != nil {
		return Default(), []Problem{problem(0, 0, "", msg("the served presets' key tables: %v", "所提供预设的键表：%v", err))}
	}
	all, keys, probs := tb.check(data)
	if len(probs) > 0 {
		return Default(), probs
	}
	cfg := config(all)
	cfg.file, cfg.presetKeys = data, keys
	return cfg, nil
}

// check is Check with the whole value of the table's type.
func (tb *table) check(data []byte) (reflect.Value, []presetKey, []Problem) {
	def := tb.defaults()
	if len(data) > maxBytes {
		return def, nil, []Problem{problem(0, 0, "", msg("the file is %d bytes, over the %d-byte limit", "文件大小为 %d 字节，超过 %d 字节的上限", len(data), maxBytes))}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return def, nil, nil
	}
	if err := yamlx.CheckDepth(string(data)); err != nil {
		return def, nil, []Problem{problem(0, 0, "", msg("the file nests deeper than %d levels", "文件嵌套超过 %d 层", yamlx.MaxDepth))}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return def, nil, []Problem{syntaxProblem(err, syntaxPrefix)}
	}
	if len(doc.Content) == 0 {
		return def, nil, nil // comments only
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return def, nil, nil
	}
	if root.Kind != yaml.MappingNode {
		en, zh := kindName(root)
		return def, nil, []Problem{problem(root.Line, root.Column, "", meaning{
			"the file must be a mapping of keys (key: value), not " + en, "文件必须是键值映射（key: value），而不是" + zh})}
	}

	w := walker{idx: map[string]*yaml.Node{}, specs: tb.specs}
	w.walk(root, tb.typ, "", "")
	probs := w.probs
	all := tb.defaults()
	if err := root.Decode(all.Addr().Interface()); err != nil {
		probs = append(probs, w.decodeProblems(err)...)
	}
	probs = append(probs, w.constraints(all, "", "", nil)...)
	if len(probs) == 0 {
		return all, tb.presetKeys(w.idx), nil
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Line != probs[j].Line {
			return probs[i].Line < probs[j].Line
		}
		return probs[i].Column < probs[j].Column
	})
	return def, nil, probs
}

var syntaxRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxProblem places a YAML syntax error; the parser's own words follow
// the prefix in both languages.
func syntaxProblem(err error, prefix meaning) Problem {
	line, text := 0, strings.TrimPrefix(err.Error(), "yaml: ")
	if m := syntaxRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		text = m[2]
	}
	return problem(line, 0, "", meaning{prefix.EN + text, prefix.ZH + text})
}

var (
	syntaxPrefix = meaning{"YAML syntax: ", "YAML 语法错误："}
	decodePrefix = meaning{"", "YAML 解码错误："}
)

func kindName(n *yaml.Node) (en, zh string) {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list", "列表"
	case yaml.MappingNode:
		return "a mapping", "映射"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value), fmt.Sprintf("值 %q", n.Value)
	}
	return "an alias", "别名"
}

// nodeType is a section kept as YAML for a preset to read.
var nodeType = reflect.TypeOf(yaml.Node{})

// walker visits the document against the Config type, recording where
// every key is (idx, by concrete path) and which keys are unknown.
type walker struct {
	idx   map[string]*yaml.Node // concrete path -> the key's node (list items: the item)
	specs map[string]*keySpec   // the key table
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
			w.probs = append(w.probs, problem(n.Line, n.Column, path,
				msg("the document expands to more than %d values (aliases?)", "文档展开后超过 %d 个值（是否用了别名？）", maxNodes)))
		}
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType {
		return // the preset's own settings: the preset reads them
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
			spec := w.specs[sp]
			switch {
			case !ok || spec == nil:
				w.probs = append(w.probs, problem(k.Line, k.Column, p, w.unknownKey(p, k.Value, fields)))
			case spec.Refused != nil:
				w.probs = append(w.probs, problem(k.Line, k.Column, p, meaning{p + " cannot be set: " + spec.Refused.EN, p + " 不能在此设置：" + spec.Refused.ZH}))
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
func (w *walker) unknownKey(path, key string, fields map[string]reflect.Type) meaning {
	best, bestD := "", math.MaxInt
	for f := range fields {
		if s := w.specs[strings.TrimSuffix(path, key)+f]; s != nil && s.Refused != nil {
			continue
		}
		d := distance(strings.ReplaceAll(strings.ToLower(key), "_", ""), strings.ReplaceAll(f, "_", ""))
		if d < bestD || (d == bestD && f < best) {
			best, bestD = f, d
		}
	}
	m := meaning{"unknown key " + path, "未知的键 " + path}
	if best != "" && bestD <= max(1, len(key)/4) {
		meant := strings.TrimSuffix(path, key) + best
		m.EN += " (did you mean " + meant + "?)"
		m.ZH += "（是否想写 " + meant + "？）"
	}
	return m
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
		return []Problem{syntaxProblem(err, decodePrefix)}
	}
	var out []Problem
	for _, e := range te.Errors {
		m := typeErrRE.FindStringSubmatch(e)
		if m == nil {
			out = append(out, syntaxProblem(errors.New(e), decodePrefix))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		got := strings.TrimPrefix(m[2], "!!")
		if m[3] != "" {
			got += " " + strconv.Quote(m[3])
		}
		want := goKind(m[4])
		if key, k := w.keyAt(line, m[3]); k != nil {
			out = append(out, problem(line, k.Column, key, meaning{
				fmt.Sprintf("%s must be %s, not %s", key, want.EN, got), fmt.Sprintf("%s 应为%s，而不是 %s", key, want.ZH, got)}))
		} else {
			out = append(out, problem(line, 0, "", meaning{
				fmt.Sprintf("want %s, not %s", want.EN, got), fmt.Sprintf("应为%s，而不是 %s", want.ZH, got)}))
		}
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

func goKind(t string) meaning {
	switch {
	case strings.HasPrefix(t, "[]"):
		return meaning{"a list", "列表"}
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		return meaning{"a mapping", "映射"}
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return meaning{"an integer", "整数"}
	case strings.HasPrefix(t, "float"):
		return meaning{"a number", "数字"}
	case t == "bool":
		return meaning{"true or false", " true 或 false"}
	case t == "string":
		return meaning{"a string", "字符串"}
	}
	return meaning{t, t}
}
