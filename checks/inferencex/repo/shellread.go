package repo

import (
	"regexp"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks/format/shell"
	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// maxLines bounds the lines kept per effective file.
const maxLines = 200000

// readScript reads a bash file with the shell parser (checks/format/shell)
// into the change-set model's view: its simple commands (wherever they sit:
// functions, branches, substitutions, literal bash -c strings) and the
// runtime settings it writes. A flag whose value expands a variable is read
// with the value the script assigns it, once per assignment that may be in
// effect, each carrying the run it belongs to (the eval-only branch or the
// throughput path). A script that does not parse yields the parser's
// *shell.Error (file:line:col: reason) and nothing else: the caller records
// it and the rows that need the file fail closed.
func readScript(file string, data []byte) (*shell.Script, []Command, []Setting, error) {
	sc, err := shell.Parse(file, data)
	if err != nil {
		return nil, nil, nil, err
	}
	return sc, scriptCommands(sc), scriptSettings(file, sc, ""), nil
}

// scriptCommands converts the parser's simple commands.
func scriptCommands(sc *shell.Script) []Command {
	var out []Command
	for _, c := range sc.Commands {
		var words []string
		for _, a := range c.Assigns {
			if a.Cmd == c && (a.Kind == shell.AssignPrefix || a.Kind == shell.AssignPlain) {
				words = append(words, a.Name+"="+wordValue(a.Value))
			}
		}
		for _, w := range c.Args {
			words = append(words, wordValue(w))
		}
		if len(words) == 0 {
			continue
		}
		var body strings.Builder
		for _, h := range c.Heredocs() {
			body.WriteString(h.Body)
		}
		out = append(out, Command{Line: c.Line, Words: words, Raw: c.Text, Heredoc: body.String()})
	}
	return out
}

// wordValue is a word as the settings report it: its value when the script
// decides it (a static word, or one whose variables the script assigns one
// value that no environment can replace), else the text as written without
// its outer quotes, expansions kept.
func wordValue(w shell.Word) string {
	switch {
	case w.Static:
		return w.Value
	case len(w.Values) == 1 && !w.FromEnv:
		return w.Values[0]
	}
	t := w.Text
	if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
		t = unescapeDQ(t[1:len(t)-1], false)
	}
	return t
}

// wordValueAt is wordValue with the variables the script decides replaced
// in a word it does not decide whole, at site at: in
// "{\"n\": $N, \"model\": \"$DRAFT\"}" a script-assigned N is read, a DRAFT
// the environment may supply stays as written.
func wordValueAt(sc *shell.Script, w shell.Word, at *shell.Site) string {
	v := wordValue(w)
	if p, ok := printfValue(sc, w); ok {
		return p
	}
	if w.Static || len(w.Values) == 1 && !w.FromEnv || !strings.Contains(v, "$") || strings.Contains(w.Text, "$(") || strings.Contains(w.Text, "`") {
		return v
	}
	return varUseRE.ReplaceAllStringFunc(v, func(ref string) string { return outerValue(sc, at, ref) })
}

// varUseRE is one $NAME or ${NAME} reference.
var varUseRE = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)

// unescapeDQ removes the backslashes quote removal drops inside double
// quotes. keepLines keeps line continuations (backslash-newline), so that
// text parsed again keeps its line numbers.
func unescapeDQ(s string, keepLines bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			if s[i+1] == '\n' && keepLines {
				b.WriteString("\\\n")
				i++
				continue
			}
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// scriptSettings lists the settings a script writes: NAME=value assignments
// (plain, prefix, declarations, defaults), --flag value arguments of every
// command and array literal, key: value lines of heredoc bodies (generated
// YAML or env files), and the settings of command lines held in variables.
// role is the role of every setting ("" for a whole script).
func scriptSettings(file string, sc *shell.Script, role string) []Setting {
	var out []Setting
	for _, s := range sc.Settings() {
		site := settingSite(s)
		base := Setting{Name: s.Name, File: file, Line: s.Line, Role: role, Run: runOf(site.Conds)}
		if s.Kind == shell.SettingAssign {
			base.Kind = "env"
			base.Value = wordValueAt(sc, s.Value, site)
			out = append(out, base)
			if s.Assign != nil && !s.Assign.IsArray {
				out = append(out, commandLineSettings(file, sc, s.Assign, role)...)
			}
			continue
		}
		base.Kind = "flag"
		out = append(out, flagSettings(sc, base, s, site)...)
	}
	for _, c := range sc.Commands {
		for _, h := range c.Heredocs() {
			for _, s := range heredocSettings(file, h.Body, h.Line) {
				s.Role, s.Run = role, runOf(c.Conds)
				out = append(out, s)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

func settingSite(s shell.Setting) *shell.Site {
	if s.Cmd != nil {
		return &s.Cmd.Site
	}
	return &s.Assign.Site
}

// flagSettings reads a flag's value. A value that is one variable
// (--speculative-config "$SPEC_CONFIG") is read once per assignment that may
// be in effect, at the assignment's line and in the run its branch belongs
// to: a script assigns such a variable in branches (the eval-only run
// without synthetic acceptance, the throughput run with it).
func flagSettings(sc *shell.Script, base Setting, s shell.Setting, site *shell.Site) []Setting {
	base.Value = wordValueAt(sc, s.Value, site)
	name, ok := soleVar(s.Value)
	if !ok || s.Value.Static {
		return []Setting{base}
	}
	as, fromEnv := sc.Values(name, site)
	if len(as) < 2 && !fromEnv {
		return []Setting{base}
	}
	var out []Setting
	for _, a := range as {
		if a.IsArray || a.Kind == shell.AssignRead || a.Kind == shell.AssignFor {
			return []Setting{base}
		}
		r := base
		at := a.Site
		r.Value, r.Line = wordValueAt(sc, a.Value, &at), a.Line
		if run := runOf(a.Conds); run != "" {
			r.Run = run
		}
		out = append(out, r)
	}
	if fromEnv || len(out) == 0 {
		return []Setting{base}
	}
	return out
}

// soleVarRE is a word that is exactly one variable expansion.
var soleVarRE = regexp.MustCompile(`^"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?$`)

func soleVar(w shell.Word) (string, bool) {
	m := soleVarRE.FindStringSubmatch(w.Text)
	if m == nil || strings.HasPrefix(strings.TrimPrefix(w.Text, `"`), "${") != strings.HasSuffix(strings.TrimSuffix(w.Text, `"`), "}") {
		return "", false
	}
	return m[1], true
}

// commandLineRE is a string value that holds NAME=value words or --flags:
// a command line (or its environment prefix) kept in a variable and run
// later (DECODE_CMD="SGLANG_X=1 python3 -m sglang.launch_server --tp 8").
var commandLineRE = regexp.MustCompile(`(^|\s)([A-Za-z_][A-Za-z0-9_]*=\S|--[A-Za-z])`)

// commandLineSettings reads the settings of a command line held in variable
// a: its value, without the outer quotes, parsed as shell; its variables
// are read in the outer script where the assignment runs. A variable named
// PREFILL_* or DECODE_* holds that role's command line (the disaggregated
// launchers' convention); others keep role. A value that does not parse as
// shell is a string, not a command line, and yields nothing.
func commandLineSettings(file string, sc *shell.Script, a *shell.Assign, role string) []Setting {
	text := a.Value.Text
	if len(text) < 2 || text[0] != '"' || text[len(text)-1] != '"' || !commandLineRE.MatchString(text[1:len(text)-1]) {
		return nil
	}
	inner, err := shell.Parse(file, []byte(unescapeDQ(text[1:len(text)-1], true)))
	if err != nil {
		return nil
	}
	switch n := strings.ToUpper(a.Name); {
	case strings.HasPrefix(n, "DECODE_"):
		role = "decode"
	case strings.HasPrefix(n, "PREFILL_"):
		role = "prefill"
	}
	var out []Setting
	for _, s := range scriptSettings(file, inner, role) {
		if s.Kind == "heredoc" {
			continue
		}
		s.Line += a.Value.Line - 1
		if s.Run == "" {
			s.Run = runOf(a.Conds)
		}
		s.Value = outerValue(sc, &a.Site, s.Value)
		out = append(out, s)
	}
	return out
}

// varRefRE is a value that is exactly one variable reference.
var varRefRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)

// outerValue reads a value of an inner command line that is one variable
// reference in the outer script at site: the value every assignment in
// effect agrees on, when no environment can supply another; otherwise the
// reference stays as written.
func outerValue(sc *shell.Script, at *shell.Site, v string) string {
	m := varRefRE.FindStringSubmatch(v)
	if m == nil || strings.HasPrefix(v, "${") != strings.HasSuffix(v, "}") {
		return v
	}
	as, fromEnv := sc.Values(m[1], at)
	if fromEnv || len(as) == 0 {
		return v
	}
	val := ""
	for i, a := range as {
		if a.IsArray || a.Value.FromEnv || len(a.Value.Values) != 1 || i > 0 && a.Value.Values[0] != val {
			return v
		}
		val = a.Value.Values[0]
	}
	return val
}

// Runs a setting may belong to (Setting.Run).
const (
	RunEvalOnly   = "eval-only"
	RunThroughput = "throughput"
)

// Tests of the eval-only switch: EVAL_ONLY compared with true (or 1), or
// tested for being non-empty, and the negations.
var (
	evalOnlyIsRE  = regexp.MustCompile(`EVAL_ONLY\b[^=!]*\s==?\s*["']?(true|1)["']?`)
	evalOnlyNotRE = regexp.MustCompile(`EVAL_ONLY\b[^=!]*\s!=\s*["']?(true|1)["']?`)
)

// evalPolarity says what a condition asserts about the eval-only switch:
// +1 that the run is eval-only, -1 that it is not, 0 nothing.
func evalPolarity(text string) int {
	switch {
	case !strings.Contains(text, "EVAL_ONLY"):
		return 0
	case evalOnlyNotRE.MatchString(text):
		return -1
	case evalOnlyIsRE.MatchString(text):
		return 1
	}
	return 0
}

// runOf is the run a site with these enclosing conditions belongs to: the
// branch taken when EVAL_ONLY is true is the eval-only run, the branch taken
// when it is not (an else after that test, an EVAL_ONLY != true branch) is
// the throughput path; "" when the conditions do not decide.
func runOf(conds []*shell.Cond) string {
	run := ""
	set := func(p int) {
		switch {
		case p > 0:
			run = RunEvalOnly
		case p < 0:
			run = RunThroughput
		}
	}
	for _, c := range conds {
		switch c.Kind {
		case shell.CondIf:
			if c.Branch != "else" {
				if p := evalPolarity(c.Text); p != 0 {
					set(p)
					continue
				}
			}
			for _, prior := range c.Prior {
				if p := evalPolarity(prior); p != 0 {
					set(-p)
				}
			}
		case shell.CondAnd:
			set(evalPolarity(c.Text))
		case shell.CondOr:
			set(-evalPolarity(c.Text))
		case shell.CondCase:
			if !strings.Contains(c.Text, "EVAL_ONLY") {
				continue
			}
			if casePattern(c.Branch, "true") {
				set(1)
			} else {
				for _, p := range c.Prior {
					if casePattern(p, "true") {
						set(-1)
					}
				}
			}
		}
	}
	return run
}

func casePattern(pats, v string) bool {
	for _, p := range strings.Split(pats, "|") {
		if strings.Trim(p, `"'`) == v {
			return true
		}
	}
	return false
}

// Argv is the command without its leading VAR=value assignments: the
// program and its arguments.
func (c Command) Argv() []string {
	w := c.Words
	for len(w) > 0 && assignRE.MatchString(w[0]) {
		w = w[1:]
	}
	return w
}

var assignRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$`)

// FirstLine is the command's first line, cut at 160 bytes, as reasons
// quote it.
func (c Command) FirstLine() string {
	s, _, _ := strings.Cut(c.Raw, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.TrimSpace(s)
}

var heredocKVRE = regexp.MustCompile(`^\s*-?\s*"?([A-Za-z_][A-Za-z0-9_.\-]*)"?\s*[:=]\s*(.*?)\s*,?\s*$`)

// heredocSettings reads key: value / key=value lines of a heredoc body (a
// generated YAML or env file), skipping comment lines.
func heredocSettings(file, body string, first int) []Setting {
	var out []Setting
	for i, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if m := heredocKVRE.FindStringSubmatch(l); m != nil {
			v := strings.TrimSpace(string(yamlx.StripComment([]byte(m[2]))))
			out = append(out, Setting{Name: m[1], Value: strings.Trim(v, `"'`), File: file, Line: first + i, Kind: "heredoc"})
		}
	}
	return out
}

// splitLines splits text into at most maxLines lines.
func splitLines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	ls := strings.SplitN(s, "\n", maxLines+1)
	if len(ls) > maxLines {
		ls = ls[:maxLines]
	}
	return ls
}
