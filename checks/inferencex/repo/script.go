package repo

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// maxLines bounds the lines kept per effective file.
const maxLines = 200000

// The bash reader below is the current hand-written tokenizer, kept private
// to this package until a full shell parser replaces it.

// parseScript is a tolerant reader for bash launch scripts. It splits the
// text into commands (line continuations joined, quotes removed from words,
// comments dropped, heredoc bodies kept with the command that opened them)
// and extracts the runtime settings: exported and assigned variables and
// --flag value / --flag=value arguments. It never executes anything and
// never expands variables. On a tokenizing error (an unterminated quote or
// heredoc) it returns what it read so far together with the error.
func parseScript(file string, data []byte) (cmds []Command, settings []Setting, err error) {
	sc := &shellScanner{src: string(data), line: 1}
	cmds, wordLines, heredocLines, err := sc.scan()
	for i, c := range cmds {
		settings = append(settings, commandSettings(file, c, wordLines[i])...)
		if c.Heredoc != "" {
			settings = append(settings, heredocSettings(file, c.Heredoc, heredocLines[i])...)
		}
	}
	if err != nil {
		err = fmt.Errorf("tokenizing %s: %w", file, err)
	}
	return cmds, settings, err
}

type shellScanner struct {
	src  string
	pos  int
	line int

	cmds         []Command
	wordLines    [][]int
	heredocLines []int

	// current command
	words     []string
	wl        []int
	start     int
	startLine int
	// current word
	word     strings.Builder
	inWord   bool
	wordLine int
	// heredocs opened on the current line: command index, delimiter, strip tabs
	pending []pendingDoc
}

type pendingDoc struct {
	cmd   int
	delim string
}

func (s *shellScanner) scan() ([]Command, [][]int, []int, error) {
	s.start, s.startLine = 0, 1
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\\':
			if s.pos+1 < len(s.src) && s.src[s.pos+1] == '\n' {
				s.pos += 2
				s.line++
				s.endWord()
				continue
			}
			s.begin()
			if s.pos+1 < len(s.src) {
				s.word.WriteByte(s.src[s.pos+1])
			}
			s.pos += 2
		case c == '\'':
			s.begin()
			end := strings.IndexByte(s.src[s.pos+1:], '\'')
			if end < 0 {
				return s.fail(fmt.Errorf("line %d: unterminated single quote", s.line))
			}
			body := s.src[s.pos+1 : s.pos+1+end]
			s.word.WriteString(body)
			s.line += strings.Count(body, "\n")
			s.pos += end + 2
		case c == '"':
			s.begin()
			l := s.line
			if err := s.double(); err != nil {
				return s.fail(fmt.Errorf("line %d: %w", l, err))
			}
		case c == '$' && s.pos+1 < len(s.src) && (s.src[s.pos+1] == '(' || s.src[s.pos+1] == '{'):
			s.begin()
			l := s.line
			if err := s.balanced(); err != nil {
				return s.fail(fmt.Errorf("line %d: %w", l, err))
			}
		case c == '`':
			s.begin()
			end := strings.IndexByte(s.src[s.pos+1:], '`')
			if end < 0 {
				return s.fail(fmt.Errorf("line %d: unterminated backquote", s.line))
			}
			body := s.src[s.pos : s.pos+end+2]
			s.word.WriteString(body)
			s.line += strings.Count(body, "\n")
			s.pos += end + 2
		case c == '#' && !s.inWord:
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '\n':
			s.endCommand(s.pos)
			s.pos++
			s.line++
			if err := s.readHeredocs(); err != nil {
				return s.fail(err)
			}
			s.start, s.startLine = s.pos, s.line
		case c == ' ' || c == '\t' || c == '\r':
			s.endWord()
			s.pos++
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			s.endCommand(s.pos)
			for s.pos < len(s.src) && strings.IndexByte(";&|()", s.src[s.pos]) >= 0 {
				s.pos++
			}
			s.start, s.startLine = s.pos, s.line
		case c == '<' && strings.HasPrefix(s.src[s.pos:], "<<") && !strings.HasPrefix(s.src[s.pos:], "<<<"):
			s.endWord()
			s.pos += 2
			if s.pos < len(s.src) && s.src[s.pos] == '-' {
				s.pos++
			}
			for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
				s.pos++
			}
			d := s.delimiter()
			if d == "" {
				return s.fail(fmt.Errorf("line %d: heredoc without delimiter", s.line))
			}
			s.words = append(s.words, "<<"+d)
			s.wl = append(s.wl, s.line)
			s.pending = append(s.pending, pendingDoc{cmd: -1, delim: d})
		default:
			s.begin()
			s.word.WriteByte(c)
			s.pos++
		}
	}
	s.endCommand(len(s.src))
	if len(s.pending) > 0 {
		return s.fail(fmt.Errorf("line %d: heredoc %q is not terminated", s.line, s.pending[0].delim))
	}
	return s.cmds, s.wordLines, s.heredocLines, nil
}

func (s *shellScanner) fail(err error) ([]Command, [][]int, []int, error) {
	s.endCommand(len(s.src))
	return s.cmds, s.wordLines, s.heredocLines, err
}

// leadKeywords are shell reserved words that may precede a simple command
// in command position.
var leadKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "while": true, "until": true,
	"do": true, "!": true, "{": true, "time": true,
}

func (s *shellScanner) begin() {
	if !s.inWord {
		s.inWord = true
		s.wordLine = s.line
	}
}

func (s *shellScanner) endWord() {
	if s.inWord && len(s.words) == 0 && leadKeywords[s.word.String()] {
		// A reserved word in command position (if x; then export A=1; fi)
		// introduces the command that follows it.
		s.word.Reset()
		s.inWord = false
		return
	}
	if s.inWord {
		s.words = append(s.words, s.word.String())
		s.wl = append(s.wl, s.wordLine)
		s.word.Reset()
		s.inWord = false
	}
}

func (s *shellScanner) endCommand(end int) {
	s.endWord()
	if len(s.words) == 0 {
		return
	}
	idx := len(s.cmds)
	for i := range s.pending {
		if s.pending[i].cmd < 0 {
			s.pending[i].cmd = idx
		}
	}
	s.cmds = append(s.cmds, Command{Line: s.startLine, Words: s.words, Raw: strings.TrimSpace(s.src[s.start:end])})
	s.wordLines = append(s.wordLines, s.wl)
	s.heredocLines = append(s.heredocLines, 0)
	s.words, s.wl = nil, nil
}

// readHeredocs consumes the bodies of heredocs opened on the line just
// ended, attaching each body to its command.
func (s *shellScanner) readHeredocs() error {
	for len(s.pending) > 0 {
		d := s.pending[0]
		s.pending = s.pending[1:]
		bodyLine := s.line
		var body strings.Builder
		for {
			if s.pos >= len(s.src) {
				return fmt.Errorf("line %d: heredoc %q is not terminated", bodyLine, d.delim)
			}
			end := strings.IndexByte(s.src[s.pos:], '\n')
			var l string
			if end < 0 {
				l = s.src[s.pos:]
				s.pos = len(s.src)
			} else {
				l = s.src[s.pos : s.pos+end]
				s.pos += end + 1
			}
			s.line++
			if strings.TrimSpace(l) == d.delim {
				break
			}
			body.WriteString(l)
			body.WriteByte('\n')
		}
		if d.cmd >= 0 && d.cmd < len(s.cmds) {
			s.cmds[d.cmd].Heredoc += body.String()
			if s.heredocLines[d.cmd] == 0 {
				s.heredocLines[d.cmd] = bodyLine
			}
		}
	}
	return nil
}

func (s *shellScanner) delimiter() string {
	if s.pos >= len(s.src) {
		return ""
	}
	if q := s.src[s.pos]; q == '\'' || q == '"' {
		end := strings.IndexByte(s.src[s.pos+1:], q)
		if end < 0 || strings.Contains(s.src[s.pos+1:s.pos+1+end], "\n") {
			return ""
		}
		d := s.src[s.pos+1 : s.pos+1+end]
		s.pos += end + 2
		return d
	}
	st := s.pos
	for s.pos < len(s.src) && strings.IndexByte(" \t\n;&|<>()", s.src[s.pos]) < 0 {
		s.pos++
	}
	return strings.Trim(s.src[st:s.pos], `\'"`)
}

// double reads a double-quoted string, keeping $(...) and ${...} literal.
func (s *shellScanner) double() error {
	s.pos++
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '"':
			s.pos++
			return nil
		case c == '\\' && s.pos+1 < len(s.src):
			n := s.src[s.pos+1]
			switch n {
			case '\n':
				s.line++
			case '"', '\\', '$', '`':
				s.word.WriteByte(n)
			default:
				s.word.WriteByte(c)
				s.word.WriteByte(n)
			}
			s.pos += 2
		case c == '$' && s.pos+1 < len(s.src) && (s.src[s.pos+1] == '(' || s.src[s.pos+1] == '{'):
			if err := s.balanced(); err != nil {
				return err
			}
		default:
			if c == '\n' {
				s.line++
			}
			s.word.WriteByte(c)
			s.pos++
		}
	}
	return fmt.Errorf("unterminated double quote")
}

// balanced copies a $( ... ) or ${ ... } expansion into the word, tracking
// nesting and quotes inside it.
func (s *shellScanner) balanced() error {
	open := s.src[s.pos+1]
	close := byte(')')
	if open == '{' {
		close = '}'
	}
	depth := 0
	st := s.pos
	s.pos++
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch c {
		case '\n':
			s.line++
		case '\\':
			s.pos++
		case '\'':
			if open == '(' {
				end := strings.IndexByte(s.src[s.pos+1:], '\'')
				if end < 0 {
					return fmt.Errorf("unterminated single quote in expansion")
				}
				s.line += strings.Count(s.src[s.pos:s.pos+end+1], "\n")
				s.pos += end + 1
			}
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				s.pos++
				s.word.WriteString(s.src[st:s.pos])
				return nil
			}
		}
		s.pos++
	}
	return fmt.Errorf("unterminated $%c expansion", open)
}

var assignRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$`)

// Argv is the command without its leading VAR=value assignments: the
// program and its arguments.
func (c Command) Argv() []string {
	w := c.Words
	for len(w) > 0 && assignRE.MatchString(w[0]) {
		w = w[1:]
	}
	return w
}

// FirstLine is the command's first line, cut at 160 bytes, as reasons
// quote it.
func (c Command) FirstLine() string {
	s, _, _ := strings.Cut(c.Raw, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.TrimSpace(s)
}

// commandSettings extracts variable assignments and long flags.
func commandSettings(file string, c Command, lines []int) []Setting {
	var out []Setting
	w := c.Words
	i := 0
	// Leading VAR=value prefixes (or plain assignments).
	for ; i < len(w); i++ {
		m := assignRE.FindStringSubmatch(w[i])
		if m == nil {
			break
		}
		out = append(out, Setting{Name: m[1], Value: m[2], File: file, Line: lines[i], Kind: "env"})
	}
	if i < len(w) {
		switch w[i] {
		case "export", "declare", "typeset", "local", "readonly":
			for j := i + 1; j < len(w); j++ {
				if m := assignRE.FindStringSubmatch(w[j]); m != nil {
					out = append(out, Setting{Name: m[1], Value: m[2], File: file, Line: lines[j], Kind: "env"})
				}
			}
			return out
		}
	}
	for j := i; j < len(w); j++ {
		if !strings.HasPrefix(w[j], "--") || len(w[j]) < 3 {
			continue
		}
		name, val, hasEq := strings.Cut(w[j], "=")
		if !hasEq && j+1 < len(w) && !strings.HasPrefix(w[j+1], "-") && !strings.HasPrefix(w[j+1], "<<") {
			val = w[j+1]
		}
		out = append(out, Setting{Name: name, Value: val, File: file, Line: lines[j], Kind: "flag"})
	}
	return out
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
