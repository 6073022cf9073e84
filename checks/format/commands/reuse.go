// Package commands reads the slash commands people post on a pull request,
// one grammar per command (/use, /reuse-sweep-run, /verdict recheck and
// /verdict bypass, /pareto-bypass) applied to the lines GitHub shows as
// ordinary text (lines.go), and decides whose commands count: the
// author-association rule, the newest authorized command, and the admin test
// of a bypass. The router, the workers and the rows all read commands here.
package commands

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// The reuse command grammar (RULES.md, "Reuse commands"), applied to the
// command lines of a comment (lines.go). The pre-filter decides which
// comments the acknowledger looks at at all; the command regexp decides
// what a comment asks for. Both use ASCII classes only: Go's \s and [0-9]
// do not match Unicode spaces or digits, so "/use ３" is not a command
// (Python's \d would have accepted it, a quirk we do not copy).
var (
	reusePrefilterRE = regexp.MustCompile(`^\s*/(?:reuse-sweep-run|use)(?:\s|$)`)
	reuseCommandRE   = regexp.MustCompile(`^\s*(?:/reuse-sweep-run(?:[^\S\r\n]+([0-9]+))?|/use[^\S\r\n]+([0-9]+))\s*$`)
)

// ReuseUsage is the usage message of a reuse command that does not parse.
var ReuseUsage = checks.T(
	"Usage: /use <run_id> or /reuse-sweep-run [run_id]",
	"用法：/use <run_id> 或 /reuse-sweep-run [run_id]",
)

// Reuse is a parsed /use or /reuse-sweep-run command.
type Reuse struct {
	// Name is "/use" or "/reuse-sweep-run".
	Name string
	// Pinned is set when the command names a source run.
	Pinned bool
	// RunIDText is the pinned run id in canonical decimal (no leading
	// zeros). RunID is its value, or 0 when it does not fit an int64: such a
	// command still parses (the grammar accepts any digit string) and then
	// fails eligibility because no run has that id.
	RunIDText string
	RunID     int64
}

// String renders the command as a maintainer would type it.
func (c Reuse) String() string {
	if c.Pinned {
		return c.Name + " " + c.RunIDText
	}
	return c.Name
}

// Target is the pinned run id or "auto-select" for reports.
func (c Reuse) Target() string {
	if c.Pinned {
		return "run " + c.RunIDText
	}
	return "auto-select"
}

// Error says why a comment body is not a usable command. The zero
// value means the command parsed.
type Error int

const (
	// OK: the body holds a valid command.
	OK Error = iota
	// NoCommand: no line of the body is a command line at all (or the
	// body is not Markdown the reader accepts); the comment is ignored (no
	// reaction, no reply).
	NoCommand
	// Malformed: a line starts like a command but does not follow the
	// grammar (bare "/use", trailing text, an unknown /verdict sub-command).
	Malformed
)

func (e Error) String() string {
	switch e {
	case OK:
		return "ok"
	case NoCommand:
		return "no command"
	case Malformed:
		return "usage error"
	}
	return fmt.Sprintf("Error(%d)", int(e))
}

// HasReuseLine is the acknowledger's pre-filter: some command line of
// body starts (after whitespace) with /reuse-sweep-run or /use as a whole
// word.
func HasReuseLine(body string) bool { return len(reuseLines(body)) > 0 }

// ReuseName is the command ("/use" or "/reuse-sweep-run") the last
// pre-filter line of body starts with, whether it parses or not; "" when
// body has none. Replies to a command that does not parse name it.
func ReuseName(body string) string {
	ls := reuseLines(body)
	if len(ls) == 0 {
		return ""
	}
	if strings.HasPrefix(strings.TrimLeft(ls[len(ls)-1], " \t\f\v"), "/reuse-sweep-run") {
		return "/reuse-sweep-run"
	}
	return "/use"
}

// reuseLines are the command lines of body the pre-filter matches.
func reuseLines(body string) []string {
	// Every command line holds one of these; most comments hold neither
	// and are not parsed at all.
	if !strings.Contains(body, "/use") && !strings.Contains(body, "/reuse-sweep-run") {
		return nil
	}
	var out []string
	for _, l := range commandLines(body) {
		if reusePrefilterRE.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// ParseReuse parses a comment body. When several lines are commands
// the last one wins; lines that only look like commands are ignored as long
// as one real command line exists.
func ParseReuse(body string) (Reuse, Error) {
	lines := reuseLines(body)
	if len(lines) == 0 {
		return Reuse{}, NoCommand
	}
	ms := matching(lines, reuseCommandRE)
	if len(ms) == 0 {
		return Reuse{}, Malformed
	}
	m := ms[len(ms)-1]
	// The match starts with optional whitespace; the command name follows.
	name := "/use"
	if strings.HasPrefix(strings.TrimLeft(m[0], " \t\f\v"), "/reuse-sweep-run") {
		name = "/reuse-sweep-run"
	}
	digits := m[1] + m[2] // at most one group participates
	cmd := Reuse{Name: name}
	if digits != "" {
		cmd.Pinned = true
		cmd.RunIDText = strings.TrimLeft(digits, "0")
		if cmd.RunIDText == "" {
			cmd.RunIDText = "0"
		}
		if id, err := strconv.ParseInt(cmd.RunIDText, 10, 64); err == nil {
			cmd.RunID = id
		}
	}
	return cmd, OK
}

// AssociationAllowed reports whether a comment author association is in the
// allowed list (GitHub spells them in upper case; compare without case).
func AssociationAllowed(association string, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(a, association) {
			return true
		}
	}
	return false
}

// NewestAuthorized picks the command that counts: order the comments by creation time
// (stable, so equal timestamps keep their listing order), walk from newest
// to oldest, skip authors whose association is not allowed, and return the
// first comment whose body parses as a reuse command. Editing a comment does
// not change its creation time, so an edit never moves a command forward.
func NewestAuthorized(comments []checks.Comment, allowed []string) (cmd Reuse, comment checks.Comment, ok bool) {
	sorted := append([]checks.Comment(nil), comments...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CreatedAt.Before(sorted[j].CreatedAt) })
	for i := len(sorted) - 1; i >= 0; i-- {
		c := sorted[i]
		if !AssociationAllowed(c.Association, allowed) {
			continue
		}
		if cmd, err := ParseReuse(c.Body); err == OK {
			return cmd, c, true
		}
	}
	return Reuse{}, checks.Comment{}, false
}
