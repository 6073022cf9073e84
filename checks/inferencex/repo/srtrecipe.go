package repo

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/shell"
	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// ParseSrtRecipe reads an srt-slurm recipe YAML into runtime settings with role,
// file and line: backend.{aggregated,prefill,decode}_environment (env),
// backend.<engine>_config.{aggregated,prefill,decode} (arg),
// roles.{agg,prefill,decode}.{args,env}, benchmark.{env,command,...},
// frontend.{args,env}, and the same structure inside base: and
// override_* / zip_override_* variant blocks. Every other scalar becomes a
// "key" setting named by its dotted path, so that a scan for a setting
// anywhere in the file (publish_events_and_metrics) sees it too.
//
// A setting of a variant block carries the variant's name (Setting.Variant):
// "override_<name>", or "zip_override_<name>[i]" for each job a zip block
// expands to, its list leaves sliced at i (a one-element list broadcast, a
// list of lists giving each job its list), as srtctl expands them.
func ParseSrtRecipe(file string, data []byte) ([]Setting, error) {
	root, err := yamlx.DecodeNode(data)
	if err != nil {
		return nil, fmt.Errorf("parsing recipe %s: %w", file, err)
	}
	if root == nil {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("parsing recipe %s: root is not a mapping", file)
	}
	r := &recipeReader{file: file}
	r.root(root, "", "")
	if r.err != nil {
		return nil, r.err
	}
	return r.out, nil
}

type recipeReader struct {
	file string
	out  []Setting
	// variant is the variant block being read ("" for base and plain
	// recipes).
	variant string
	// err is the first part of the recipe that could not be read.
	err error
}

var recipeRoles = map[string]string{
	"agg": "agg", "aggregated": "agg", "prefill": "prefill", "decode": "decode",
}

// root walks one recipe (or variant block) whose keys are recipe sections.
func (r *recipeReader) root(n *yaml.Node, prefix, role string) {
	yamlx.EachPair(n, func(k, v *yaml.Node) {
		name := k.Value
		p := recipeJoin(prefix, name)
		switch {
		case name == "base":
			r.root(v, p, role)
		case strings.HasPrefix(name, "zip_override_") && v.Kind == yaml.MappingNode && r.variant == "":
			for i := range zipWidth(v, 0) {
				r.variant = fmt.Sprintf("%s[%d]", name, i)
				r.root(zipSlice(v, i, 0), p, role)
			}
			r.variant = ""
		case strings.HasPrefix(name, "override_") || strings.HasPrefix(name, "zip_override_"):
			outer := r.variant
			if outer == "" {
				r.variant = name
			}
			if v.Kind == yaml.SequenceNode {
				for _, it := range v.Content {
					r.root(it, p, role)
				}
			} else {
				r.root(v, p, role)
			}
			r.variant = outer
		case name == "backend":
			r.backend(v, p)
		case name == "roles":
			yamlx.EachPair(v, func(rk, rv *yaml.Node) {
				rl := recipeRoles[rk.Value]
				if rl == "" {
					rl = rk.Value
				}
				r.section(rv, recipeJoin(p, rk.Value), rl)
			})
		case name == "benchmark":
			r.section(v, p, "benchmark")
		case name == "frontend":
			r.section(v, p, "frontend")
		case strings.HasSuffix(name, "_environment"):
			r.backend(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, v}}, prefix)
		default:
			r.generic(v, p, role)
		}
	})
}

// backend reads backend.*_environment and backend.*_config.{roles}.
func (r *recipeReader) backend(n *yaml.Node, prefix string) {
	yamlx.EachPair(n, func(k, v *yaml.Node) {
		p := recipeJoin(prefix, k.Value)
		switch {
		case strings.HasSuffix(k.Value, "_environment"):
			role := recipeRoles[strings.TrimSuffix(k.Value, "_environment")]
			r.flat(v, "", role, "env")
		case strings.HasSuffix(k.Value, "_config") && v.Kind == yaml.MappingNode:
			yamlx.EachPair(v, func(rk, rv *yaml.Node) {
				if role, ok := recipeRoles[rk.Value]; ok {
					r.flat(rv, "", role, "arg")
				} else {
					r.generic(rv, recipeJoin(p, rk.Value), "")
				}
			})
		default:
			r.generic(v, p, "")
		}
	})
}

// section reads a block with args/env/command children for one role.
func (r *recipeReader) section(n *yaml.Node, prefix, role string) {
	if n.Kind != yaml.MappingNode {
		r.generic(n, prefix, role)
		return
	}
	yamlx.EachPair(n, func(k, v *yaml.Node) {
		switch k.Value {
		case "env", "environment":
			r.flat(v, "", role, "env")
		case "args", "extra_args", "engine_args":
			if v.Kind == yaml.SequenceNode {
				r.argList(v, role)
			} else {
				r.flat(v, "", role, "arg")
			}
		case "command":
			r.command(v, role)
		default:
			r.generic(v, recipeJoin(prefix, k.Value), role)
		}
	})
}

// flat records each key of a mapping as one setting; nested mappings are
// rendered as flow YAML in the value and also walked as dotted names.
func (r *recipeReader) flat(n *yaml.Node, prefix, role, kind string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	yamlx.EachPair(n, func(k, v *yaml.Node) {
		name := recipeJoin(prefix, k.Value)
		r.addNode(name, v, k.Line, role, kind)
		if v.Kind == yaml.MappingNode {
			r.flat(v, name, role, kind)
		}
	})
}

// argList reads args given as a list of "--flag value" strings.
func (r *recipeReader) argList(n *yaml.Node, role string) {
	for _, it := range n.Content {
		if it.Kind != yaml.ScalarNode {
			continue
		}
		r.command(it, role)
	}
}

// command reads a shell command string (benchmark.command) for its flags.
func (r *recipeReader) command(n *yaml.Node, role string) {
	if n.Kind != yaml.ScalarNode {
		r.generic(n, "command", role)
		return
	}
	r.add("command", n.Value, n.Line, role, "command")
	first := n.Line - 1
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		first++ // the body starts on the line after the indicator
	}
	sc, err := shell.Parse(r.file, []byte(n.Value))
	if err != nil {
		// The command's settings cannot be known: the recipe is not read.
		var se *shell.Error
		if errors.As(err, &se) && se.Line > 0 {
			e := *se
			e.Line += first
			err = &e
		}
		if r.err == nil {
			r.err = fmt.Errorf("parsing recipe %s: its command at line %d is not bash: %w", r.file, n.Line, err)
		}
		return
	}
	for _, s := range scriptSettings(r.file, sc, role) {
		s.Line += first
		s.Variant = r.variant
		r.out = append(r.out, s)
	}
}

// generic records every scalar under n as a "key" setting.
func (r *recipeReader) generic(n *yaml.Node, prefix, role string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		r.addNode(prefix, n, n.Line, recipeRoleFromPath(prefix, role), "key")
	case yaml.MappingNode:
		yamlx.EachPair(n, func(k, v *yaml.Node) {
			if v.Kind == yaml.ScalarNode {
				r.addNode(recipeJoin(prefix, k.Value), v, k.Line, recipeRoleFromPath(recipeJoin(prefix, k.Value), role), "key")
				return
			}
			r.generic(v, recipeJoin(prefix, k.Value), role)
		})
	case yaml.SequenceNode:
		for _, c := range n.Content {
			r.generic(c, prefix, role)
		}
	}
}

func recipeRoleFromPath(p, role string) string {
	if role != "" {
		return role
	}
	for _, part := range strings.Split(p, ".") {
		if rl, ok := recipeRoles[part]; ok {
			return rl
		}
	}
	return ""
}

func (r *recipeReader) add(name, value string, line int, role, kind string) {
	r.out = append(r.out, Setting{Name: name, Value: value, File: r.file, Line: line, Role: role, Kind: kind, Variant: r.variant})
}

// addNode records a setting whose value is node v, marking YAML null (which
// in a variant block deletes the key from base).
func (r *recipeReader) addNode(name string, v *yaml.Node, line int, role, kind string) {
	r.add(name, yamlx.Render(v), line, role, kind)
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		r.out[len(r.out)-1].Null = true
	}
}

// maxZipDepth bounds the walk of a zip block, as YAML nesting is bounded
// when the file is decoded.
const maxZipDepth = 64

// zipWidth is the number of jobs a zip block expands to: the longest list
// leaf (lists inside a list are values, not dimensions), at least 1.
func zipWidth(n *yaml.Node, depth int) int {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	w := 1
	switch {
	case depth > maxZipDepth:
	case n.Kind == yaml.SequenceNode:
		w = max(w, len(n.Content))
	case n.Kind == yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			w = max(w, zipWidth(n.Content[i], depth+1))
		}
	}
	return w
}

// zipSlice is job i of a zip block: every list leaf replaced by its i-th
// element (a one-element list by its only one; a list too short for i, which
// srtctl refuses, by null).
func zipSlice(n *yaml.Node, i, depth int) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case depth > maxZipDepth:
		return n
	case n.Kind == yaml.SequenceNode:
		switch {
		case len(n.Content) == 1:
			return n.Content[0]
		case i < len(n.Content):
			return n.Content[i]
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: n.Line}
	case n.Kind == yaml.MappingNode:
		c := *n
		c.Content = make([]*yaml.Node, len(n.Content))
		for j := 0; j < len(n.Content); j++ {
			if j%2 == 0 {
				c.Content[j] = n.Content[j]
			} else {
				c.Content[j] = zipSlice(n.Content[j], i, depth+1)
			}
		}
		return &c
	}
	return n
}

func recipeJoin(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
