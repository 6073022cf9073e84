package shell

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word converts a parser word, walking the commands of its substitutions
// and recording the ${X:=d} assignments it makes.
func (w *walker) word(sw *syntax.Word) Word {
	if sw == nil {
		return Word{}
	}
	out := Word{Text: w.text(sw), syn: sw}
	out.Line, out.Col = w.pos(sw.Pos())
	val, static := staticValue(sw.Parts)
	out.Static = static
	out.Value = out.Text
	if static {
		out.Value = val
		out.Values = []string{val}
	}
	out.Vars = wordVars(sw.Parts)
	out.Subst = w.substs(sw)
	return out
}

// substs walks the command and process substitutions and the ${X:=d}
// expansions inside a word or other node.
func (w *walker) substs(n syntax.Node) []*Command {
	var out []*Command
	ok := walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			out = append(out, w.nested(InCmdSubst, x.Pos(), x.Stmts)...)
			return false
		case *syntax.ProcSubst:
			out = append(out, w.nested(InProcSubst, x.Pos(), x.Stmts)...)
			return false
		case *syntax.ParamExp:
			if x.Index != nil {
				w.sh.sc.index[x] = w.text(x.Index)
			}
			if x.Param != nil && x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				w.defaultAssign(x)
			}
		}
		return true
	})
	if !ok {
		w.tooDeep(n.Pos())
	}
	return out
}

// maxNodeDepth bounds how deep a syntax tree is walked; the parser's tree
// for a long a && b && … or [[ a && … ]] chain nests without brackets.
const maxNodeDepth = 4 * maxLevels

// walk is syntax.Walk with bounded depth. It reports false when the tree
// nests deeper than maxNodeDepth; the caller then fails closed.
func walk(n syntax.Node, f func(syntax.Node) bool) bool {
	depth, ok := 0, true
	syntax.Walk(n, func(x syntax.Node) bool {
		switch {
		case x == nil:
			depth--
			return false
		case !ok:
			return false
		case depth >= maxNodeDepth:
			ok = false
			return false
		case !f(x):
			return false
		}
		depth++
		return true
	})
	return ok
}

func (w *walker) tooDeep(p syntax.Pos) {
	if w.sh.err == nil {
		line, col := w.pos(p)
		w.sh.err = &Error{File: w.sh.sc.File, Line: line, Col: col, Reason: fmt.Sprintf("expression nested more than %d deep", maxNodeDepth)}
	}
}

// nested walks statements in an isolated context and returns the commands
// they hold.
func (w *walker) nested(kind NestKind, p syntax.Pos, stmts []*syntax.Stmt) []*Command {
	from := len(w.sh.sc.Commands)
	line, _ := w.pos(p)
	w.isolated(kind, line, func() { w.stmts(stmts) })
	return append([]*Command(nil), w.sh.sc.Commands[from:]...)
}

// staticValue is the value of word parts after quote removal, when they
// hold no expansion.
func staticValue(parts []syntax.WordPart) (string, bool) {
	var b strings.Builder
	for i, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(x.Value, "~") {
				return "", false // tilde expansion
			}
			b.WriteString(unescape(x.Value, false))
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes quote removal drops: any escaped
// character outside double quotes, only $ ` " \ and newline inside them.
func unescape(s string, dq bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !dq || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ansiC decodes the common escapes of a $'…' string.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i = j - 1
			} else {
				b.WriteString(`\x`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// wordVars lists the variables word parts expand, outside substitutions.
func wordVars(parts []syntax.WordPart) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(ps []syntax.WordPart)
	visit = func(ps []syntax.WordPart) {
		for _, p := range ps {
			switch x := p.(type) {
			case *syntax.DblQuoted:
				visit(x.Parts)
			case *syntax.ParamExp:
				if x.Param != nil && !seen[x.Param.Value] {
					seen[x.Param.Value] = true
					out = append(out, x.Param.Value)
				}
				if x.Exp != nil && x.Exp.Word != nil {
					visit(x.Exp.Word.Parts)
				}
				if x.Repl != nil {
					if x.Repl.Orig != nil {
						visit(x.Repl.Orig.Parts)
					}
					if x.Repl.With != nil {
						visit(x.Repl.With.Parts)
					}
				}
			}
		}
	}
	visit(parts)
	return out
}

// vars lists every variable the nodes expand or test, substitutions
// included, sorted.
func (w *walker) vars(nodes ...syntax.Node) []string {
	seen := map[string]bool{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ok := walk(n, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.ParamExp:
				if x.Param != nil {
					seen[x.Param.Value] = true
				}
			case *syntax.ArithmCmd:
				arithNames(x.X, seen)
			case *syntax.ArithmExp:
				arithNames(x.X, seen)
			}
			return true
		})
		if !ok {
			w.tooDeep(n.Pos())
		}
	}
	return sortedKeys(seen)
}

// arithNames adds the bare variable names of an arithmetic expression (the
// caller's walk bounds the depth: this one only looks at its words).
func arithNames(x syntax.ArithmExpr, seen map[string]bool) {
	if x == nil {
		return
	}
	walk(x, func(n syntax.Node) bool {
		if wd, ok := n.(*syntax.Word); ok {
			if l, ok := wd.Lit(), len(wd.Parts) == 1; ok && syntax.ValidName(l) {
				seen[l] = true
			}
			return false
		}
		return true
	})
}
