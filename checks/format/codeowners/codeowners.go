// Package codeowners reads CODEOWNERS files the way GitHub applies them: line
// by line, last match wins, broken lines skipped and reported.
package codeowners

import (
	"fmt"
	"sort"
	"strings"

	hmarr "github.com/hmarr/codeowners"
)

// File is a parsed CODEOWNERS file. Unlike hmarr.ParseFile, which
// rejects the whole file on the first bad line, parsing is line by line: a
// broken line is skipped and recorded in Problems while every good rule is
// kept, which is also how GitHub treats a file with errors.
type File struct {
	Rules    []Rule
	Problems []Problem
}

// Rule is one effective CODEOWNERS line.
type Rule struct {
	Pattern string
	// Owners are "@user", "@org/team" or email addresses, in file order. An
	// empty list un-owns the paths the rule matches.
	Owners []string
	// Line is the 1-based line number in the file.
	Line int
	// CatchAll is set for a rule whose pattern alone matches every path
	// ("*", "**" or "/**"): paths it decides are "default paths".
	CatchAll bool

	rule hmarr.Rule
}

// Problem is a CODEOWNERS line that could not be used as written.
type Problem struct {
	Line    int
	Message string
}

// maxLines bounds the work a pathological file can cause; GitHub
// itself refuses CODEOWNERS files over 3 MB.
const maxLines = 20000

// Parse parses CODEOWNERS text. It never fails; problems are
// reported per line.
func Parse(text string) File {
	var c File
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, raw := range lines {
		n := i + 1
		if n > maxLines {
			c.Problems = append(c.Problems, Problem{Line: n, Message: fmt.Sprintf("file has more than %d lines; the rest is ignored", maxLines)})
			break
		}
		line := strings.TrimSpace(stripComment(raw))
		if line == "" {
			continue
		}
		pat, owners := splitRule(line)
		if msg := unsupportedPattern(pat); msg != "" {
			c.Problems = append(c.Problems, Problem{Line: n, Message: "invalid pattern " + quote(pat) + ": " + msg})
			continue
		}
		rs, err := hmarr.ParseFile(strings.NewReader(pat))
		if err != nil || len(rs) != 1 {
			msg := "invalid pattern " + quote(pat)
			if err != nil {
				msg += ": " + strings.TrimPrefix(err.Error(), "line 1: ")
			}
			c.Problems = append(c.Problems, Problem{Line: n, Message: msg})
			continue
		}
		r := Rule{Pattern: pat, Line: n, CatchAll: isCatchAll(pat), rule: rs[0]}
		bad := 0
		for _, tok := range owners {
			o, ok := parseOwner(tok)
			if !ok {
				bad++
				c.Problems = append(c.Problems, Problem{Line: n, Message: "invalid owner " + quote(tok)})
				continue
			}
			r.Owners = append(r.Owners, o)
		}
		// A line whose every owner is invalid is broken, not an un-owning
		// line: skip it like GitHub does rather than strip its paths of owners.
		if bad > 0 && len(r.Owners) == 0 {
			continue
		}
		c.Rules = append(c.Rules, r)
	}
	return c
}

// stripComment removes a comment: "#" at the start of a line or after
// whitespace. A "#" inside a token (for example in an escaped pattern) stays.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] != '#' {
			continue
		}
		if i == 0 || line[i-1] == ' ' || line[i-1] == '\t' {
			return line[:i]
		}
	}
	return line
}

// splitRule splits a trimmed line into its pattern (which may contain
// backslash-escaped spaces) and owner tokens.
func splitRule(line string) (string, []string) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' {
			i++
			continue
		}
		if line[i] == ' ' || line[i] == '\t' {
			end = i
			break
		}
	}
	return line[:end], strings.Fields(line[end:])
}

// unsupportedPattern rejects patterns the matcher would misread: "/" alone
// (it matches nothing, and the library indexes past its end) and a "#"
// inside a pattern (the library would cut the pattern there).
func unsupportedPattern(pat string) string {
	switch {
	case strings.Trim(pat, "/") == "":
		return "matches no path"
	case strings.Contains(pat, "#"):
		return "\"#\" in a pattern is not supported"
	}
	return ""
}

func parseOwner(tok string) (string, bool) {
	for _, m := range []func(string) (hmarr.Owner, error){
		hmarr.MatchEmailOwner, hmarr.MatchTeamOwner, hmarr.MatchUsernameOwner,
	} {
		if o, err := m(tok); err == nil {
			return o.String(), true
		}
	}
	return "", false
}

func isCatchAll(pat string) bool { return pat == "*" || pat == "**" || pat == "/**" }

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Match returns the last rule matching path (owners do not accumulate). A
// matched rule with no owners means the path is explicitly unowned.
func (c File) Match(path string) (Rule, bool) {
	path = strings.TrimPrefix(path, "/")
	for i := len(c.Rules) - 1; i >= 0; i-- {
		if ok, err := c.Rules[i].rule.Match(path); ok && err == nil {
			return c.Rules[i], true
		}
	}
	return Rule{}, false
}

// Owners returns the owners of path by its last matching rule (Match's
// rule's owners); ok is false when no rule matches.
func (c File) Owners(path string) ([]string, bool) {
	r, ok := c.Match(path)
	return r.Owners, ok
}

// ProblemLines are the problems as "line N: why".
func (c File) ProblemLines() []string {
	out := make([]string, 0, len(c.Problems))
	for _, p := range c.Problems {
		out = append(out, fmt.Sprintf("line %d: %s", p.Line, p.Message))
	}
	return out
}

// Listed reports whether @login is an owner anywhere in the file,
// case-insensitively.
func (c File) Listed(login string) bool {
	want := "@" + strings.TrimPrefix(login, "@")
	for _, r := range c.Rules {
		for _, o := range r.Owners {
			if strings.EqualFold(o, want) {
				return true
			}
		}
	}
	return false
}

// Teams returns every team owner ("@org/slug") listed anywhere, deduplicated
// case-insensitively and sorted.
func (c File) Teams() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.Rules {
		for _, o := range r.Owners {
			if !IsTeam(o) || seen[strings.ToLower(o)] {
				continue
			}
			seen[strings.ToLower(o)] = true
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

// IsTeam reports whether an owner is a team ("@org/slug").
func IsTeam(o string) bool { return strings.HasPrefix(o, "@") && strings.Contains(o, "/") }

// SplitTeam splits "@org/slug" into org and slug.
func SplitTeam(o string) (org, slug string, ok bool) {
	if !IsTeam(o) {
		return "", "", false
	}
	org, slug, ok = strings.Cut(strings.TrimPrefix(o, "@"), "/")
	return org, slug, ok && org != "" && slug != ""
}
