package yamlx

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastDecode decodes the plain subset of YAML the master configs are
// written in (block mappings and sequences, one-line flow collections,
// plain and quoted scalars, comments) about fifty times faster than
// yaml.v3, which matters for multi-megabyte master configs. It returns
// ok=false for anything outside that subset (anchors, tags, block scalars,
// multi-line scalars, duplicate keys, scalars whose type resolution is not
// obvious) and the caller decodes with yaml.v3 instead. FuzzFastYAML checks
// that whenever it answers, it answers exactly as yaml.v3 does.
func fastDecode(text string) (map[string]any, bool) {
	if !printable(text) {
		return nil, false
	}
	p := &subsetParser{}
	if !p.lines(text) || len(p.ls) == 0 || p.ls[0].indent != 0 {
		return nil, false
	}
	v, next, ok := p.block(0, 0)
	if !ok || next != len(p.ls) {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

type subsetLine struct {
	indent int
	text   string
}

type subsetParser struct {
	ls []subsetLine
}

func (p *subsetParser) lines(text string) bool {
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
		if rest[0] == '\t' || strings.ContainsRune(l, '\t') {
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
		p.ls = append(p.ls, subsetLine{ind, c})
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
func (p *subsetParser) block(i, ind int) (any, int, bool) {
	if i >= len(p.ls) || p.ls[i].indent != ind {
		return nil, i, false
	}
	if isSeqItem(p.ls[i].text) {
		return p.seq(i, ind)
	}
	return p.mapping(i, ind)
}

func (p *subsetParser) mapping(i, ind int) (any, int, bool) {
	m := map[string]any{}
	for i < len(p.ls) && p.ls[i].indent == ind && !isSeqItem(p.ls[i].text) {
		key, rest, ok := splitKey(p.ls[i].text)
		if !ok {
			return nil, i, false
		}
		if _, dup := m[key]; dup {
			return nil, i, false
		}
		i++
		var v any
		switch {
		case rest != "":
			if v, ok = inlineValue(rest); !ok {
				return nil, i, false
			}
			if i < len(p.ls) && p.ls[i].indent > ind {
				return nil, i, false // multi-line scalar
			}
		case i < len(p.ls) && p.ls[i].indent > ind:
			if v, i, ok = p.block(i, p.ls[i].indent); !ok {
				return nil, i, false
			}
		case i < len(p.ls) && p.ls[i].indent == ind && isSeqItem(p.ls[i].text):
			if v, i, ok = p.seq(i, ind); !ok {
				return nil, i, false
			}
		}
		m[key] = v
	}
	if i < len(p.ls) && p.ls[i].indent > ind {
		return nil, i, false
	}
	return m, i, true
}

func (p *subsetParser) seq(i, ind int) (any, int, bool) {
	out := []any{}
	for i < len(p.ls) && p.ls[i].indent == ind && isSeqItem(p.ls[i].text) {
		t := p.ls[i].text
		item := strings.TrimLeft(t[1:], " ")
		col := ind + len(t) - len(item)
		var v any
		var ok bool
		switch {
		case item == "":
			i++
			if i < len(p.ls) && p.ls[i].indent > ind {
				if v, i, ok = p.block(i, p.ls[i].indent); !ok {
					return nil, i, false
				}
			}
		case isSeqItem(item):
			return nil, i, false // nested compact sequences: leave to yaml.v3
		default:
			if _, _, isKey := splitKey(item); isKey && item[0] != '{' && item[0] != '[' {
				// A compact mapping "- k: v" continues on lines indented to
				// the column of k.
				p.ls[i] = subsetLine{col, item}
				if v, i, ok = p.mapping(i, col); !ok {
					return nil, i, false
				}
			} else {
				if v, ok = inlineValue(item); !ok {
					return nil, i, false
				}
				i++
				if i < len(p.ls) && p.ls[i].indent > ind {
					return nil, i, false
				}
			}
		}
		out = append(out, v)
	}
	return out, i, true
}

// splitKey splits "key: rest" (or "key:"), accepting plain keys that yaml.v3
// resolves to strings and simple quoted keys.
func splitKey(t string) (key, rest string, ok bool) {
	if t == "" {
		return "", "", false
	}
	if t[0] == '"' || t[0] == '\'' {
		v, n, ok := quotedScalar(t)
		if !ok || n >= len(t) || t[n] != ':' || (n+1 < len(t) && t[n+1] != ' ') {
			return "", "", false
		}
		return v, strings.TrimSpace(t[n+1:]), true
	}
	for i := 0; i < len(t); i++ {
		if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ') {
			k := t[:i]
			if !isPlainKey(k) {
				return "", "", false
			}
			return k, strings.TrimSpace(t[i+1:]), true
		}
	}
	return "", "", false
}

func isPlainKey(k string) bool {
	if k == "" || strings.ContainsAny(k[:1], "-?:,[]{}#&*!|>'\"%@`0123456789+.~") || strings.HasSuffix(k, " ") ||
		strings.ContainsAny(k, ",[]{}#") {
		return false
	}
	v, ok := plainScalar(k)
	_, isStr := v.(string)
	return ok && isStr
}

// isInt matches [-+]?(0|[1-9][0-9]*).
func isInt(s string) bool {
	s = strings.TrimLeft(s[:1], "+-") + s[1:]
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
func plainScalar(s string) (any, bool) {
	switch s {
	case "":
		return nil, false
	case "~", "null", "Null", "NULL":
		return nil, true
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	c := s[0]
	switch {
	case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
		if isInt(s) {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || int64(int(n)) != n {
				return nil, false
			}
			return int(n), true
		}
		if isFloat(s) {
			f, err := strconv.ParseFloat(s, 64)
			return f, err == nil
		}
		return nil, false
	case strings.ContainsRune("?:,[]{}#&*!|>'\"%@`<=", rune(c)):
		return nil, false
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, " #") {
		return nil, false
	}
	switch strings.ToLower(s) {
	case ".inf", ".nan", "y", "n", "yes", "no", "on", "off":
		return nil, false
	}
	return s, true
}

// quotedScalar reads a quoted scalar at the start of t and returns its value
// and the index after the closing quote.
func quotedScalar(t string) (string, int, bool) {
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
func inlineValue(s string) (any, bool) {
	switch s[0] {
	case '{', '[':
		v, n, ok := flowValue(s, 0)
		if !ok || strings.TrimSpace(s[n:]) != "" {
			return nil, false
		}
		return v, true
	case '"', '\'':
		v, n, ok := quotedScalar(s)
		if !ok || strings.TrimSpace(s[n:]) != "" {
			return nil, false
		}
		return v, true
	}
	return plainScalar(s)
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// flowValue parses a one-line flow collection starting at s[i].
func flowValue(s string, i int) (any, int, bool) {
	open := s[i]
	closeCh := byte(']')
	if open == '{' {
		closeCh = '}'
	}
	i = skipSpaces(s, i+1)
	var list []any
	m := map[string]any{}
	if i < len(s) && s[i] == closeCh {
		if open == '{' {
			return m, i + 1, true
		}
		return []any{}, i + 1, true
	}
	for i < len(s) {
		var key string
		if open == '{' {
			j := i
			for j < len(s) && s[j] != ':' && s[j] != ',' && s[j] != '}' {
				j++
			}
			if j >= len(s) || s[j] != ':' || j+1 >= len(s) || s[j+1] != ' ' {
				return nil, i, false
			}
			key = strings.TrimSpace(s[i:j])
			if !isPlainKey(key) {
				return nil, i, false
			}
			if _, dup := m[key]; dup {
				return nil, i, false
			}
			i = skipSpaces(s, j+1)
		}
		var v any
		var ok bool
		switch {
		case i >= len(s):
			return nil, i, false
		case s[i] == '{' || s[i] == '[':
			if v, i, ok = flowValue(s, i); !ok {
				return nil, i, false
			}
		case s[i] == '"' || s[i] == '\'':
			var n int
			if v, n, ok = quotedValue(s[i:]); !ok {
				return nil, i, false
			}
			i += n
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' && s[j] != '}' && s[j] != '[' && s[j] != '{' {
				j++
			}
			if v, ok = plainScalar(strings.TrimSpace(s[i:j])); !ok || strings.Contains(s[i:j], ":") && open == '[' {
				return nil, i, false
			}
			i = j
		}
		if open == '{' {
			m[key] = v
		} else {
			list = append(list, v)
		}
		i = skipSpaces(s, i)
		if i >= len(s) {
			return nil, i, false
		}
		switch s[i] {
		case ',':
			i = skipSpaces(s, i+1)
			if i < len(s) && (s[i] == ',' || s[i] == closeCh) {
				return nil, i, false // empty or trailing entries: leave to yaml.v3
			}
		case closeCh:
			if open == '{' {
				return m, i + 1, true
			}
			return list, i + 1, true
		default:
			return nil, i, false
		}
	}
	return nil, i, false
}

func quotedValue(s string) (any, int, bool) {
	v, n, ok := quotedScalar(s)
	return v, n, ok
}

// printable accepts valid UTF-8 made of the characters YAML allows
// unescaped, with LF line breaks only, leaving everything else to yaml.v3's error reporting.
func printable(s string) bool {
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
