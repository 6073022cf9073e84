package shell

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrappers run their operand as the program; the values are the options
// that take an argument.
var wrappers = map[string]string{
	"sudo": "ugCDhprtUT", "env": "uCS", "exec": "a", "nohup": "", "time": "", "command": "",
	"builtin": "", "nice": "n", "timeout": "sk", "stdbuf": "ioe", "setsid": "", "ionice": "cnp",
	"taskset": "", "numactl": "",
}

// Program is the command's program and its arguments, past wrappers such
// as sudo, env VAR=x, exec, nohup, time, timeout DURATION.
func (c *Command) Program() (string, []Word) {
	args := c.Args
	for len(args) > 0 {
		name := path.Base(args[0].Value)
		opts, ok := wrappers[name]
		if !ok || !args[0].Static {
			return args[0].Value, args[1:]
		}
		args = args[1:]
		for len(args) > 0 {
			v := args[0].Value
			switch {
			case v == "--":
				args = args[1:]
			case strings.HasPrefix(v, "-") && len(v) > 1:
				args = args[1:]
				if len(v) == 2 && strings.IndexByte(opts, v[1]) >= 0 && len(args) > 0 {
					args = args[1:]
				}
				continue
			case name == "env" && strings.Contains(v, "=") && !strings.HasPrefix(v, "="):
				args = args[1:]
				continue
			case name == "timeout" && len(args) > 1:
				args = args[1:] // the duration
			case name == "taskset" && len(args) > 1:
				args = args[1:] // the mask
			}
			break
		}
	}
	return "", nil
}

// operands drops options (and the values of the options listed in withArg)
// from arguments.
func operands(args []Word, withArg string) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(v, "-") && len(v) > 1 && args[i].Static:
			if len(v) == 2 && strings.IndexByte(withArg, v[1]) >= 0 {
				i++
			}
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// effects applies what a command does to the state the walk tracks.
func (w *walker) effects(c *Command) {
	prog, args := c.Program()
	switch path.Base(prog) {
	case "cd":
		w.cd(c, operands(args, ""))
	case "pushd":
		ops := operands(args, "")
		if len(ops) == 0 || strings.HasPrefix(ops[0].Value, "+") {
			w.st.dir = Dir{}
			return
		}
		w.st.stack = append(append([]Dir(nil), w.st.stack...), w.st.dir)
		w.cd(c, ops)
	case "popd":
		if n := len(w.st.stack); n > 0 {
			w.st.old, w.st.dir = w.st.dir, w.st.stack[n-1]
			w.st.stack = w.st.stack[:n-1]
		} else {
			w.st.dir = Dir{}
		}
	case "mkdir":
		by := "mkdir"
		for _, a := range args {
			if a.Value == "-p" || a.Value == "--parents" {
				by = "mkdir -p"
			}
		}
		for _, a := range operands(args, "m") {
			w.makeDir(c, a, by)
		}
	case "git":
		w.gitClone(c, args)
	case "tar":
		w.untar(c, args)
	case "unzip":
		for i, a := range args {
			if a.Value == "-d" && i+1 < len(args) {
				w.makeDir(c, args[i+1], "unzip")
			}
		}
	case "read":
		w.read(c, args)
	case "mapfile", "readarray":
		ops := operands(args, "dnOsuCc")
		name := "MAPFILE"
		if len(ops) > 0 && ops[len(ops)-1].Static {
			name = ops[len(ops)-1].Value
		}
		w.readTarget(c, name, true)
	case "set":
		for _, a := range args {
			v := a.Value
			switch {
			case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "a"):
				w.allexport = true
			case strings.HasPrefix(v, "+") && strings.Contains(v, "a"):
				w.allexport = false
			}
		}
		for i := 0; i+1 < len(args); i++ {
			if args[i].Value == "-o" && args[i+1].Value == "allexport" {
				w.allexport = true
			}
		}
	case "exit", "return":
		w.st.dead = true
	case "exec":
		if len(args) > 0 {
			w.st.dead = true
		}
	}
	w.shellCode(c, prog, args)
}

func (w *walker) cd(c *Command, ops []Word) {
	switch {
	case len(ops) == 0:
		w.st.old, w.st.dir = w.st.dir, Dir{} // $HOME
	case ops[0].Value == "-" && ops[0].Static:
		w.st.old, w.st.dir = w.st.dir, w.st.old
	default:
		d, _ := w.sh.sc.pathOf(ops[0].syn, w.st.dir, &c.Site, 0)
		w.st.old, w.st.dir = w.st.dir, d
	}
}

// makeDir records a directory the script creates; files under it are not
// repository files.
func (w *walker) makeDir(c *Command, a Word, by string) {
	d, ok := w.sh.sc.pathOf(a.syn, w.st.dir, &c.Site, 0)
	if !ok {
		return
	}
	if d.MadeBy == "" {
		d.MadeBy, d.MadeLine = by, c.Line
	}
	w.sh.sc.made = append(w.sh.sc.made, made{dir: d, off: c.start})
}

// cloneOpts are git clone's options that take a separate value.
var cloneOpts = map[string]bool{
	"-b": true, "--branch": true, "--depth": true, "-o": true, "--origin": true, "-c": true, "--config": true,
	"--reference": true, "--reference-if-able": true, "--separate-git-dir": true, "--template": true,
	"-u": true, "--upload-pack": true, "-j": true, "--jobs": true, "--filter": true,
	"--shallow-since": true, "--shallow-exclude": true, "--server-option": true,
}

// gitClone records `git [-C dir] clone [options] URL [dir]`; the target
// defaults to the repository name of the URL.
func (w *walker) gitClone(c *Command, args []Word) {
	base := w.st.dir
	for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") {
		if (args[0].Value == "-C" || args[0].Value == "-c") && len(args) > 1 {
			if args[0].Value == "-C" {
				base, _ = w.sh.sc.pathOf(args[1].syn, w.st.dir, &c.Site, 0)
			}
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 || args[0].Value != "clone" {
		return
	}
	var pos []Word
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		switch {
		case cloneOpts[v]:
			i++
		case strings.HasPrefix(v, "-"):
		default:
			pos = append(pos, args[i])
		}
	}
	if len(pos) == 0 {
		return
	}
	by := "git clone " + pos[0].Value
	if len(pos) > 1 {
		saved := w.st.dir
		w.st.dir = base
		w.makeDir(c, pos[1], by)
		w.st.dir = saved
		return
	}
	if !pos[0].Static {
		return
	}
	name := strings.TrimSuffix(strings.TrimRight(pos[0].Value, "/"), ".git")
	name = name[strings.LastIndexAny(name, "/:")+1:]
	if name == "" {
		return
	}
	d := joinDir(base, name)
	d.MadeBy, d.MadeLine = by, c.Line
	w.sh.sc.made = append(w.sh.sc.made, made{dir: d, off: c.start})
}

// untar records the directory an archive is extracted into (-C dir).
func (w *walker) untar(c *Command, args []Word) {
	extract := false
	for i, a := range args {
		v := a.Value
		if v == "--extract" || v == "--get" || i == 0 && !strings.HasPrefix(v, "--") && strings.Contains(strings.TrimPrefix(v, "-"), "x") ||
			strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "x") {
			extract = true
		}
	}
	if !extract {
		return
	}
	for i, a := range args {
		switch {
		case (a.Value == "-C" || a.Value == "--directory") && i+1 < len(args):
			w.makeDir(c, args[i+1], "tar -x")
		case strings.HasPrefix(a.Value, "--directory="):
			if a.Static {
				v := Word{Text: a.Value, Value: strings.TrimPrefix(a.Value, "--directory="), Static: true, syn: litWord(strings.TrimPrefix(a.Value, "--directory="))}
				w.makeDir(c, v, "tar -x")
			}
		}
	}
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: s}}}
}

// read records the variables read and mapfile assign.
func (w *walker) read(c *Command, args []Word) {
	var names []string
	array := false
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "-a" && i+1 < len(args):
			names = append(names, args[i+1].Value)
			array = true
			i++
		case len(v) == 2 && v[0] == '-' && strings.IndexByte("dinNptu", v[1]) >= 0:
			i++
		case strings.HasPrefix(v, "-"):
		default:
			if args[i].Static && syntax.ValidName(v) {
				names = append(names, v)
			}
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	for _, n := range names {
		w.readTarget(c, n, array)
	}
}

func (w *walker) readTarget(c *Command, name string, array bool) {
	if !syntax.ValidName(name) {
		return
	}
	a := &Assign{Name: name, Kind: AssignRead, Cmd: c, IsArray: array, Local: w.locals[name], Exported: w.allexport}
	for _, r := range c.Redirs {
		if r.Op == "<<<" {
			a.Value = r.Target
		}
	}
	a.Site = c.Site
	a.off = c.start + len(c.Text)
	c.Assigns = append(c.Assigns, a)
	w.addAssign(a)
}

// shellCode parses the literal code a command hands to a shell: eval's
// arguments, the string of bash -c / sh -c, a static heredoc (or the
// heredoc piped in from cat) that bash or sh reads as its script.
func (w *walker) shellCode(c *Command, prog string, args []Word) {
	if prog == "eval" && len(args) > 0 {
		var parts []string
		for _, a := range args {
			if !a.Static {
				return
			}
			parts = append(parts, a.Value)
		}
		col := args[0].Col
		if strings.HasPrefix(args[0].Text, "'") || strings.HasPrefix(args[0].Text, `"`) {
			col++
		}
		w.parseCode(strings.Join(parts, " "), InEval, args[0].Line, col, w.wordOff(args[0], c))
		return
	}
	for i, a := range c.Args {
		if !a.Static || (path.Base(a.Value) != "bash" && path.Base(a.Value) != "sh") {
			continue
		}
		j, dashC := i+1, false
		for ; j < len(c.Args) && c.Args[j].Static && strings.HasPrefix(c.Args[j].Value, "-") && len(c.Args[j].Value) > 1; j++ {
			v := c.Args[j].Value
			if !strings.HasPrefix(v, "--") && strings.Contains(v, "c") {
				dashC = true
			}
			if v == "-o" || v == "-O" || v == "+o" || v == "+O" {
				j++
			}
		}
		switch {
		case dashC && j < len(c.Args):
			s := c.Args[j]
			if s.Static {
				col := s.Col
				if strings.HasPrefix(s.Text, "'") || strings.HasPrefix(s.Text, `"`) {
					col++
				}
				w.parseCode(s.Value, InShellString, s.Line, col, w.wordOff(s, c))
			}
		case !dashC && j >= len(c.Args):
			if h := stdinHeredoc(c); h != nil {
				w.parseCode(h.Body, InShellHeredoc, h.Line, 0, h.off)
			}
		}
		return
	}
}

// stdinHeredoc is the heredoc a command reads on standard input, its own
// or the one `cat <<EOF |` pipes in.
func stdinHeredoc(c *Command) *Heredoc {
	for _, r := range c.Redirs {
		if r.Heredoc != nil && (r.N == "" || r.N == "0") {
			return r.Heredoc
		}
	}
	if p := c.PipeIn; p != nil && path.Base(p.Name) == "cat" && len(p.Args) == 1 {
		for _, r := range p.Redirs {
			if r.Heredoc != nil {
				return r.Heredoc
			}
		}
	}
	return nil
}

// parseCode parses and walks shell code found inside the script. A string
// that does not parse makes the whole script unreadable: bash would fail on
// it too, and its commands cannot be known.
func (w *walker) parseCode(code string, kind NestKind, line, col, off int) {
	if w.sh.err != nil {
		return
	}
	if w.depth >= maxNesting {
		w.sh.err = &Error{File: w.sh.sc.File, Line: line, Col: col, Reason: kind.String() + " nested more than 4 deep"}
		return
	}
	f, err := parseBash(w.sh.sc.File, []byte(code))
	if err != nil {
		e := toError(w.sh.sc.File, err, line-1, max(col-1, 0))
		e.Reason = "in the " + kind.String() + " starting at line " + strconv.Itoa(line) + ": " + e.Reason
		w.sh.err = e
		return
	}
	sub := *w
	sub.src, sub.base, sub.line0, sub.col0, sub.depth = code, off, line-1, max(col-1, 0), w.depth+1
	sub.cmdOf, sub.pipeFrom = map[*syntax.Stmt]*Command{}, map[*syntax.Stmt]*Command{}
	if kind == InEval {
		sub.nest = append(append([]Nest(nil), w.nest...), Nest{Kind: kind, Line: line})
		sub.stmts(f.Stmts)
		w.st, w.allexport, w.locals = sub.st, sub.allexport, sub.locals
		return
	}
	sub.st = dirState{dir: w.st.dir}
	sub.isolated(kind, line, func() { sub.stmts(f.Stmts) })
}

// wordOff is the file offset of a word of c.
func (w *walker) wordOff(a Word, c *Command) int {
	if a.syn == nil {
		return c.start
	}
	return w.off(a.syn.Pos())
}
