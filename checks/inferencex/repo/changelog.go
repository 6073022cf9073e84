package repo

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// ParseChangelog parses perf-changelog.yaml: a YAML list of entries.
// Entries are returned even when one of them breaks a schema rule; the
// violations come back as problems so that a check needing the changelog
// can say what is wrong. err is set when the file is not a YAML list at all.
func ParseChangelog(data []byte) (entries []ChangelogEntry, problems []string, err error) {
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
		entries = append(entries, e)
		problems = append(problems, ps...)
	}
	return entries, problems, nil
}

func changelogEntry(n *yaml.Node) (ChangelogEntry, []string) {
	e := ChangelogEntry{Line: n.Line}
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
		case "pr-link":
			err = v.Decode(&e.PRLink)
		case "scenario-type":
			err = v.Decode(&e.ScenarioType)
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
	if len(e.ConfigKeys) == 0 {
		ps = append(ps, fmt.Sprintf("line %d: entry has no config-keys", n.Line))
	}
	return e, ps
}

// MatchGlobs returns the keys (sorted) that any of the fnmatch patterns
// select. fnmatch semantics: '*' and '?' match any character including
// '/', '[...]' is a class with '!' negation, matching is case-sensitive.
func MatchGlobs(patterns []string, keys []string) []string {
	var res []*regexp.Regexp
	for _, p := range patterns {
		if re, err := regexp.Compile(fnmatchRE(p)); err == nil {
			res = append(res, re)
		}
	}
	var out []string
	for _, k := range keys {
		for _, re := range res {
			if re.MatchString(k) {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// fnmatchRE translates a pattern as Python's fnmatch.translate does.
func fnmatchRE(p string) string {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	p2 := []rune(p)
	for i := 0; i < len(p2); i++ {
		c := p2[i]
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(p2) && p2[j] == '!' {
				j++
			}
			if j < len(p2) && p2[j] == ']' {
				j++
			}
			for j < len(p2) && p2[j] != ']' {
				j++
			}
			if j >= len(p2) {
				b.WriteString(`\[`)
				continue
			}
			body := string(p2[i+1 : j])
			i = j
			neg := strings.HasPrefix(body, "!")
			if neg {
				body = body[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			for _, r := range body {
				if r == '\\' || r == '[' || r == ']' || r == '^' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteByte(']')
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)$`)
	return b.String()
}
