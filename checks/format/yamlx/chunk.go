package yamlx

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrNotChunkable says a document cannot be split into independent
// top-level entries; the caller decodes it whole instead.
var ErrNotChunkable = errors.New("not splittable into top-level entries")

// Chunk is one top-level entry of a block mapping: its key, the 1-based line
// of the key, and its text.
type Chunk struct {
	Key  string
	Line int
	Text string
}

// anchorRE finds YAML anchors, aliases, tags and merge keys, which tie
// top-level entries together, so per-entry decoding would be wrong.
var anchorRE = regexp.MustCompile(`(^|[\s,\[{])([&*!][A-Za-z0-9_.\-]|<<\s*:)`)

// SplitTopLevel splits a block mapping at its column-0 keys. It refuses
// (ErrNotChunkable) anything where that would change the meaning: anchors,
// aliases, tags, multiple documents, a non-mapping root.
func SplitTopLevel(data string) ([]Chunk, error) {
	var out []Chunk
	line := 0
	start, startLine := -1, 0
	key := ""
	off := 0
	// Only lines holding '&', '*', '!' or '<' can tie entries together; the
	// next such byte is found with a vectorised search instead of looking
	// at every byte of every line.
	special := nextSpecial(data, 0)
	for off < len(data) {
		end := strings.IndexByte(data[off:], '\n')
		var l string
		next := len(data)
		if end >= 0 {
			l, next = data[off:off+end], off+end+1
		} else {
			l = data[off:]
		}
		line++
		if t := strings.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			if special < next && anchorRE.MatchString(string(StripComment([]byte(l)))) {
				return nil, ErrNotChunkable
			}
			switch c := l[0]; {
			case c == ' ':
			case c == '\t', c == '-', c == '?', c == '{', c == '[', c == '%', c == '.':
				return nil, ErrNotChunkable
			default:
				k, ok := topKey(l)
				if !ok {
					return nil, ErrNotChunkable
				}
				if start >= 0 {
					out = append(out, Chunk{Key: key, Line: startLine, Text: data[start:off]})
				}
				start, startLine, key = off, line, k
			}
		}
		off = next
		if special < off {
			special = nextSpecial(data, off)
		}
	}
	if start >= 0 {
		out = append(out, Chunk{Key: key, Line: startLine, Text: data[start:]})
	}
	return out, nil
}

// nextSpecial is the index of the first of '&', '*', '!' or '<' at or after
// from, or len(data).
func nextSpecial(data string, from int) int {
	best := len(data)
	for _, c := range []byte("&*!<") {
		if i := strings.IndexByte(data[from:best], c); i >= 0 {
			best = from + i
		}
	}
	return best
}

func topKey(s string) (string, bool) {
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

// DecodeEntry decodes one chunk (a mapping with a single top-level key) and
// returns the key's value, through the fast decoder when the chunk is in its
// subset and yaml.v3 otherwise.
func DecodeEntry(text string) (any, error) {
	var ps Parser
	if v, ok := ps.Entry(text); ok {
		return v.Any(), nil
	}
	return DecodeEntrySlow(text)
}

// Entry reads one chunk of the subset (a mapping with a single top-level
// key) and returns the key's value; ok is false outside the subset, where
// DecodeEntrySlow decodes it.
func (ps *Parser) Entry(text string) (Node, bool) {
	root, ok := ps.Parse(text)
	if !ok || root.Len() != 1 {
		return Node{}, false
	}
	return Node{ps, root.nd().first}, true
}

// DecodeEntrySlow is DecodeEntry through yaml.v3 alone.
func DecodeEntrySlow(text string) (any, error) {
	if err := CheckDepth(text); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
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

var lineRE = regexp.MustCompile(`line (\d+)`)

// ShiftLines rewrites "line N" in a chunk's decode error to lines of the
// whole file, the chunk starting after line by.
func ShiftLines(err error, by int) string {
	return lineRE.ReplaceAllStringFunc(err.Error(), func(s string) string {
		n, _ := strconv.Atoi(s[5:])
		return "line " + strconv.Itoa(n+by)
	})
}
