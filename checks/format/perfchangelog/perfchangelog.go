// Package perfchangelog reads an InferenceX repository's perf-changelog.yaml:
// the list of entries that select master configs for a sweep, each checked
// against the repository's changelog schema, and compared between two
// versions of the file as the parsed values they denote.
package perfchangelog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// Entry is one perf-changelog entry.
type Entry struct {
	ConfigKeys       []string
	Description      []string
	PRLink           string
	ScenarioType     []string
	EvalsOnly        bool
	AllEvals         bool
	AppendOnly       bool
	EvalMinPrefillEP int
	Line             int
	// Matched are the master keys its config-keys select (MatchKeys),
	// filled in by the reader that knows the keys.
	Matched []string
	// Problems are the entry's schema violations.
	Problems []string
	// value is the canonical text of the entry's parsed YAML value.
	value string
}

// Parse parses perf-changelog.yaml: a YAML list of entries.
// Entries are returned even when one of them breaks a schema rule; the
// violations come back as problems so that a check needing the changelog
// can say what is wrong. err is set when the file is not a YAML list at all.
func Parse(data []byte) (entries []Entry, problems []string, err error) {
	root, err := yamlx.DecodeNode(data)
	if err != nil {
		return nil, nil, err
	}
	if root == nil {
		return nil, nil, nil
	}
	if root.Kind != yaml.SequenceNode {
		return nil, nil, fmt.Errorf("line %d: changelog root is not a list", root.Line)
	}
	for _, n := range root.Content {
		e, ps := changelogEntry(n)
		e.Problems = ps
		entries = append(entries, e)
		problems = append(problems, ps...)
	}
	return entries, problems, nil
}

func changelogEntry(n *yaml.Node) (Entry, []string) {
	e := Entry{Line: n.Line, value: entryValue(n)}
	if n.Kind != yaml.MappingNode {
		return e, []string{fmt.Sprintf("line %d: entry is not a mapping", n.Line)}
	}
	var ps []string
	bad := func(k *yaml.Node, why string) {
		ps = append(ps, fmt.Sprintf("line %d: %s: %s", k.Line, k.Value, why))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			bad(k, "duplicate key")
			continue
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "config-keys":
			err = v.Decode(&e.ConfigKeys)
		case "description":
			err = v.Decode(&e.Description)
			if err == nil && len(e.Description) == 0 {
				bad(k, "must not be empty")
			}
		case "pr-link":
			err = v.Decode(&e.PRLink)
		case "scenario-type":
			err = v.Decode(&e.ScenarioType)
			for _, st := range e.ScenarioType {
				if st != "fixed-seq-len" && st != "agentic-coding" {
					bad(k, fmt.Sprintf("unknown scenario type %q", st))
				}
			}
		case "evals-only":
			err = v.Decode(&e.EvalsOnly)
		case "all-evals":
			err = v.Decode(&e.AllEvals)
		case "append-only":
			err = v.Decode(&e.AppendOnly)
		case "eval-min-prefill-ep":
			err = v.Decode(&e.EvalMinPrefillEP)
			if err == nil && e.EvalMinPrefillEP < 1 {
				bad(k, "must be an integer ≥ 1")
			}
		default:
			bad(k, "unknown key")
		}
		if err != nil {
			bad(k, "wrong type")
		}
	}
	// Required as the repository's changelog schema requires them.
	if len(e.ConfigKeys) == 0 {
		ps = append(ps, fmt.Sprintf("line %d: entry has no config-keys", n.Line))
	}
	if !seen["description"] {
		ps = append(ps, fmt.Sprintf("line %d: entry has no description", n.Line))
	}
	if !seen["pr-link"] {
		ps = append(ps, fmt.Sprintf("line %d: entry has no pr-link", n.Line))
	}
	return e, ps
}

// Delta compares the changelog at the base with the one at the head as
// parsed entries. added are the entries of
// head that base does not hold, counted as a multiset: an entry that only
// moved or was reformatted is not added, and an entry the PR adds anywhere in
// the file is, however other merges ordered the file. gone are the base
// entries head no longer holds unchanged (removed or edited). Both keep the
// order of their file.
func Delta(base, head []Entry) (added, gone []Entry) {
	pending := map[string][]int{}
	for i, e := range base {
		pending[e.value] = append(pending[e.value], i)
	}
	for _, e := range head {
		if q := pending[e.value]; len(q) > 0 {
			pending[e.value] = q[1:]
			continue
		}
		added = append(added, e)
	}
	var left []int
	for _, q := range pending {
		left = append(left, q...)
	}
	sort.Ints(left)
	for _, i := range left {
		gone = append(gone, base[i])
	}
	return added, gone
}

// MatchKeys resolves an entry's config-keys as the repository's sweep
// tool does: a key holding '*' is a pattern in which each '*' stands for any
// run of characters and everything else is literal; any other key names one
// master key. matched are the selected keys, sorted; unmatched are the
// config-keys that select nothing (the tool refuses such an entry).
func MatchKeys(configKeys []string, keys []string) (matched, unmatched []string) {
	have := make(map[string]bool, len(keys))
	for _, k := range keys {
		have[k] = true
	}
	sel := map[string]bool{}
	for _, ck := range configKeys {
		hit := false
		if strings.Contains(ck, "*") {
			parts := strings.Split(ck, "*")
			for i, p := range parts {
				parts[i] = regexp.QuoteMeta(p)
			}
			re := regexp.MustCompile(`^(?s:` + strings.Join(parts, `.*`) + `)$`)
			for _, k := range keys {
				if re.MatchString(k) {
					sel[k], hit = true, true
				}
			}
		} else if have[ck] {
			sel[ck], hit = true, true
		}
		if !hit {
			unmatched = append(unmatched, ck)
		}
	}
	for k := range sel {
		matched = append(matched, k)
	}
	sort.Strings(matched)
	return matched, unmatched
}

// entryValue is the canonical text of an entry's parsed value, so that
// entries compare as the YAML values they denote, whatever their layout,
// quoting or key order.
func entryValue(n *yaml.Node) string {
	var b strings.Builder
	var v any
	if err := n.Decode(&v); err != nil {
		// A duplicate key (already a problem of the entry) or a cyclic
		// alias: compare the nodes themselves.
		writeNode(&b, n, 0)
		return b.String()
	}
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("~")
	case string:
		b.WriteString(strconv.Quote(v))
	case bool, int, int64, uint64:
		fmt.Fprintf(b, "%v", v)
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, x)
		}
		b.WriteByte(']')
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[strconv.Quote(k)] = x
		}
		writeMap(b, m)
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			var kb strings.Builder
			writeValue(&kb, k)
			m[kb.String()] = x
		}
		writeMap(b, m)
	default:
		fmt.Fprintf(b, "%T:%v", v, v)
	}
}

// writeMap writes a mapping whose keys are already canonical, in key order.
func writeMap(b *strings.Builder, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte(':')
		writeValue(b, m[k])
	}
	b.WriteByte('}')
}

func writeNode(b *strings.Builder, n *yaml.Node, depth int) {
	if n == nil || depth > 200 {
		b.WriteString("?")
		return
	}
	if n.Kind == yaml.AliasNode {
		writeNode(b, n.Alias, depth+1)
		return
	}
	fmt.Fprintf(b, "%d%s%q(", n.Kind, n.ShortTag(), n.Value)
	for _, c := range n.Content {
		writeNode(b, c, depth+1)
		b.WriteByte(',')
	}
	b.WriteByte(')')
}
