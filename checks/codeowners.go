package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hmarr/codeowners"
)

// Codeowners is a parsed CODEOWNERS file. Unlike codeowners.ParseFile, which
// rejects the whole file on the first bad line, parsing is line by line: a
// broken line is skipped and recorded in Problems while every good rule is
// kept, which is also how GitHub treats a file with errors.
type Codeowners struct {
	Rules    []OwnerRule
	Problems []OwnerProblem
}

// OwnerRule is one effective CODEOWNERS line.
type OwnerRule struct {
	Pattern string
	// Owners are "@user", "@org/team" or email addresses, in file order. An
	// empty list un-owns the paths the rule matches.
	Owners []string
	// Line is the 1-based line number in the file.
	Line int
	// CatchAll is set for a rule whose pattern alone matches every path
	// ("*", "**" or "/**"): paths it decides are "default paths".
	CatchAll bool

	rule codeowners.Rule
}

// OwnerProblem is a CODEOWNERS line that could not be used as written.
type OwnerProblem struct {
	Line    int
	Message string
}

// maxCodeownersLines bounds the work a pathological file can cause; GitHub
// itself refuses CODEOWNERS files over 3 MB.
const maxCodeownersLines = 20000

// ParseCodeowners parses CODEOWNERS text. It never fails; problems are
// reported per line.
func ParseCodeowners(text string) Codeowners {
	var c Codeowners
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, raw := range lines {
		n := i + 1
		if n > maxCodeownersLines {
			c.Problems = append(c.Problems, OwnerProblem{Line: n, Message: fmt.Sprintf("file has more than %d lines; the rest is ignored", maxCodeownersLines)})
			break
		}
		line := strings.TrimSpace(coStripComment(raw))
		if line == "" {
			continue
		}
		pat, owners := coSplitRule(line)
		if msg := coUnsupportedPattern(pat); msg != "" {
			c.Problems = append(c.Problems, OwnerProblem{Line: n, Message: "invalid pattern " + coQuote(pat) + ": " + msg})
			continue
		}
		rs, err := codeowners.ParseFile(strings.NewReader(pat))
		if err != nil || len(rs) != 1 {
			msg := "invalid pattern " + coQuote(pat)
			if err != nil {
				msg += ": " + strings.TrimPrefix(err.Error(), "line 1: ")
			}
			c.Problems = append(c.Problems, OwnerProblem{Line: n, Message: msg})
			continue
		}
		r := OwnerRule{Pattern: pat, Line: n, CatchAll: coIsCatchAll(pat), rule: rs[0]}
		bad := 0
		for _, tok := range owners {
			o, ok := coParseOwner(tok)
			if !ok {
				bad++
				c.Problems = append(c.Problems, OwnerProblem{Line: n, Message: "invalid owner " + coQuote(tok)})
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

// coStripComment removes a comment: "#" at the start of a line or after
// whitespace. A "#" inside a token (for example in an escaped pattern) stays.
func coStripComment(line string) string {
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

// coSplitRule splits a trimmed line into its pattern (which may contain
// backslash-escaped spaces) and owner tokens.
func coSplitRule(line string) (string, []string) {
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

// coUnsupportedPattern rejects patterns the matcher would misread: "/" alone
// (it matches nothing, and the library indexes past its end) and a "#"
// inside a pattern (the library would cut the pattern there).
func coUnsupportedPattern(pat string) string {
	switch {
	case strings.Trim(pat, "/") == "":
		return "matches no path"
	case strings.Contains(pat, "#"):
		return "\"#\" in a pattern is not supported"
	}
	return ""
}

func coParseOwner(tok string) (string, bool) {
	for _, m := range []func(string) (codeowners.Owner, error){
		codeowners.MatchEmailOwner, codeowners.MatchTeamOwner, codeowners.MatchUsernameOwner,
	} {
		if o, err := m(tok); err == nil {
			return o.String(), true
		}
	}
	return "", false
}

func coIsCatchAll(pat string) bool { return pat == "*" || pat == "**" || pat == "/**" }

func coQuote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Match returns the last rule matching path (owners do not accumulate). A
// matched rule with no owners means the path is explicitly unowned.
func (c Codeowners) Match(path string) (OwnerRule, bool) {
	path = strings.TrimPrefix(path, "/")
	for i := len(c.Rules) - 1; i >= 0; i-- {
		if ok, err := c.Rules[i].rule.Match(path); ok && err == nil {
			return c.Rules[i], true
		}
	}
	return OwnerRule{}, false
}

// Listed reports whether @login is an owner anywhere in the file,
// case-insensitively.
func (c Codeowners) Listed(login string) bool {
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
func (c Codeowners) Teams() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.Rules {
		for _, o := range r.Owners {
			if !IsTeamOwner(o) || seen[strings.ToLower(o)] {
				continue
			}
			seen[strings.ToLower(o)] = true
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

// IsTeamOwner reports whether an owner is a team ("@org/slug").
func IsTeamOwner(o string) bool { return strings.HasPrefix(o, "@") && strings.Contains(o, "/") }

// SplitTeam splits "@org/slug" into org and slug.
func SplitTeam(o string) (org, slug string, ok bool) {
	if !IsTeamOwner(o) {
		return "", "", false
	}
	org, slug, ok = strings.Cut(strings.TrimPrefix(o, "@"), "/")
	return org, slug, ok && org != "" && slug != ""
}
