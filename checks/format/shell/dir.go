package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// dirState is the working directory the walk tracks: the current and the
// previous directory (cd -), the pushd stack, and whether the path ended
// (exit, return) so a branch that leaves does not blur the merge.
type dirState struct {
	dir, old Dir
	stack    []Dir
	dead     bool
}

// made is a directory the script creates, and where.
type made struct {
	dir Dir
	off int
}

// mergeStates joins the states of branches that meet again: a directory
// all live branches agree on stays known, any disagreement makes it
// unknown (still marked as made when every branch is in a made directory).
func mergeStates(states ...dirState) dirState {
	var live []dirState
	for _, s := range states {
		if !s.dead {
			live = append(live, s)
		}
	}
	if len(live) == 0 {
		if len(states) == 0 {
			return dirState{}
		}
		out := states[0]
		out.dead = true
		return out
	}
	out := live[0]
	for _, s := range live[1:] {
		out.dir = mergeDir(out.dir, s.dir)
		out.old = mergeDir(out.old, s.old)
		if !sameStack(out.stack, s.stack) {
			out.stack = nil
		}
	}
	return out
}

func mergeDir(a, b Dir) Dir {
	if a == b {
		return a
	}
	if a.MadeBy != "" && b.MadeBy != "" {
		return Dir{MadeBy: a.MadeBy, MadeLine: a.MadeLine}
	}
	return Dir{}
}

func sameStack(a, b []Dir) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// joinDir resolves rel against d. A path that leaves a made directory
// whose location is unknown (..) is unknown.
func joinDir(d Dir, rel string) Dir {
	if strings.HasPrefix(rel, "/") && d.Base == DirUnknown && d.MadeBy == "" {
		return Dir{Base: DirAbs, Path: path.Clean(rel)}
	}
	if d.Base == DirUnknown {
		c := path.Clean("./" + rel)
		if d.MadeBy != "" && c != ".." && !strings.HasPrefix(c, "../") {
			return d
		}
		return Dir{}
	}
	out := Dir{Base: d.Base, Path: path.Clean(path.Join(d.Path, rel)), MadeBy: d.MadeBy, MadeLine: d.MadeLine}
	if out.Base == DirAbs {
		out.Path = path.Clean("/" + out.Path)
	}
	return out
}

// within reports whether p lies in root (both cleaned, same base).
func within(p, root string) bool {
	if root == "." {
		return p != ".." && !strings.HasPrefix(p, "../")
	}
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// classify marks a path inside a directory the script made before offset
// off (and drops a stale mark once the path left that directory).
func (sc *Script) classify(d Dir, off int) Dir {
	if d.Base == DirUnknown {
		return d
	}
	d.MadeBy, d.MadeLine = "", 0
	for _, m := range sc.made {
		if m.off <= off && m.dir.Base == d.Base && within(d.Path, m.dir.Path) {
			d.MadeBy, d.MadeLine = m.dir.MadeBy, m.dir.MadeLine
		}
	}
	return d
}

// maxDepth bounds the variable chains a path or value lookup follows.
const maxDepth = 16

// sym is a path read from a word: a directory, or the script file itself
// ($0, ${BASH_SOURCE[0]}).
type sym struct {
	dir  Dir
	file bool
}

// pathOf reads a word as a path relative to cwd, at site at. ok is false
// when it is not statically known; the Dir then still carries MadeBy when
// the word names a directory the script made (a mktemp -d variable).
func (sc *Script) pathOf(w *syntax.Word, cwd Dir, at *Site, depth int) (Dir, bool) {
	if w == nil || depth > maxDepth {
		return Dir{}, false
	}
	s, ok := sc.symOf(flatten(w.Parts), cwd, at, depth)
	if s.file {
		return Dir{}, false
	}
	if !ok {
		return Dir{MadeBy: s.dir.MadeBy, MadeLine: s.dir.MadeLine}, false
	}
	return sc.classify(s.dir, at.start), s.dir.Base != DirUnknown
}

type part struct {
	p  syntax.WordPart
	dq bool
}

func flatten(ps []syntax.WordPart) []part {
	var out []part
	for _, p := range ps {
		if q, ok := p.(*syntax.DblQuoted); ok {
			for _, x := range q.Parts {
				out = append(out, part{x, true})
			}
			continue
		}
		out = append(out, part{p, false})
	}
	return out
}

// literal is the static text of parts, if they are all static.
func literal(ps []part) (string, bool) {
	var b strings.Builder
	for _, p := range ps {
		switch x := p.p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, p.dq))
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func (sc *Script) symOf(ps []part, cwd Dir, at *Site, depth int) (sym, bool) {
	if len(ps) == 0 {
		return sym{}, false
	}
	if lit, ok := literal(ps); ok {
		if l, ok := ps[0].p.(*syntax.Lit); ok && !ps[0].dq && strings.HasPrefix(l.Value, "~") {
			return sym{}, false
		}
		if strings.HasPrefix(lit, "/") {
			return sym{dir: Dir{Base: DirAbs, Path: path.Clean(lit)}}, true
		}
		return sym{dir: joinDir(cwd, lit)}, true
	}
	head, ok := sc.headOf(ps[0].p, cwd, at, depth)
	rest, restOK := literal(ps[1:])
	if !ok || !restOK {
		return sym{dir: Dir{MadeBy: head.dir.MadeBy, MadeLine: head.dir.MadeLine}}, false
	}
	if head.file {
		if rest != "" {
			return sym{}, false
		}
		return head, true
	}
	return sym{dir: joinDir(head.dir, strings.TrimPrefix(rest, "/"))}, head.dir.Base != DirUnknown || head.dir.MadeBy != ""
}

// headOf reads the dynamic first part of a path word.
func (sc *Script) headOf(p syntax.WordPart, cwd Dir, at *Site, depth int) (sym, bool) {
	switch x := p.(type) {
	case *syntax.ParamExp:
		if x.Param == nil || x.Excl || x.Length || x.Slice != nil || x.Repl != nil {
			return sym{}, false
		}
		name := x.Param.Value
		self := name == "0" || name == "BASH_SOURCE" && (x.Index == nil || indexLit(x.Index) == "0")
		switch {
		case self && x.Exp == nil:
			return sym{file: true}, true
		case self && x.Exp.Op == syntax.RemSmallSuffix && x.Exp.Word != nil && x.Exp.Word.Lit() == "/*":
			return sym{dir: Dir{Base: DirScript, Path: "."}}, true
		case x.Exp != nil || x.Index != nil:
			return sym{}, false
		case name == "PWD":
			return sym{dir: cwd}, true
		}
		return sc.varPath(name, at, depth)
	case *syntax.CmdSubst:
		return sc.substPath(x.Stmts, cwd, at, depth)
	}
	return sym{}, false
}

func indexLit(x syntax.ArithmExpr) string {
	if w, ok := x.(*syntax.Word); ok {
		return w.Lit()
	}
	return ""
}

// varPath reads a variable as a path: every assignment that may be in
// effect must name the same path (all in made directories keeps the mark).
func (sc *Script) varPath(name string, at *Site, depth int) (sym, bool) {
	as, _ := sc.values(name, at, maxCandidates+1)
	if len(as) == 0 || len(as) > maxCandidates {
		return sym{}, false
	}
	var out Dir
	for i, a := range as {
		if !a.pathOK && a.path.MadeBy == "" {
			return sym{}, false
		}
		if i == 0 {
			out = a.path
			continue
		}
		out = mergeDir(out, a.path)
	}
	return sym{dir: out}, out.Base != DirUnknown || out.MadeBy != ""
}

// substPath evaluates the command substitutions scripts use to name
// directories: dirname X, realpath X, readlink -f X, pwd, cd X && pwd,
// mktemp -d.
func (sc *Script) substPath(stmts []*syntax.Stmt, cwd Dir, at *Site, depth int) (sym, bool) {
	if len(stmts) != 1 {
		return sym{}, false
	}
	switch c := stmts[0].Cmd.(type) {
	case *syntax.BinaryCmd:
		cd, ok1 := c.X.Cmd.(*syntax.CallExpr)
		pwd, ok2 := c.Y.Cmd.(*syntax.CallExpr)
		if c.Op != syntax.AndStmt || !ok1 || !ok2 || len(cd.Args) != 2 || cd.Args[0].Lit() != "cd" || len(pwd.Args) == 0 || pwd.Args[0].Lit() != "pwd" {
			return sym{}, false
		}
		return sc.symOf(flatten(cd.Args[1].Parts), cwd, at, depth+1)
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return sym{}, false
		}
		args := c.Args[1:]
		var ops []*syntax.Word
		for _, a := range args {
			if v := a.Lit(); !strings.HasPrefix(v, "-") {
				ops = append(ops, a)
			}
		}
		switch c.Args[0].Lit() {
		case "pwd":
			return sym{dir: cwd}, true
		case "mktemp":
			for _, a := range args {
				if v := a.Lit(); v == "--directory" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "d") {
					line := int(c.Pos().Line())
					if at != nil {
						line = at.Line
					}
					return sym{dir: Dir{MadeBy: "mktemp -d", MadeLine: line}}, false
				}
			}
		case "dirname":
			if len(ops) != 1 {
				return sym{}, false
			}
			s, ok := sc.symOf(flatten(ops[0].Parts), cwd, at, depth+1)
			if !ok {
				return sym{}, false
			}
			if s.file {
				return sym{dir: Dir{Base: DirScript, Path: "."}}, true
			}
			return sym{dir: joinDir(s.dir, "..")}, s.dir.Base != DirUnknown
		case "realpath", "readlink":
			if len(ops) != 1 {
				return sym{}, false
			}
			return sc.symOf(flatten(ops[0].Parts), cwd, at, depth+1)
		}
	}
	return sym{}, false
}
