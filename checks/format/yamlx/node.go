// Package yamlx holds the YAML helpers the readers share: a node decode
// bounded against alias bombs, walking and printing mappings, splitting a
// document at its top-level keys, and a fast decoder for the plain subset
// master configs are written in.
package yamlx

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxNodes bounds the nodes of one decoded YAML document, alias expansions
// counted, so a small file with nested aliases cannot expand into gigabytes.
const MaxNodes = 2_000_000

// MaxDepth bounds how deeply a document may nest. Checked on the text
// before yaml.v3 sees it (yaml.v3 alone would build 10,000 levels before
// refusing), and again on the tree with aliases followed.
const MaxDepth = 200

const maxDepth = MaxDepth

// DecodeNode parses one YAML document into a node tree, refusing documents
// that nest deeper than MaxDepth or whose alias-expanded size is over
// MaxNodes. It returns nil for an empty document.
func DecodeNode(data []byte) (*yaml.Node, error) {
	if err := CheckDepth(string(data)); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("malformed YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	if !WithinBudget(doc.Content[0], MaxNodes, maxDepth) {
		return nil, fmt.Errorf("malformed YAML: document expands to more than %d nodes (alias bomb?)", MaxNodes)
	}
	return doc.Content[0], nil
}

// CheckDepth refuses text whose flow brackets or block indentation nest
// deeper than MaxDepth, in one pass and constant memory. It may overcount
// a bracket inside an unusual plain scalar, never undercount a real level;
// no real document comes near the bound either way.
func CheckDepth(text string) error {
	var indents []int // open block levels by indentation
	flow := 0
	lineNo := 0
	for len(text) > 0 {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, ""
		}
		lineNo++
		// open pushes a block level at column c, closing those at or right
		// of it.
		open := func(c int) {
			for len(indents) > 0 && indents[len(indents)-1] >= c {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, c)
		}
		ind := 0
		for ind < len(l) && (l[ind] == ' ' || l[ind] == '-' && (ind+1 == len(l) || l[ind+1] == ' ')) {
			if l[ind] == '-' && flow == 0 {
				open(ind) // "- - x" opens one sequence per dash
			}
			ind++
		}
		if ind == len(l) || l[ind] == '#' {
			continue
		}
		if flow == 0 {
			open(ind)
		}
		var quote byte
		for i := ind; i < len(l); i++ {
			c := l[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				} else if c == '\\' && quote == '"' {
					i++
				}
			case c == '#' && i > 0 && l[i-1] == ' ':
				i = len(l)
			case (c == '"' || c == '\'') && (i == ind || strings.IndexByte(" [{,:", l[i-1]) >= 0):
				quote = c
			case c == '[' || c == '{':
				flow++
			case c == ']' || c == '}':
				if flow > 0 {
					flow--
				}
			}
			if flow+len(indents) > MaxDepth {
				return fmt.Errorf("malformed YAML: line %d nests deeper than %d levels", lineNo, MaxDepth)
			}
		}
		if quote == '\'' {
			quote = 0 // single-quoted scalars may span lines, but rarely do; do not let one swallow the file
		}
	}
	return nil
}

// WithinBudget reports whether n, with aliases expanded, has at most
// maxNodes nodes and nests at most maxDepth deep.
func WithinBudget(n *yaml.Node, maxNodes, maxDepth int) bool {
	budget := maxNodes
	return within(n, &budget, 0, maxDepth)
}

func within(n *yaml.Node, budget *int, depth, maxDepth int) bool {
	*budget--
	if *budget < 0 || depth > maxDepth {
		return false
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return within(n.Alias, budget, depth+1, maxDepth)
	}
	for _, c := range n.Content {
		if !within(c, budget, depth+1, maxDepth) {
			return false
		}
	}
	return true
}

// EachPair calls f for each key and value of a mapping (aliases followed);
// other nodes have no pairs.
func EachPair(n *yaml.Node, f func(k, v *yaml.Node)) {
	if n == nil {
		return
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		v := n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		f(n.Content[i], v)
	}
}

// Render gives a compact one-line form of a node for reporting: a scalar as
// written, a collection as flow YAML cut at 512 bytes.
func Render(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := *n
	c.Style = yaml.FlowStyle
	setFlow(&c, 0)
	b, err := yaml.Marshal(&c)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 512 {
		s = s[:512] + "…"
	}
	return s
}

// setFlow restyles a copy of the tree as flow YAML without comments.
func setFlow(n *yaml.Node, depth int) {
	if depth > 50 {
		return
	}
	n.Style |= yaml.FlowStyle
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	n.Content = append([]*yaml.Node(nil), n.Content...)
	for i, c := range n.Content {
		cc := *c
		setFlow(&cc, depth+1)
		n.Content[i] = &cc
	}
}

// StripComment drops a trailing comment outside quotes (approximately: a
// '#' at the start or after whitespace).
func StripComment(l []byte) []byte {
	inS, inD := false, false
	for i, c := range l {
		switch {
		case c == '\'' && !inD:
			inS = !inS
		case c == '"' && !inS:
			inD = !inD
		case c == '#' && !inS && !inD && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return l[:i]
		}
	}
	return l
}
