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

// maxDepth bounds how deeply DecodeNode follows nesting and aliases.
const maxDepth = 200

// DecodeNode parses one YAML document into a node tree, refusing documents
// whose alias-expanded size is over MaxNodes. It returns nil for an empty
// document.
func DecodeNode(data []byte) (*yaml.Node, error) {
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
