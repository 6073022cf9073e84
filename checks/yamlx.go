package checks

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"gopkg.in/yaml.v3"
)

// maxYAMLNodes bounds the nodes of one decoded YAML document, alias
// expansions counted, so a small file with nested aliases cannot expand
// into gigabytes.
const maxYAMLNodes = 2_000_000

// errNotChunkable makes a master file fall back to whole-document decoding.
var errNotChunkable = errors.New("not splittable into top-level entries")

type chunk struct {
	key  string
	line int // 1-based line of the key
	text []byte
}

// anchorRE finds YAML anchors, aliases, tags and merge keys, which tie
// top-level entries together, so per-entry decoding would be wrong.
var anchorRE = regexp.MustCompile(`(^|[\s,\[{])([&*!][A-Za-z0-9_.\-]|<<\s*:)`)

// splitTopLevel splits a block mapping at its column-0 keys. It refuses
// (errNotChunkable) anything where that would change the meaning: anchors,
// aliases, tags, multiple documents, a non-mapping root.
func splitTopLevel(data []byte) ([]chunk, error) {
	var out []chunk
	line := 0
	start, startLine := -1, 0
	key := ""
	off := 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		var l []byte
		next := len(data)
		if end >= 0 {
			l, next = data[off:off+end], off+end+1
		} else {
			l = data[off:]
		}
		line++
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			if bytes.ContainsAny(l, "&*!<") && anchorRE.Match(yamlStripComment(l)) {
				return nil, errNotChunkable
			}
			switch c := l[0]; {
			case c == ' ':
			case c == '\t', c == '-', c == '?', c == '{', c == '[', c == '%', c == '.':
				return nil, errNotChunkable
			default:
				k, ok := topKey(l)
				if !ok {
					return nil, errNotChunkable
				}
				if start >= 0 {
					out = append(out, chunk{key: key, line: startLine, text: data[start:off]})
				}
				start, startLine, key = off, line, k
			}
		}
		off = next
	}
	if start >= 0 {
		out = append(out, chunk{key: key, line: startLine, text: data[start:]})
	}
	return out, nil
}

func topKey(l []byte) (string, bool) {
	s := string(l)
	if s[0] == '"' || s[0] == '\'' {
		q := s[0]
		i := 1
		for i < len(s) && s[i] != q {
			if q == '"' && s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) || i+1 >= len(s) || s[i+1] != ':' {
			return "", false
		}
		if q == '"' {
			k, err := strconv.Unquote(s[:i+1])
			return k, err == nil
		}
		return s[1:i], true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') {
			return s[:i], i > 0
		}
		if s[i] == '#' && i > 0 && s[i-1] == ' ' {
			break
		}
	}
	return "", false
}

// stripComment drops a trailing comment outside quotes (approximately: a
// '#' after whitespace), enough for the anchor heuristic.
func yamlStripComment(l []byte) []byte {
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

type chunkResult struct {
	e   *ConfigEntry // typed view shared by every ref; copied before use
	err error
}

// chunkCache shares decoded entry chunks within one verification. A nil
// cache decodes every time. Lookups by the chunk's bytes do not allocate,
// so the base, head and default-branch copies of a big master config cost
// one decode per distinct entry.
type chunkCache struct {
	mu sync.Mutex
	m  map[string]chunkResult
}

func (c *chunkCache) entry(key string, text []byte) (*ConfigEntry, error) {
	if c != nil {
		c.mu.Lock()
		r, ok := c.m[string(text)]
		c.mu.Unlock()
		if ok {
			return r.e, r.err
		}
	}
	var e *ConfigEntry
	v, err := decodeChunk(text)
	if err == nil {
		e, err = entryFromRaw(key, v)
	}
	if c != nil {
		c.mu.Lock()
		c.m[string(text)] = chunkResult{e, err}
		c.mu.Unlock()
	}
	return e, err
}

func decodeChunk(text []byte) (any, error) {
	if m, ok := fastDecode(string(text)); ok && len(m) == 1 {
		for _, v := range m {
			return v, nil
		}
	}
	var m map[string]any
	if err := yaml.Unmarshal(text, &m); err != nil {
		return nil, err
	}
	if len(m) != 1 {
		return nil, fmt.Errorf("expected one top-level key, found %d", len(m))
	}
	for _, v := range m {
		return v, nil
	}
	return nil, nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// shiftYAMLError rewrites "line N" in a chunk's decode error to file lines.
func shiftYAMLError(err error, by int) string {
	return yamlLineRE.ReplaceAllStringFunc(err.Error(), func(s string) string {
		n, _ := strconv.Atoi(s[5:])
		return "line " + strconv.Itoa(n+by)
	})
}

// parseMasterWhole decodes a master file as one document (anchors and
// aliases resolved by yaml.v3, bounded by decodeNode).
func parseMasterWhole(file string, data []byte) ([]*ConfigEntry, []InputProblem) {
	root, err := decodeNode(data)
	if err != nil {
		return nil, []InputProblem{{Path: file, Err: err.Error()}}
	}
	if root == nil {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, []InputProblem{{Path: file, Err: "root is not a mapping"}}
	}
	var out []*ConfigEntry
	var ps []InputProblem
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if l, dup := seen[k.Value]; dup {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("line %d: duplicate key %q (first at line %d)", k.Line, k.Value, l)})
			continue
		}
		seen[k.Value] = k.Line
		var raw any
		if err := v.Decode(&raw); err != nil {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("entry %s at line %d: %v", k.Value, k.Line, err)})
			continue
		}
		e, err := entryFromRaw(k.Value, raw)
		if err != nil {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("entry %s at line %d: %v", k.Value, k.Line, err)})
			continue
		}
		e.File, e.Line = file, k.Line
		out = append(out, e)
	}
	return out, ps
}

// decodeNode parses one YAML document into a node tree, refusing documents
// whose alias-expanded size is over maxYAMLNodes. It returns nil for an
// empty document.
func decodeNode(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("malformed YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	budget := maxYAMLNodes
	if !countNodes(doc.Content[0], &budget, 0) {
		return nil, fmt.Errorf("malformed YAML: document expands to more than %d nodes (alias bomb?)", maxYAMLNodes)
	}
	return doc.Content[0], nil
}

func countNodes(n *yaml.Node, budget *int, depth int) bool {
	*budget--
	if *budget < 0 || depth > 200 {
		return false
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return countNodes(n.Alias, budget, depth+1)
	}
	for _, c := range n.Content {
		if !countNodes(c, budget, depth+1) {
			return false
		}
	}
	return true
}
