package shell

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// Script is what Parse read from one file. Commands and Assigns are in
// source order (by start offset; commands of a nested shell string sit at
// the string's place).
type Script struct {
	File      string
	Commands  []*Command
	Assigns   []*Assign
	Functions []*Function

	byName map[string][]*Assign
	groups map[string]map[groupKey]*group
	memo   map[memoKey]*expansion
	made   []made
	chains map[int]chain
	index  map[*syntax.ParamExp]string // subscripts as written
	// steps counts the assignments Parse looked at, bounded by limit so a
	// hostile script cannot make following variables quadratic.
	steps, limit int
}

// chain is one if chain or case: how many branches it has and whether one
// of them always runs (an else, a * arm).
type chain struct {
	branches int
	complete bool
}

// Site is where a command or an assignment sits: its position, the function
// around it, the conditions it runs under and the processes it runs in.
type Site struct {
	Line, Col int
	// Func is the name of the enclosing function, "" at top level.
	Func string
	// Conds are the enclosing conditions, outermost first.
	Conds []*Cond
	// Nest are the enclosing substitutions, subshells and nested shell
	// strings, outermost first.
	Nest []Nest

	start, off int // start offset; offset where an assignment takes effect
	fn         *Function
	iso        []int // ids of the isolating nests (subshell-like) around it
	isoK       string
	group      int // for-loop items share a group and never replace each other
}

// Tests reports whether one of the enclosing conditions tests variable name.
func (s *Site) Tests(name string) bool {
	for _, c := range s.Conds {
		for _, v := range c.Vars {
			if v == name {
				return true
			}
		}
	}
	return false
}

// CondKind is the construct a condition comes from.
type CondKind int

// Condition kinds.
const (
	CondIf    CondKind = iota + 1 // a branch of if/elif/else
	CondCase                      // an arm of case
	CondWhile                     // the body of while
	CondUntil                     // the body of until
	CondFor                       // the body of for/select (may run zero times)
	CondAnd                       // the right side of &&
	CondOr                        // the right side of ||
)

func (k CondKind) String() string {
	switch k {
	case CondIf:
		return "if"
	case CondCase:
		return "case"
	case CondWhile:
		return "while"
	case CondUntil:
		return "until"
	case CondFor:
		return "for"
	case CondAnd:
		return "&&"
	case CondOr:
		return "||"
	}
	return fmt.Sprintf("CondKind(%d)", int(k))
}

// Cond is one enclosing condition. A branch runs when Text holds (for else
// Text is empty) and every Prior condition of the same if chain or case
// failed.
type Cond struct {
	Kind CondKind
	// Branch is "then", "elif", "else" (if), the arm's patterns as written
	// (case, e.g. "a|b"), "do" (loops), "&&" or "||".
	Branch string
	// Text is the condition's source: the if/elif/while/until condition,
	// the case word, the for header, the left side of && or ||.
	Text string
	// Prior are the earlier conditions (or case patterns) of the same chain.
	Prior []string
	// Vars are the variables Text and Prior test, sorted.
	Vars []string
	Line int

	chain int // the if or case the branch belongs to: its branches exclude each other
}

// NestKind is a construct that runs commands in another context.
type NestKind int

// Nest kinds. All but InEval run in a child process: what they assign and
// where they cd does not reach the commands after them.
const (
	InSubshell     NestKind = iota + 1 // ( … )
	InCmdSubst                         // $( … ) or backquotes
	InProcSubst                        // <( … ) or >( … )
	InPipeline                         // one part of a | pipeline
	InBackground                       // cmd & or coproc
	InShellString                      // the literal string of bash -c / sh -c
	InShellHeredoc                     // a heredoc fed to bash or sh as its script
	InEval                             // a literal eval string (same process)
)

func (k NestKind) String() string {
	switch k {
	case InSubshell:
		return "subshell"
	case InCmdSubst:
		return "command substitution"
	case InProcSubst:
		return "process substitution"
	case InPipeline:
		return "pipeline"
	case InBackground:
		return "background"
	case InShellString:
		return "shell -c string"
	case InShellHeredoc:
		return "shell heredoc"
	case InEval:
		return "eval"
	}
	return fmt.Sprintf("NestKind(%d)", int(k))
}

// Nest is one enclosing context and the line it starts on.
type Nest struct {
	Kind NestKind
	Line int
}

// Command is one simple command (declarations, let and assignment-only
// statements included).
type Command struct {
	Site
	// Name is the static value of the first word, its source text when it
	// is not static, "" for an assignment-only statement.
	Name string
	// Args are the words, Args[0] being the name.
	Args []Word
	// Assigns are the assignments the command makes: VAR=value prefixes,
	// plain assignments, declarations, read targets.
	Assigns []*Assign
	Redirs  []Redirect
	// Text is the command's source (continuation lines kept, heredoc
	// bodies not: they are in Redirs).
	Text    string
	EndLine int
	// Dir is the working directory the command runs in.
	Dir Dir
	// PipeIn is the command whose output is piped into this one.
	PipeIn *Command
}

// Word is one shell word.
type Word struct {
	// Text is the word as written.
	Text string
	// Value is the word after quote removal when Static, else Text.
	Value  string
	Static bool
	// Vars are the variables the word expands (not those inside its
	// command substitutions), in order of appearance.
	Vars []string
	// Values are the values the word may take through the assignments the
	// script makes (a static word has exactly its Value); nil when that is
	// not statically known (command substitution, arithmetic, an unassigned
	// variable, too many combinations).
	Values []string
	// FromEnv is set when the word may take a value Values does not list: a
	// variable it expands may come from the environment or the arguments
	// because no assignment surely ran before.
	FromEnv bool
	// Subst are the commands of the word's $( … ), backquote and <( … )
	// parts.
	Subst     []*Command
	Line, Col int

	syn *syntax.Word
}

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator: > >> >| &> &>> < <> >& <& << <<- <<<.
	Op string
	// N is the file descriptor written before the operator ("2" in 2>).
	N string
	// Target is the file, the descriptor, the here-string or the heredoc
	// delimiter.
	Target  Word
	Heredoc *Heredoc
	Line    int
	// Inherited is set for a redirection of an enclosing compound command
	// ({ …; } > f) rather than of the command itself.
	Inherited bool
}

// Writes reports whether the redirection writes to a file (descriptor
// duplications like >&2 do not).
func (r Redirect) Writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		return !isDigits(r.Target.Value) && r.Target.Value != "-"
	}
	return false
}

// Heredoc is the body of a << or <<- redirection.
type Heredoc struct {
	// Delim is the delimiter after quote removal.
	Delim string
	// Quoted is set when the delimiter was quoted: the body is literal.
	Quoted bool
	// StripTabs is set for <<-: leading tabs of the body lines are removed.
	StripTabs bool
	// Body is the text the command reads (tabs stripped for <<-; the
	// expansions of an unquoted body left as written), each line ending in
	// a newline.
	Body string
	// Line is the line of the body's first line.
	Line int
	// Vars are the variables an unquoted body expands.
	Vars []string

	off int
}

// AssignKind is how a variable got its value.
type AssignKind int

// Assignment kinds.
const (
	AssignPlain   AssignKind = iota + 1 // X=v, X+=v
	AssignPrefix                        // X=v cmd: only in cmd's environment
	AssignDecl                          // export, declare, local, readonly, typeset
	AssignRead                          // read or mapfile target
	AssignFor                           // for-loop variable, one per item
	AssignDefault                       // ${X:=d} or ${X=d}
)

func (k AssignKind) String() string {
	switch k {
	case AssignPlain:
		return "plain"
	case AssignPrefix:
		return "prefix"
	case AssignDecl:
		return "declaration"
	case AssignRead:
		return "read"
	case AssignFor:
		return "for"
	case AssignDefault:
		return "default"
	}
	return fmt.Sprintf("AssignKind(%d)", int(k))
}

// Assign is one variable assignment.
type Assign struct {
	Site
	Name string
	Kind AssignKind
	// Decl is the declaring builtin for AssignDecl: export, declare, local,
	// readonly, typeset.
	Decl     string
	Exported bool
	Local    bool
	Append   bool
	// Naked is set for a declaration without a value (export X).
	Naked bool
	// Index is the subscript of a[i]=v as written.
	Index string
	// Value is the assigned word. For an array it is the whole (…) text;
	// for read it is the here-string read, if any; for a for loop the item.
	Value Word
	// IsArray is set for a=(…); Elems are its elements.
	IsArray bool
	Elems   []Elem
	// Cmd is the command that made the assignment.
	Cmd *Command

	path   Dir // Value read as a path where the assignment ran
	pathOK bool
}

// Elem is one element of an array literal.
type Elem struct {
	// Key is the subscript of [k]=v as written, "" for a plain element.
	Key   string
	Value Word
}

// Function is one function definition.
type Function struct {
	Name          string
	Line, EndLine int
}

// DirBase is what a Dir is relative to.
type DirBase int

// Directory bases.
const (
	DirUnknown DirBase = iota // not statically known
	DirStart                  // where the script was started
	DirScript                 // the directory holding the script
	DirAbs                    // Path is absolute
	DirCaller                 // a function body: wherever the caller is
)

// Dir is a statically known directory or path.
type Dir struct {
	Base DirBase
	// Path is cleaned and relative to Base ("." for Base itself), absolute
	// for DirAbs, "" when Base is DirUnknown.
	Path string
	// MadeBy is set when the path lies in a directory the script created
	// or fetched (a git clone, mkdir, mktemp -d, an archive extracted into
	// it): such files are not repository files. It names the command, e.g.
	// "git clone https://github.com/x/Mooncake.git".
	MadeBy   string
	MadeLine int
}

// External reports whether the path lies in a directory the script made.
func (d Dir) External() bool { return d.MadeBy != "" }

func (d Dir) String() string {
	var s string
	switch d.Base {
	case DirStart:
		s = "$START"
	case DirScript:
		s = "$SCRIPT_DIR"
	case DirCaller:
		s = "$CALLER_DIR"
	case DirAbs:
		s = d.Path
	default:
		s = "?"
	}
	if d.Base != DirAbs && d.Base != DirUnknown && d.Path != "." {
		s += "/" + d.Path
	}
	if d.MadeBy != "" {
		s += fmt.Sprintf(" (made by %s, line %d)", d.MadeBy, d.MadeLine)
	}
	return s
}

// Error is a script that could not be read.
type Error struct {
	File      string
	Line, Col int
	Reason    string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Reason
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Reason)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
