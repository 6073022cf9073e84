package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// simple records one simple command: its words first (their substitutions
// run before it), then the command, then what it does to the shell's state.
func (w *walker) simple(st *syntax.Stmt, as []*syntax.Assign, args []*syntax.Word) {
	c := &Command{}
	kind := AssignPrefix
	if len(args) == 0 {
		kind = AssignPlain
	}
	var assigns []*Assign
	for _, a := range as {
		if x := w.assign(a, kind, c); x != nil {
			assigns = append(assigns, x)
		}
	}
	for _, a := range args {
		c.Args = append(c.Args, w.word(a))
	}
	c.Redirs = w.redirects(st.Redirs)
	w.finishCommand(c, st, stmtEnd(st))
	for _, a := range assigns {
		a.Exported = a.Exported || kind == AssignPrefix || w.allexport
		a.Local = w.locals[a.Name]
		c.Assigns = append(c.Assigns, a)
		w.addAssign(a)
	}
	w.effects(c)
}

// stmtEnd is where a statement's own text ends: after its last word or
// redirection target, before any heredoc body.
func stmtEnd(st *syntax.Stmt) syntax.Pos {
	end := st.Pos()
	later := func(p syntax.Pos) {
		if p.IsValid() && p.After(end) {
			end = p
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			later(a.End())
		}
		for _, a := range c.Args {
			later(a.End())
		}
	case nil:
	default:
		later(c.End())
	}
	for _, r := range st.Redirs {
		if r.Word != nil {
			later(r.Word.End())
		} else {
			later(r.End())
		}
	}
	return end
}

func (w *walker) finishCommand(c *Command, st *syntax.Stmt, end syntax.Pos) {
	c.Site = w.site(st.Pos(), st.Pos())
	c.Text = w.span(st.Pos(), end)
	c.EndLine, _ = w.pos(end)
	c.Dir = w.st.dir
	c.PipeIn = w.pipeFrom[st]
	if len(c.Args) > 0 {
		c.Name = c.Args[0].Value
	}
	w.cmdOf[st] = c
	w.sh.sc.Commands = append(w.sh.sc.Commands, c)
}

// assign converts one parser assignment (nil for a dynamic declaration
// argument such as `export "$x"`).
func (w *walker) assign(a *syntax.Assign, kind AssignKind, c *Command) *Assign {
	if a.Name == nil {
		return nil
	}
	x := &Assign{Name: a.Name.Value, Kind: kind, Append: a.Append, Cmd: c, Naked: a.Naked}
	if a.Index != nil {
		x.Index = w.text(a.Index)
	}
	switch {
	case a.Array != nil:
		x.IsArray = true
		t := w.text(a.Array)
		x.Value = Word{Text: t, Value: t}
		x.Value.Line, x.Value.Col = w.pos(a.Array.Pos())
		for _, e := range a.Array.Elems {
			el := Elem{Value: w.word(e.Value)}
			if e.Index != nil {
				el.Key = w.text(e.Index)
			}
			x.Elems = append(x.Elems, el)
		}
	case a.Value != nil:
		x.Value = w.word(a.Value)
		x.path, x.pathOK = w.sh.sc.pathOf(a.Value, w.st.dir, w.siteAt(a.Pos()), 0)
	case !a.Naked:
		x.Value = Word{Static: true, Values: []string{""}}
		x.Value.Line, x.Value.Col = w.pos(a.End())
	}
	x.Site = w.site(a.Pos(), a.End())
	return x
}

// siteAt is the site of a position for lookups made during the walk.
func (w *walker) siteAt(p syntax.Pos) *Site {
	s := w.site(p, p)
	return &s
}

// addAssign records an assignment, keeping each name's list ordered by
// where the assignments take effect (lookups during the walk rely on it).
func (w *walker) addAssign(a *Assign) {
	sc := w.sh.sc
	sc.Assigns = append(sc.Assigns, a)
	sc.byName[a.Name] = insertByOff(sc.byName[a.Name], a)
	gs := sc.groups[a.Name]
	if gs == nil {
		gs = map[groupKey]*group{}
		sc.groups[a.Name] = gs
	}
	k := groupKey{fn: a.fn, iso: a.isoK}
	g := gs[k]
	if g == nil {
		g = &group{key: k, iso: a.iso}
		gs[k] = g
	}
	g.list = insertByOff(g.list, a)
}

func insertByOff(as []*Assign, a *Assign) []*Assign {
	as = append(as, a)
	for i := len(as) - 1; i > 0 && as[i-1].off > as[i].off; i-- {
		as[i-1], as[i] = as[i], as[i-1]
	}
	return as
}

// defaultAssign records ${X:=d}: X gets d when it is unset (or empty).
func (w *walker) defaultAssign(p *syntax.ParamExp) {
	a := &Assign{Name: p.Param.Value, Kind: AssignDefault, Local: w.locals[p.Param.Value], Exported: w.allexport}
	if p.Exp.Word != nil {
		a.Value = w.word(p.Exp.Word)
		a.path, a.pathOK = w.sh.sc.pathOf(p.Exp.Word, w.st.dir, w.siteAt(p.Pos()), 0)
	} else {
		a.Value = Word{Static: true, Values: []string{""}}
	}
	a.Site = w.site(p.Pos(), p.End())
	w.addAssign(a)
}

// decl records export/declare/local/readonly/typeset as a command and its
// assignments.
func (w *walker) decl(st *syntax.Stmt, d *syntax.DeclClause) {
	c := &Command{}
	variant := d.Variant.Value
	vw := Word{Text: variant, Value: variant, Static: true, Values: []string{variant}}
	vw.Line, vw.Col = w.pos(d.Variant.Pos())
	c.Args = append(c.Args, vw)
	on, off := "", ""
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if v, ok := staticValue(a.Value.Parts); ok && len(v) > 1 && (v[0] == '-' || v[0] == '+') {
				if v[0] == '-' {
					on += v[1:]
				} else {
					off += v[1:]
				}
			}
		}
	}
	exported := variant == "export" && !strings.Contains(on, "n") || strings.Contains(on, "x")
	local := variant == "local" || (variant == "declare" || variant == "typeset") && w.fn != nil && !strings.Contains(on, "g")
	values := !strings.ContainsAny(on, "fFp")
	var assigns []*Assign
	for _, a := range d.Args {
		if a.Name == nil {
			c.Args = append(c.Args, w.word(a.Value))
			continue
		}
		x := w.assign(a, AssignDecl, c)
		c.Args = append(c.Args, declWord(w, a, x))
		if values {
			x.Decl, x.Exported, x.Local = variant, exported || w.allexport, local
			x.IsArray = x.IsArray || strings.ContainsAny(on, "aA") && x.Naked
			assigns = append(assigns, x)
		}
	}
	c.Redirs = w.redirects(st.Redirs)
	w.finishCommand(c, st, stmtEnd(st))
	for _, x := range assigns {
		if x.Local && w.locals != nil {
			w.locals[x.Name] = true
		}
		c.Assigns = append(c.Assigns, x)
		w.addAssign(x)
	}
}

// declWord is the word a declaration argument would be: NAME=value.
func declWord(w *walker, a *syntax.Assign, x *Assign) Word {
	out := Word{Text: w.text(a)}
	out.Line, out.Col = w.pos(a.Pos())
	out.Value = out.Text
	out.Vars = x.Value.Vars
	if a.Naked || x.Value.Static && !x.IsArray {
		out.Static = true
		out.Value = a.Name.Value
		if !a.Naked {
			op := "="
			if a.Append {
				op = "+="
			}
			out.Value += x.Index + op + x.Value.Value
		}
		out.Values = []string{out.Value}
	}
	return out
}

func (w *walker) let(st *syntax.Stmt, l *syntax.LetClause) {
	c := &Command{}
	lw := Word{Text: "let", Value: "let", Static: true, Values: []string{"let"}}
	lw.Line, lw.Col = w.pos(l.Let)
	c.Args = append(c.Args, lw)
	for _, e := range l.Exprs {
		w.substs(e)
		t := w.text(e)
		ew := Word{Text: t, Value: t}
		ew.Line, ew.Col = w.pos(e.Pos())
		c.Args = append(c.Args, ew)
	}
	c.Redirs = w.redirects(st.Redirs)
	w.finishCommand(c, st, stmtEnd(st))
}

func (w *walker) redirects(rs []*syntax.Redirect) []Redirect {
	var out []Redirect
	for _, r := range rs {
		x := Redirect{Op: r.Op.String(), Target: w.word(r.Word)}
		if r.N != nil {
			x.N = r.N.Value
		}
		x.Line, _ = w.pos(r.OpPos)
		if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
			x.Heredoc = w.heredoc(r)
		}
		out = append(out, x)
	}
	return out
}

// heredoc reads a heredoc body from the source (the parser's span ends
// with the delimiter line, which is not part of the body).
func (w *walker) heredoc(r *syntax.Redirect) *Heredoc {
	h := &Heredoc{StripTabs: r.Op == syntax.DashHdoc}
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			switch x := p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				h.Quoted = true
			case *syntax.Lit:
				if strings.Contains(x.Value, `\`) {
					h.Quoted = true
				}
			}
		}
		h.Delim, _ = staticValue(r.Word.Parts)
		if h.Delim == "" {
			h.Delim = strings.Trim(w.text(r.Word), `'"\`)
		}
	}
	h.Line, _ = w.pos(r.OpPos)
	h.Line++
	if r.Hdoc == nil {
		return h
	}
	h.Line, _ = w.pos(r.Hdoc.Pos())
	h.off = w.off(r.Hdoc.Pos())
	body := w.text(r.Hdoc)
	if i := strings.LastIndexByte(body, '\n'); i >= 0 {
		last := body[i+1:]
		if strings.TrimLeft(last, "\t") == h.Delim {
			body = body[:i+1]
		}
	} else if strings.TrimLeft(body, "\t") == h.Delim {
		body = ""
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if h.StripTabs {
		lines := strings.SplitAfter(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		body = strings.Join(lines, "")
	}
	h.Body = body
	if !h.Quoted {
		h.Vars = wordVars(r.Hdoc.Parts)
		w.substs(r.Hdoc)
	}
	return h
}
