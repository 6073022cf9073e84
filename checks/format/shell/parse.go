package shell

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

const (
	// MaxBytes bounds the script size Parse accepts.
	MaxBytes = 1 << 20
	// maxLevels bounds bracket nesting (the parser recurses on it) and the
	// nesting of statements the walk follows.
	maxLevels = 1000
	// maxSteps bounds the assignments looked at while following variables.
	maxSteps = 20_000_000
	// maxNesting bounds how deep shell strings inside shell strings are
	// parsed.
	maxNesting = 4
	// maxFixes bounds the associative-subscript retries of one source.
	maxFixes = 256
)

// Parse reads one bash script. file names it in positions and errors.
func Parse(file string, src []byte) (*Script, error) {
	if len(src) > MaxBytes {
		return nil, &Error{File: file, Reason: fmt.Sprintf("script is %d bytes, more than the %d this reader accepts", len(src), MaxBytes)}
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		line, col := lineCol(src, i)
		return nil, &Error{File: file, Line: line, Col: col, Reason: "NUL byte: not a text script"}
	}
	f, err := parseBash(file, src)
	if err != nil {
		return nil, toError(file, err, 0, 0)
	}
	sc := &Script{File: file, byName: map[string][]*Assign{}, groups: map[string]map[groupKey]*group{}, memo: map[memoKey]*expansion{}, chains: map[int]chain{}, index: map[*syntax.ParamExp]string{}}
	sc.limit = maxSteps
	sh := &shared{sc: sc}
	w := newWalker(sh, string(src), 0, 0, 0)
	w.stmts(f.Stmts)
	if sh.err != nil {
		return nil, sh.err
	}
	sc.finish()
	if sc.over() {
		return nil, &Error{File: file, Reason: fmt.Sprintf("too many variable assignments to follow statically (more than %d lookups)", maxSteps)}
	}
	sc.limit = 0
	return sc, nil
}

// parseBash parses src as bash, retrying with associative-array subscripts
// the parser cannot read as arithmetic replaced (see the package comment).
func parseBash(name string, src []byte) (*syntax.File, error) {
	if off := tooDeep(src); off >= 0 {
		line, col := lineCol(src, off)
		return nil, &Error{File: name, Line: line, Col: col, Reason: fmt.Sprintf("brackets nested more than %d deep", maxLevels)}
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(bytes.NewReader(src), name)
	if err == nil {
		return f, nil
	}
	first := err
	buf := append([]byte(nil), src...)
	var fixes []int
	for range maxFixes {
		at, ok := errPos(err)
		if !ok {
			return nil, first
		}
		start, repl, ok := subscriptAt(buf, int(at.Offset()))
		if !ok || bytes.Equal(buf[start:start+len(repl)], repl) {
			return nil, first
		}
		copy(buf[start:], repl)
		fixes = append(fixes, start)
		f, err = p.Parse(bytes.NewReader(buf), name)
		if err == nil {
			if !associative(f, fixes) {
				return nil, first
			}
			return f, nil
		}
	}
	return nil, first
}

// tooDeep returns the offset where ( and { nest more than maxLevels deep,
// counted on the raw bytes (quotes and comments included, so it can only
// over-count), or -1.
func tooDeep(src []byte) int {
	d := 0
	for i, c := range src {
		switch c {
		case '(', '{':
			if d++; d > maxLevels {
				return i
			}
		case ')', '}':
			if d > 0 {
				d--
			}
		}
	}
	return -1
}

// subscriptAt finds the [ … ] subscript on the line around offset off and
// returns it rewritten so the parser reads it as arithmetic: every byte
// outside $NAME and ${…} expansions that is not a letter, digit or _
// becomes _ (a:b → a_b, ${A}:${B} → ${A}_${B}). Subscripts with quotes,
// spaces or command substitutions are left alone.
func subscriptAt(b []byte, off int) (start int, repl []byte, ok bool) {
	if off >= len(b) {
		off = len(b) - 1
	}
	lb := -1
	for i := off; i >= 0 && b[i] != '\n'; i-- {
		if b[i] == '[' && (i == 0 || b[i-1] != '$') {
			lb = i
			break
		}
	}
	if lb < 0 {
		return 0, nil, false
	}
	var out []byte
	for i := lb + 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == ']':
			if len(out) == 0 || i < off {
				return 0, nil, false
			}
			return lb + 1, out, true
		case c == '$' && i+1 < len(b) && b[i+1] == '{':
			j, depth := i+1, 0
			for ; j < len(b) && b[j] != '\n'; j++ {
				if b[j] == '{' {
					depth++
				} else if b[j] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if j >= len(b) || b[j] != '}' {
				return 0, nil, false
			}
			out = append(out, b[i:j+1]...)
			i = j
		case c == '$':
			out = append(out, c)
		case c <= ' ' || strings.IndexByte("'\"`\\()[{}<>|&;", c) >= 0:
			return 0, nil, false
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			out = append(out, c)
		default:
			out = append(out, '_')
		}
	}
	return 0, nil, false
}

// associative reports whether every replaced subscript belongs to an array
// the script declares with -A.
func associative(f *syntax.File, fixes []int) bool {
	want := map[int]bool{}
	for _, o := range fixes {
		want[o] = true
	}
	owner := map[int]string{}
	assoc := map[string]bool{}
	complete := walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DeclClause:
			isA := false
			for _, a := range x.Args {
				if a.Naked && a.Name == nil && a.Value != nil {
					if v := a.Value.Lit(); strings.HasPrefix(v, "-") && strings.Contains(v, "A") {
						isA = true
					}
				}
			}
			for _, a := range x.Args {
				if isA && a.Name != nil {
					assoc[a.Name.Value] = true
				}
			}
		case *syntax.Assign:
			if x.Name == nil {
				break
			}
			if x.Index != nil && want[int(x.Index.Pos().Offset())] {
				owner[int(x.Index.Pos().Offset())] = x.Name.Value
			}
			if x.Array != nil {
				for _, e := range x.Array.Elems {
					if e.Index != nil && want[int(e.Index.Pos().Offset())] {
						owner[int(e.Index.Pos().Offset())] = x.Name.Value
					}
				}
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Index != nil && want[int(x.Index.Pos().Offset())] {
				owner[int(x.Index.Pos().Offset())] = x.Param.Value
			}
		}
		return true
	})
	if !complete {
		return false
	}
	for _, o := range fixes {
		if n, ok := owner[o]; !ok || !assoc[n] {
			return false
		}
	}
	return true
}

// errPos is where a parser error points.
func errPos(err error) (syntax.Pos, bool) {
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		return pe.Pos, true
	case errors.As(err, &le):
		return le.Pos, true
	}
	return syntax.Pos{}, false
}

// toError turns a parser error into an *Error; line0/col0 shift positions
// of a nested source into the file.
func toError(file string, err error, line0, col0 int) *Error {
	var pe syntax.ParseError
	var le syntax.LangError
	var own *Error
	if errors.As(err, &own) {
		e := *own
		if e.Line == 1 {
			e.Col += col0
		}
		e.Line += line0
		return &e
	}
	e := &Error{File: file, Reason: err.Error()}
	var p syntax.Pos
	switch {
	case errors.As(err, &pe):
		p, e.Reason = pe.Pos, pe.Text
	case errors.As(err, &le):
		p = le.Pos
		e.Reason = fmt.Sprintf("%s is not bash syntax", le.Feature)
	default:
		return e
	}
	e.Line, e.Col = int(p.Line()), int(p.Col())
	if e.Line == 1 {
		e.Col += col0
	}
	e.Line += line0
	return e
}

func lineCol(b []byte, off int) (int, int) {
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// finish orders what the walk recorded and computes the word values.
func (sc *Script) finish() {
	sort.SliceStable(sc.Commands, func(i, j int) bool { return sc.Commands[i].start < sc.Commands[j].start })
	sort.SliceStable(sc.Assigns, func(i, j int) bool { return sc.Assigns[i].off < sc.Assigns[j].off })
	for _, c := range sc.Commands {
		for i := range c.Args {
			sc.fill(&c.Args[i], &c.Site)
		}
		for i := range c.Redirs {
			sc.fill(&c.Redirs[i].Target, &c.Site)
		}
	}
	for _, a := range sc.Assigns {
		at := a.Site
		at.off = at.start
		sc.fill(&a.Value, &at)
		for i := range a.Elems {
			sc.fill(&a.Elems[i].Value, &at)
		}
	}
}

// fill computes a word's Values and FromEnv.
func (sc *Script) fill(w *Word, at *Site) {
	if w.syn == nil || w.Static {
		return
	}
	vals, env, ok := sc.expandWord(w.syn, at, 0)
	w.FromEnv = env
	if ok && len(vals) > 0 {
		w.Values = vals
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
