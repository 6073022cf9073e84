package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shared is the state every walker of one file shares, nested shell strings
// included.
type shared struct {
	sc  *Script
	ids int
	err *Error
}

func (sh *shared) id() int {
	sh.ids++
	return sh.ids
}

// walker visits statements in source order, keeping the context a command
// runs in.
type walker struct {
	sh *shared

	src         string // the source being walked: the file or a nested string
	base        int    // offset of src in the file
	line0, col0 int    // shift of src's positions into the file
	depth       int    // nesting of parsed shell strings
	levels      int    // nesting of statements being walked
	conds       []*Cond
	nest        []Nest
	iso         []int
	isoK        string // iso as a map key
	fn          *Function
	locals      map[string]bool
	allexport   bool
	st          dirState
	cmdOf       map[*syntax.Stmt]*Command
	pipeFrom    map[*syntax.Stmt]*Command
}

func newWalker(sh *shared, src string, base, line0, col0 int) *walker {
	return &walker{
		sh: sh, src: src, base: base, line0: line0, col0: col0,
		st:       dirState{dir: Dir{Base: DirStart, Path: "."}},
		cmdOf:    map[*syntax.Stmt]*Command{},
		pipeFrom: map[*syntax.Stmt]*Command{},
	}
}

func (w *walker) pos(p syntax.Pos) (line, col int) {
	l, c := int(p.Line()), int(p.Col())
	if l == 1 {
		c += w.col0
	}
	return l + w.line0, c
}

func (w *walker) off(p syntax.Pos) int { return w.base + int(p.Offset()) }

func (w *walker) span(from, to syntax.Pos) string {
	a, b := int(from.Offset()), int(to.Offset())
	if a < 0 || b > len(w.src) || a > b {
		return ""
	}
	return w.src[a:b]
}

func (w *walker) text(n syntax.Node) string { return w.span(n.Pos(), n.End()) }

// stmtsText is the source of a statement list without its final ; or &.
func (w *walker) stmtsText(list []*syntax.Stmt) string {
	if len(list) == 0 {
		return ""
	}
	return strings.TrimRight(w.span(list[0].Pos(), list[len(list)-1].End()), "; \t")
}

func (w *walker) site(start, effect syntax.Pos) Site {
	line, col := w.pos(start)
	s := Site{
		Line: line, Col: col,
		Conds: w.conds, Nest: w.nest, iso: w.iso,
		start: w.off(start), off: w.off(effect), fn: w.fn, isoK: w.isoK,
	}
	if w.fn != nil {
		s.Func = w.fn.Name
	}
	return s
}

// enter counts one more level of nesting; past maxLevels the script is
// refused rather than followed.
func (w *walker) enter(p syntax.Pos) bool {
	w.levels++
	if w.levels <= maxLevels {
		return w.sh.err == nil
	}
	if w.sh.err == nil {
		line, col := w.pos(p)
		w.sh.err = &Error{File: w.sh.sc.File, Line: line, Col: col, Reason: fmt.Sprintf("statements nested more than %d deep", maxLevels)}
	}
	return false
}

func (w *walker) leave() { w.levels-- }

// push and the nest helpers copy the slices so sites never share a
// backing array that a later push would overwrite.
func (w *walker) push(c *Cond) func() {
	saved := w.conds
	w.conds = append(append([]*Cond(nil), w.conds...), c)
	return func() { w.conds = saved }
}

// isolated runs f as a child process would: what it assigns, exports and
// where it cds stays inside; the directories it creates stay on disk.
func (w *walker) isolated(kind NestKind, line int, f func()) {
	savedNest, savedIso, savedIsoK, savedState, savedAll, savedLocals := w.nest, w.iso, w.isoK, w.st, w.allexport, w.locals
	w.nest = append(append([]Nest(nil), w.nest...), Nest{Kind: kind, Line: line})
	w.iso = append(append([]int(nil), w.iso...), w.sh.id())
	w.isoK = isoKey(w.iso)
	if w.locals != nil {
		w.locals = copySet(w.locals)
	}
	f()
	w.nest, w.iso, w.isoK, w.st, w.allexport, w.locals = savedNest, savedIso, savedIsoK, savedState, savedAll, savedLocals
}

func copySet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		w.stmt(st)
	}
}

func (w *walker) stmt(st *syntax.Stmt) {
	if !w.enter(st.Pos()) {
		return
	}
	defer w.leave()
	if st.Background || st.Coprocess || st.Disown {
		line, _ := w.pos(st.Pos())
		w.isolated(InBackground, line, func() { w.command(st) })
		return
	}
	w.command(st)
}

func (w *walker) command(st *syntax.Stmt) {
	switch c := st.Cmd.(type) {
	case nil:
		w.simple(st, nil, nil)
		return
	case *syntax.CallExpr:
		w.simple(st, c.Assigns, c.Args)
		return
	case *syntax.DeclClause:
		w.decl(st, c)
		return
	case *syntax.LetClause:
		w.let(st, c)
		return
	}
	// The redirections of a compound command ({ …; } > f, done < <(…))
	// apply to every command inside it that does not redirect itself.
	rs := w.redirects(st.Redirs)
	from := len(w.sh.sc.Commands)
	w.compound(st)
	for i := range rs {
		rs[i].Inherited = true
	}
	for _, c := range w.sh.sc.Commands[from:] {
		c.Redirs = append(c.Redirs, rs...)
	}
}

func (w *walker) compound(st *syntax.Stmt) {
	switch c := st.Cmd.(type) {
	case *syntax.IfClause:
		w.ifClause(c)
	case *syntax.CaseClause:
		w.caseClause(c)
	case *syntax.WhileClause:
		w.whileClause(c)
	case *syntax.ForClause:
		w.forClause(c)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.Subshell:
		w.nested(InSubshell, c.Pos(), c.Stmts)
	case *syntax.BinaryCmd:
		w.binary(c)
	case *syntax.FuncDecl:
		w.funcDecl(c)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt)
		}
	case *syntax.CoprocClause:
		line, _ := w.pos(c.Pos())
		w.isolated(InBackground, line, func() { w.stmt(c.Stmt) })
	default:
		w.substs(c)
	}
}

func (w *walker) ifClause(c *syntax.IfClause) {
	chain := w.sh.id()
	start := w.st
	var ends []dirState
	var prior []string
	var priorNodes []syntax.Node
	hasElse := false
	for cl := c; cl != nil; cl = cl.Else {
		line, _ := w.pos(cl.Position)
		if len(cl.Cond) == 0 {
			hasElse = true
			cond := &Cond{Kind: CondIf, Branch: "else", Prior: prior, Vars: w.vars(priorNodes...), Line: line, chain: chain}
			ends = append(ends, w.branch(start, cond, cl.Then))
			break
		}
		branch := "then"
		if cl != c {
			branch = "elif"
			// An elif condition runs when the earlier ones failed (and
			// before its own branch, which it does not exclude).
			pop := w.push(&Cond{Kind: CondIf, Branch: "else", Prior: prior, Vars: w.vars(priorNodes...), Line: line})
			w.st = start
			w.stmts(cl.Cond)
			pop()
		} else {
			w.stmts(cl.Cond)
			start = w.st
		}
		text := w.stmtsText(cl.Cond)
		nodes := append(append([]syntax.Node(nil), priorNodes...), stmtNodes(cl.Cond)...)
		cond := &Cond{Kind: CondIf, Branch: branch, Text: text, Prior: append([]string(nil), prior...), Vars: w.vars(nodes...), Line: line, chain: chain}
		ends = append(ends, w.branch(start, cond, cl.Then))
		prior = append(prior, text)
		priorNodes = nodes
	}
	w.sh.sc.chains[chain] = chainInfo(len(ends), hasElse)
	if !hasElse {
		ends = append(ends, start)
	}
	w.st = mergeStates(ends...)
}

func chainInfo(n int, complete bool) chain { return chain{branches: n, complete: complete} }

// branch walks the statements of one branch from state start.
func (w *walker) branch(start dirState, c *Cond, list []*syntax.Stmt) dirState {
	w.st = start
	pop := w.push(c)
	w.stmts(list)
	pop()
	return w.st
}

func stmtNodes(list []*syntax.Stmt) []syntax.Node {
	out := make([]syntax.Node, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

func (w *walker) caseClause(c *syntax.CaseClause) {
	chain := w.sh.id()
	for _, it := range c.Items {
		if it.Op == syntax.Fallthrough || it.Op == syntax.Resume {
			chain = 0 // ;& and ;;& run more than one arm
		}
	}
	w.substs(c.Word)
	text := w.text(c.Word)
	vars := w.vars(c.Word)
	start := w.st
	var ends []dirState
	var prior []string
	catchAll := false
	for _, it := range c.Items {
		var pats []string
		for _, p := range it.Patterns {
			pats = append(pats, w.text(p))
			if p.Lit() == "*" {
				catchAll = true
			}
		}
		pat := strings.Join(pats, "|")
		line, _ := w.pos(it.Pos())
		cond := &Cond{Kind: CondCase, Branch: pat, Text: text, Prior: append([]string(nil), prior...), Vars: vars, Line: line, chain: chain}
		ends = append(ends, w.branch(start, cond, it.Stmts))
		prior = append(prior, pat)
	}
	if chain != 0 {
		w.sh.sc.chains[chain] = chainInfo(len(ends), catchAll)
	}
	if !catchAll {
		ends = append(ends, start)
	}
	w.st = mergeStates(ends...)
}

func (w *walker) whileClause(c *syntax.WhileClause) {
	w.stmts(c.Cond)
	kind := CondWhile
	if c.Until {
		kind = CondUntil
	}
	line, _ := w.pos(c.Pos())
	start := w.st
	cond := &Cond{Kind: kind, Branch: "do", Text: w.stmtsText(c.Cond), Vars: w.vars(stmtNodes(c.Cond)...), Line: line}
	end := w.branch(start, cond, c.Do)
	w.st = mergeStates(start, end)
}

func (w *walker) forClause(c *syntax.ForClause) {
	line, _ := w.pos(c.Pos())
	start := w.st
	cond := &Cond{Kind: CondFor, Branch: "do", Text: w.text(c.Loop), Vars: w.vars(c.Loop), Line: line}
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		items := make([]Word, len(l.Items))
		for i, it := range l.Items {
			items[i] = w.word(it)
		}
		pop := w.push(cond)
		group := w.sh.id()
		if len(l.Items) == 0 {
			items = []Word{{Text: `"$@"`, Value: `"$@"`, FromEnv: true, Line: line}}
		}
		for _, it := range items {
			a := &Assign{Name: l.Name.Value, Kind: AssignFor, Value: it, Local: w.locals[l.Name.Value]}
			a.Site = w.site(l.Pos(), l.End())
			a.group = group
			w.addAssign(a)
		}
		w.stmts(c.Do)
		pop()
	default:
		w.substs(c.Loop)
		pop := w.push(cond)
		w.stmts(c.Do)
		pop()
	}
	w.st = mergeStates(start, w.st)
}

// binary walks && / || lists (the right side runs under the left side as a
// condition) and pipelines (each part in its own process).
func (w *walker) binary(c *syntax.BinaryCmd) {
	switch c.Op {
	case syntax.AndStmt, syntax.OrStmt:
		succ, fail := w.list(c)
		w.st = mergeStates(succ, fail)
	default:
		parts := pipeParts(c)
		var prev *Command
		for _, p := range parts {
			if prev != nil {
				w.pipeFrom[p] = prev
			}
			line, _ := w.pos(p.Pos())
			w.isolated(InPipeline, line, func() { w.stmt(p) })
			prev = w.tail(p)
		}
	}
}

// list walks an && / || list and returns the directory state after it
// succeeded and after it failed: `git clone … && cd x && bash y` runs y in x,
// while the statement after the list may run where the clone failed.
func (w *walker) list(st syntax.Node) (succ, fail dirState) {
	var c *syntax.BinaryCmd
	switch x := st.(type) {
	case *syntax.BinaryCmd:
		c = x
	case *syntax.Stmt:
		if b, ok := x.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) && !x.Background && !x.Negated && len(x.Redirs) == 0 {
			c = b
		}
		if c == nil {
			w.stmt(x)
			return w.st, w.st
		}
	}
	if !w.enter(c.Pos()) {
		return w.st, w.st
	}
	defer w.leave()
	sx, fx := w.list(c.X)
	if w.sh.err != nil {
		return w.st, w.st
	}
	line, _ := w.pos(c.OpPos)
	cond := &Cond{Text: w.text(c.X), Vars: w.vars(c.X), Line: line}
	if c.Op == syntax.AndStmt {
		cond.Kind, cond.Branch = CondAnd, "&&"
		w.st = sx
	} else {
		cond.Kind, cond.Branch = CondOr, "||"
		w.st = fx
	}
	pop := w.push(cond)
	sy, fy := w.list(c.Y)
	pop()
	if c.Op == syntax.AndStmt {
		return sy, mergeStates(fx, fy)
	}
	return mergeStates(sx, sy), fy
}

// pipeParts flattens a | b | c (parsed as (a | b) | c) into its parts.
func pipeParts(c *syntax.BinaryCmd) []*syntax.Stmt {
	var rev []*syntax.Stmt
	for {
		rev = append(rev, c.Y)
		b, ok := c.X.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll || len(c.X.Redirs) > 0 || c.X.Negated {
			rev = append(rev, c.X)
			break
		}
		c = b
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// tail is the command whose output a pipeline part produces last.
func (w *walker) tail(st *syntax.Stmt) *Command {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return w.tail(b.Y)
	}
	return w.cmdOf[st]
}

func (w *walker) funcDecl(c *syntax.FuncDecl) {
	if c.Name == nil || c.Body == nil {
		return
	}
	line, _ := w.pos(c.Pos())
	end, _ := w.pos(c.End())
	fn := &Function{Name: c.Name.Value, Line: line, EndLine: end}
	w.sh.sc.Functions = append(w.sh.sc.Functions, fn)
	savedFn, savedLocals, savedState := w.fn, w.locals, w.st
	w.fn, w.locals = fn, map[string]bool{}
	w.st = dirState{dir: Dir{Base: DirCaller, Path: "."}}
	w.stmt(c.Body)
	w.fn, w.locals, w.st = savedFn, savedLocals, savedState
}
