package shell

import (
	"path"
	"strings"
)

// ByName returns the commands whose program (past wrappers such as sudo or
// env, compared by base name) is one of names, in source order.
func (sc *Script) ByName(names ...string) []*Command {
	var out []*Command
	for _, c := range sc.Commands {
		p, _ := c.Program()
		for _, n := range names {
			if p == n || path.Base(p) == n {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Function returns the definition of function name, nil when the script
// defines none.
func (sc *Script) Function(name string) *Function {
	for _, f := range sc.Functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Path reads word w of command c as a file or directory path, relative to
// the directory c runs in. ok is false when the path is not statically
// known; the Dir may still say it lies in a directory the script made.
func (sc *Script) Path(w Word, c *Command) (Dir, bool) {
	if w.syn == nil {
		return Dir{}, false
	}
	return sc.pathOf(w.syn, c.Dir, &c.Site, 0)
}

// Source is one `source FILE` or `. FILE` command.
type Source struct {
	Cmd *Command
	// Arg is the file operand as written.
	Arg Word
	// Path is the file, resolved where statically known (OK).
	Path Dir
	OK   bool
}

// Sources lists the files the script sources, in source order.
func (sc *Script) Sources() []Source {
	var out []Source
	for _, c := range sc.ByName("source", ".") {
		_, args := c.Program()
		if len(args) == 0 {
			continue
		}
		s := Source{Cmd: c, Arg: args[0]}
		s.Path, s.OK = sc.Path(args[0], c)
		out = append(out, s)
	}
	return out
}

// Outputs are the files the command's redirections write to.
func (c *Command) Outputs() []Word {
	var out []Word
	for _, r := range c.Redirs {
		if r.Writes() {
			out = append(out, r.Target)
		}
	}
	return out
}

// Heredocs are the command's heredoc bodies.
func (c *Command) Heredocs() []*Heredoc {
	var out []*Heredoc
	for _, r := range c.Redirs {
		if r.Heredoc != nil {
			out = append(out, r.Heredoc)
		}
	}
	return out
}

// SettingKind says where a setting is written.
type SettingKind int

// Setting kinds.
const (
	SettingFlag   SettingKind = iota + 1 // --flag value or --flag=value
	SettingAssign                        // NAME=value
)

// Setting is one --flag value, --flag=value or NAME=value a script writes.
type Setting struct {
	Kind SettingKind
	// Name is the flag with its dashes ("--tp") or the variable name.
	Name string
	// Value is the value word; a flag written without a value has an empty
	// Text. Value.Values lists what it may expand to.
	Value Word
	// Inline is set for --flag=value.
	Inline bool
	Line   int
	// Cmd is the command the setting is written in (nil for an array
	// element); Assign the assignment (for NAME=value, and for flags
	// written in an array literal).
	Cmd    *Command
	Assign *Assign
}

// Flags lists the command's --flag value / --flag=value arguments. A flag
// takes the next word as its value unless that word starts with "-".
func (c *Command) Flags() []Setting {
	out := flags(c.Args)
	for i := range out {
		out[i].Cmd = c
	}
	return out
}

func flags(ws []Word) []Setting {
	var out []Setting
	for i, w := range ws {
		if !strings.HasPrefix(w.Value, "--") || len(w.Value) < 3 {
			continue
		}
		s := Setting{Kind: SettingFlag, Line: w.Line}
		if name, _, ok := strings.Cut(w.Value, "="); ok {
			s.Name, s.Inline = name, true
			s.Value = afterEq(w, len(name)+1)
		} else {
			s.Name = w.Value
			if i+1 < len(ws) && !strings.HasPrefix(ws[i+1].Value, "-") {
				s.Value = ws[i+1]
			}
		}
		out = append(out, s)
	}
	return out
}

// afterEq is the part of word w after its first n bytes of value (the
// "--flag=" of --flag=value).
func afterEq(w Word, n int) Word {
	out := Word{Line: w.Line, Col: w.Col, Vars: w.Vars, FromEnv: w.FromEnv, Static: w.Static}
	out.Value = w.Value[n:]
	out.Text = out.Value
	if i := strings.IndexByte(w.Text, '='); i >= 0 && !w.Static {
		out.Text = w.Text[i+1:]
	}
	for _, v := range w.Values {
		if len(v) >= n {
			out.Values = append(out.Values, v[n:])
		}
	}
	return out
}

// Settings lists every flag of every command, every flag written in an
// array literal (ARGS=(--tp 8)), and every NAME=value assignment (plain,
// prefix, declarations, ${X:=d}), in source order.
func (sc *Script) Settings() []Setting {
	var out []Setting
	ci, ai := 0, 0
	for ci < len(sc.Commands) || ai < len(sc.Assigns) {
		if ai >= len(sc.Assigns) || ci < len(sc.Commands) && sc.Commands[ci].start < sc.Assigns[ai].start {
			c := sc.Commands[ci]
			ci++
			out = append(out, c.Flags()...)
			continue
		}
		a := sc.Assigns[ai]
		ai++
		if a.Naked || a.Kind == AssignRead || a.Kind == AssignFor {
			continue
		}
		out = append(out, Setting{Kind: SettingAssign, Name: a.Name, Value: a.Value, Line: a.Line, Cmd: a.Cmd, Assign: a})
		if a.IsArray {
			ws := make([]Word, len(a.Elems))
			for i, e := range a.Elems {
				ws[i] = e.Value
			}
			for _, s := range flags(ws) {
				s.Assign = a
				out = append(out, s)
			}
		}
	}
	return out
}
