package yamlx

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parser reads the plain subset of YAML the master configs are written in
// (block mappings and sequences, one-line flow collections, plain and quoted
// scalars, comments) about fifty times faster than yaml.v3, which matters
// for multi-megabyte master configs. It refuses anything outside that subset
// (anchors, tags, block scalars, multi-line scalars, duplicate keys, scalars
// whose type resolution is not obvious) and the caller decodes with yaml.v3
// instead. FuzzFastYAML checks that whenever it answers, it answers exactly
// as yaml.v3 does.
//
// A Parser reuses its storage from one document to the next, so reading
// thousands of entries allocates only what the caller keeps; it is not safe
// for concurrent use.
type Parser struct {
	ls    []subsetLine
	nodes []node
	// keys indexes the keys of mappings with many pairs, so duplicate
	// detection stays linear in the document's size.
	keys map[mapKey]struct{}
	// depth is how many collections enclose the one being read. The
	// descent is recursive, so without a bound a PR's config nested a
	// million deep would overflow the goroutine stack: a fatal error that
	// takes the whole process down, not a panic a job can recover from.
	depth int
}

// MaxFastDepth bounds the nesting the fast parser follows. Master configs
// nest about six deep; a deeper document is outside the subset and goes to
// yaml.v3, whose own bound (MaxDepth, checked before it parses) refuses it.
const MaxFastDepth = 64

type mapKey struct {
	m   int32
	key string
}

// manyPairs is the size from which a mapping's keys are indexed.
const manyPairs = 16

// Kind is the type of a Node's value as yaml.v3 resolves it for an
// interface{} target.
type Kind uint8

// The kinds of Node.
const (
	Null Kind = iota
	Bool
	Int
	Float
	String
	Mapping
	Sequence
)

// node is one value of a parsed document. Children form a linked list so a
// recursive descent can append them as it meets them.
type node struct {
	kind        Kind
	key         string // the node's key in its parent mapping
	str         string // a String's value
	num         int64  // an Int's value, a Bool's 0 or 1
	flt         float64
	first, last int32 // children, -1 when none
	next        int32 // next sibling, -1 at the end
	n           int32 // number of children
}

// Node is one value of the document a Parser read last. It is valid until
// the Parser reads another document.
type Node struct {
	p *Parser
	i int32
}

// Parse reads one document of the subset and returns its root mapping. Its
// strings are substrings of text. ok is false when text is outside the
// subset.
func (ps *Parser) Parse(text string) (root Node, ok bool) {
	ps.ls, ps.nodes = ps.ls[:0], ps.nodes[:0]
	ps.depth = 0
	clear(ps.keys)
	if !printable(text) || !ps.lines(text) || len(ps.ls) == 0 || ps.ls[0].indent != 0 {
		return Node{}, false
	}
	v, next, ok := ps.block(0, 0)
	if !ok || next != len(ps.ls) || ps.nodes[v].kind != Mapping {
		return Node{}, false
	}
	return Node{ps, v}, true
}

// fastDecode decodes text as yaml.v3 decodes it into map[string]any, or
// reports false when text is outside the subset.
func fastDecode(text string) (map[string]any, bool) {
	var ps Parser
	root, ok := ps.Parse(text)
	if !ok {
		return nil, false
	}
	return root.Any().(map[string]any), true
}

func (n Node) nd() *node { return &n.p.nodes[n.i] }

// Kind is the node's kind.
func (n Node) Kind() Kind { return n.nd().kind }

// Str is a String's value ("" for other kinds).
func (n Node) Str() string { return n.nd().str }

// Int is an Int's value (0 for other kinds).
func (n Node) Int() int { return int(n.nd().num) }

// Float is a Float's value (0 for other kinds).
func (n Node) Float() float64 { return n.nd().flt }

// Bool is a Bool's value (false for other kinds).
func (n Node) Bool() bool { return n.nd().kind == Bool && n.nd().num != 0 }

// Len is the number of pairs of a mapping or items of a sequence.
func (n Node) Len() int { return int(n.nd().n) }

// Get returns the value of key in a mapping.
func (n Node) Get(key string) (Node, bool) {
	if n.nd().kind != Mapping {
		return Node{}, false
	}
	for c := n.nd().first; c >= 0; c = n.p.nodes[c].next {
		if n.p.nodes[c].key == key {
			return Node{n.p, c}, true
		}
	}
	return Node{}, false
}

// Each calls f for each pair of a mapping (in document order) or each item
// of a sequence (with key "").
func (n Node) Each(f func(key string, v Node)) {
	for c := n.nd().first; c >= 0; c = n.p.nodes[c].next {
		f(n.p.nodes[c].key, Node{n.p, c})
	}
}

// Any is the node's value as yaml.v3 decodes it into interface{}:
// map[string]any, []any, string, int, float64, bool or nil.
func (n Node) Any() any {
	d := n.nd()
	switch d.kind {
	case Bool:
		return d.num != 0
	case Int:
		return int(d.num)
	case Float:
		return d.flt
	case String:
		return d.str
	case Mapping:
		m := make(map[string]any, d.n)
		n.Each(func(k string, v Node) { m[k] = v.Any() })
		return m
	case Sequence:
		out := make([]any, 0, d.n)
		n.Each(func(_ string, v Node) { out = append(out, v.Any()) })
		return out
	}
	return nil
}

func (ps *Parser) add(x node) int32 {
	x.first, x.last, x.next = -1, -1, -1
	ps.nodes = append(ps.nodes, x)
	return int32(len(ps.nodes) - 1)
}

// child appends c to parent's children.
func (ps *Parser) child(parent, c int32) {
	p := &ps.nodes[parent]
	if p.last < 0 {
		p.first = c
	} else {
		ps.nodes[p.last].next = c
	}
	p.last = c
	p.n++
	if p.kind != Mapping || p.n < manyPairs {
		return
	}
	if ps.keys == nil {
		ps.keys = map[mapKey]struct{}{}
	}
	if p.n == manyPairs {
		for x := p.first; x >= 0; x = ps.nodes[x].next {
			ps.keys[mapKey{parent, ps.nodes[x].key}] = struct{}{}
		}
		return
	}
	ps.keys[mapKey{parent, ps.nodes[c].key}] = struct{}{}
}

// hasKey reports whether mapping m already holds key.
func (ps *Parser) hasKey(m int32, key string) bool {
	if ps.nodes[m].n >= manyPairs {
		_, ok := ps.keys[mapKey{m, key}]
		return ok
	}
	for c := ps.nodes[m].first; c >= 0; c = ps.nodes[c].next {
		if ps.nodes[c].key == key {
			return true
		}
	}
	return false
}

type subsetLine struct {
	indent int
	text   string
}

func (ps *Parser) lines(text string) bool {
	for len(text) > 0 {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, ""
		}
		l = strings.TrimSuffix(l, "\r")
		ind := 0
		for ind < len(l) && l[ind] == ' ' {
			ind++
		}
		rest := l[ind:]
		if rest == "" || rest[0] == '#' {
			continue
		}
		if strings.IndexByte(l, '\t') >= 0 {
			return false
		}
		c, ok := cutComment(rest)
		if !ok {
			return false
		}
		if c == "" {
			continue
		}
		if ind == 0 && (strings.HasPrefix(c, "---") || strings.HasPrefix(c, "...") || c[0] == '%') {
			return false
		}
		ps.ls = append(ps.ls, subsetLine{ind, c})
	}
	return true
}

// cutComment removes a comment and trailing spaces, refusing lines
// whose quotes do not close on the line.
func cutComment(s string) (string, bool) {
	inS, inD := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inD && c == '\\':
			i++
		case c == '"' && !inS:
			inD = !inD
		case c == '\'' && !inD:
			inS = !inS
		case c == '#' && !inS && !inD && i > 0 && s[i-1] == ' ':
			return strings.TrimRight(s[:i], " "), true
		}
	}
	if inS || inD {
		return "", false
	}
	return strings.TrimRight(s, " "), true
}

func isSeqItem(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// block parses the node starting at line i with indentation ind.
func (ps *Parser) block(i, ind int) (int32, int, bool) {
	if i >= len(ps.ls) || ps.ls[i].indent != ind {
		return -1, i, false
	}
	if isSeqItem(ps.ls[i].text) {
		return ps.seq(i, ind)
	}
	return ps.mapping(i, ind)
}

// enter notes one more enclosing collection, reporting false past
// MaxFastDepth; leave undoes it.
func (ps *Parser) enter() bool {
	ps.depth++
	return ps.depth <= MaxFastDepth
}

func (ps *Parser) leave() { ps.depth-- }

func (ps *Parser) mapping(i, ind int) (int32, int, bool) {
	if !ps.enter() {
		return -1, i, false
	}
	defer ps.leave()
	m := ps.add(node{kind: Mapping})
	for i < len(ps.ls) && ps.ls[i].indent == ind && !isSeqItem(ps.ls[i].text) {
		key, rest, ok := splitKey(ps.ls[i].text)
		if !ok || ps.hasKey(m, key) {
			return -1, i, false
		}
		i++
		var v int32
		switch {
		case rest != "":
			if v, ok = ps.inlineValue(rest); !ok {
				return -1, i, false
			}
			if i < len(ps.ls) && ps.ls[i].indent > ind {
				return -1, i, false // multi-line scalar
			}
		case i < len(ps.ls) && ps.ls[i].indent > ind:
			if v, i, ok = ps.block(i, ps.ls[i].indent); !ok {
				return -1, i, false
			}
		case i < len(ps.ls) && ps.ls[i].indent == ind && isSeqItem(ps.ls[i].text):
			if v, i, ok = ps.seq(i, ind); !ok {
				return -1, i, false
			}
		default:
			v = ps.add(node{kind: Null})
		}
		ps.nodes[v].key = key
		ps.child(m, v)
	}
	if i < len(ps.ls) && ps.ls[i].indent > ind {
		return -1, i, false
	}
	return m, i, true
}

func (ps *Parser) seq(i, ind int) (int32, int, bool) {
	if !ps.enter() {
		return -1, i, false
	}
	defer ps.leave()
	s := ps.add(node{kind: Sequence})
	for i < len(ps.ls) && ps.ls[i].indent == ind && isSeqItem(ps.ls[i].text) {
		t := ps.ls[i].text
		item := strings.TrimLeft(t[1:], " ")
		col := ind + len(t) - len(item)
		var v int32
		var ok bool
		switch {
		case item == "":
			i++
			if i < len(ps.ls) && ps.ls[i].indent > ind {
				if v, i, ok = ps.block(i, ps.ls[i].indent); !ok {
					return -1, i, false
				}
			} else {
				v = ps.add(node{kind: Null})
			}
		case isSeqItem(item):
			return -1, i, false // nested compact sequences: leave to yaml.v3
		default:
			if _, _, isKey := splitKey(item); isKey && item[0] != '{' && item[0] != '[' {
				// A compact mapping "- k: v" continues on lines indented to
				// the column of k.
				ps.ls[i] = subsetLine{col, item}
				if v, i, ok = ps.mapping(i, col); !ok {
					return -1, i, false
				}
			} else {
				if v, ok = ps.inlineValue(item); !ok {
					return -1, i, false
				}
				i++
				if i < len(ps.ls) && ps.ls[i].indent > ind {
					return -1, i, false
				}
			}
		}
		ps.child(s, v)
	}
	return s, i, true
}

// splitKey splits "key: rest" (or "key:"), accepting plain keys that yaml.v3
// resolves to strings and simple quoted keys.
func splitKey(t string) (key, rest string, ok bool) {
	if t == "" {
		return "", "", false
	}
	if t[0] == '"' || t[0] == '\'' {
		v, n, ok := quotedScalar(t)
		if !ok || n >= len(t) || n > maxKeySpan || t[n] != ':' || (n+1 < len(t) && t[n+1] != ' ') {
			return "", "", false
		}
		return v, strings.TrimSpace(t[n+1:]), true
	}
	for i := 0; i < len(t); i++ {
		if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ') {
			k := t[:i]
			if i > maxKeySpan || !isPlainKey(k) {
				return "", "", false
			}
			return k, strings.TrimSpace(t[i+1:]), true
		}
	}
	return "", "", false
}

// maxKeySpan keeps keys well inside the 1,024 characters YAML allows an
// implicit key; yaml.v3 refuses longer ones.
const maxKeySpan = 1000

func isPlainKey(k string) bool {
	if k == "" || notKeyStart[k[0]] || k[len(k)-1] == ' ' || hasAny(k, &flowChars) {
		return false
	}
	v, ok := plainScalar(k)
	return ok && v.kind == String
}

// byteSet is a set of ASCII bytes.
type byteSet [256]bool

func newByteSet(chars string) (s byteSet) {
	for i := 0; i < len(chars); i++ {
		s[chars[i]] = true
	}
	return s
}

var (
	notKeyStart    = newByteSet("-?:,[]{}#&*!|>'\"%@`0123456789+.~")
	flowChars      = newByteSet(",[]{}#")
	indicatorStart = newByteSet("?:,[]{}#&*!|>'\"%@`<=")
)

func hasAny(s string, set *byteSet) bool {
	for i := 0; i < len(s); i++ {
		if set[s[i]] {
			return true
		}
	}
	return false
}

// isInt matches [-+]?(0|[1-9][0-9]*).
func isInt(s string) bool {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	return allDigits(s)
}

// isFloat matches [-+]?(0|[1-9][0-9]*)\.[0-9]+.
func isFloat(s string) bool {
	i, f, ok := strings.Cut(s, ".")
	return ok && i != "" && isInt(i) && f != "" && allDigits(f)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// plainScalar resolves a plain scalar as yaml.v3 does for interface{}
// targets, refusing the forms whose resolution is subtle.
func plainScalar(s string) (node, bool) {
	switch s {
	case "":
		return node{}, false
	case "~", "null", "Null", "NULL":
		return node{kind: Null}, true
	case "true", "True", "TRUE":
		return node{kind: Bool, num: 1}, true
	case "false", "False", "FALSE":
		return node{kind: Bool}, true
	}
	c := s[0]
	switch {
	case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
		if isInt(s) {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || int64(int(n)) != n {
				return node{}, false
			}
			return node{kind: Int, num: n}, true
		}
		if isFloat(s) {
			f, err := strconv.ParseFloat(s, 64)
			return node{kind: Float, flt: f}, err == nil
		}
		return node{}, false
	case indicatorStart[c]:
		return node{}, false
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, " #") {
		return node{}, false
	}
	// Only ASCII letters lowercase to these words (the Kelvin sign becomes
	// "k"), so longer texts cannot be one of them.
	if len(s) <= 4 {
		switch strings.ToLower(s) {
		case ".inf", ".nan", "y", "n", "yes", "no", "on", "off":
			return node{}, false
		}
	}
	return node{kind: String, str: s}, true
}

// quotedScalar reads a quoted scalar at the start of t and returns its value
// and the index after the closing quote. A scalar without escapes is a
// substring of t.
func quotedScalar(t string) (string, int, bool) {
	q := t[0]
	for i := 1; i < len(t); i++ {
		switch c := t[i]; {
		case c == q && (q == '"' || i+1 >= len(t) || t[i+1] != '\''):
			return t[1:i], i + 1, true
		case c == q, q == '"' && c == '\\':
			return quotedEscaped(t)
		}
	}
	return "", 0, false
}

// quotedEscaped is quotedScalar for scalars holding escapes or doubled
// single quotes.
func quotedEscaped(t string) (string, int, bool) {
	q := t[0]
	var b strings.Builder
	for i := 1; i < len(t); i++ {
		c := t[i]
		switch {
		case q == '\'' && c == '\'':
			if i+1 < len(t) && t[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, true
		case q == '"' && c == '"':
			return b.String(), i + 1, true
		case q == '"' && c == '\\':
			if i+1 >= len(t) {
				return "", 0, false
			}
			i++
			switch t[i] {
			case '"', '\\', '/':
				b.WriteByte(t[i])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", 0, false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// inlineValue parses a value on the rest of a line: a flow collection, a
// quoted scalar or a plain scalar.
func (ps *Parser) inlineValue(s string) (int32, bool) {
	switch s[0] {
	case '{', '[':
		v, n, ok := ps.flowValue(s, 0)
		if !ok || strings.TrimSpace(s[n:]) != "" {
			return -1, false
		}
		return v, true
	case '"', '\'':
		v, n, ok := quotedScalar(s)
		if !ok || strings.TrimSpace(s[n:]) != "" {
			return -1, false
		}
		return ps.add(node{kind: String, str: v}), true
	}
	x, ok := plainScalar(s)
	if !ok {
		return -1, false
	}
	return ps.add(x), true
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// flowValue parses a one-line flow collection starting at s[i].
func (ps *Parser) flowValue(s string, i int) (int32, int, bool) {
	if !ps.enter() {
		return -1, i, false
	}
	defer ps.leave()
	open := s[i]
	closeCh := byte(']')
	kind := Sequence
	if open == '{' {
		closeCh, kind = '}', Mapping
	}
	coll := ps.add(node{kind: kind})
	i = skipSpaces(s, i+1)
	if i < len(s) && s[i] == closeCh {
		return coll, i + 1, true
	}
	for i < len(s) {
		var key string
		if open == '{' {
			j := i
			for j < len(s) && s[j] != ':' && s[j] != ',' && s[j] != '}' {
				j++
			}
			if j >= len(s) || s[j] != ':' || j+1 >= len(s) || s[j+1] != ' ' {
				return -1, i, false
			}
			key = strings.TrimSpace(s[i:j])
			if j-i > maxKeySpan || !isPlainKey(key) || ps.hasKey(coll, key) {
				return -1, i, false
			}
			i = skipSpaces(s, j+1)
		}
		var v int32
		var ok bool
		switch {
		case i >= len(s):
			return -1, i, false
		case s[i] == '{' || s[i] == '[':
			if v, i, ok = ps.flowValue(s, i); !ok {
				return -1, i, false
			}
		case s[i] == '"' || s[i] == '\'':
			str, n, ok := quotedScalar(s[i:])
			if !ok {
				return -1, i, false
			}
			v = ps.add(node{kind: String, str: str})
			i += n
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' && s[j] != '}' && s[j] != '[' && s[j] != '{' {
				j++
			}
			x, ok := plainScalar(strings.TrimSpace(s[i:j]))
			if !ok || strings.IndexByte(s[i:j], ':') >= 0 && open == '[' {
				return -1, i, false
			}
			v = ps.add(x)
			i = j
		}
		ps.nodes[v].key = key
		ps.child(coll, v)
		i = skipSpaces(s, i)
		if i >= len(s) {
			return -1, i, false
		}
		switch s[i] {
		case ',':
			i = skipSpaces(s, i+1)
			if i < len(s) && (s[i] == ',' || s[i] == closeCh) {
				return -1, i, false // empty or trailing entries: leave to yaml.v3
			}
		case closeCh:
			return coll, i + 1, true
		default:
			return -1, i, false
		}
	}
	return -1, i, false
}

// printable accepts valid UTF-8 made of the characters YAML allows
// unescaped, with LF line breaks only, leaving everything else to yaml.v3's error reporting.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			return printableUTF8(s)
		} else if c < 0x20 && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

func printableUTF8(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\n':
		case r < 0x20, r >= 0x7f && r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false
		}
	}
	return true
}
