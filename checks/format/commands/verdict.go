package commands

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Maintainer commands addressed to Verdict itself. Like the reuse grammar
// they are whole command lines (lines.go): leading horizontal whitespace is
// allowed, a quoted line ("> /verdict recheck") or one in a code block or
// an HTML comment is not a command, and the last valid command line of a
// comment wins.
//
//	/verdict recheck [<sign-off URL>]
//	/verdict bypass <check-number> <sha, 7-40 hex> <reason…>
var verdictLineRE = regexp.MustCompile(`^[^\S\n]*/verdict(?:[^\S\n]+(.*?))?[^\S\n]*$`)

var (
	checkNumberRE = regexp.MustCompile(`^[0-9]{1,3}$`)
	shaPrefixRE   = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)
)

// VerdictUsage is the usage message of a /verdict line that does not parse.
var VerdictUsage = checks.T(
	"Usage: /verdict recheck [<sign-off URL>] or /verdict bypass <check-number> <sha> <reason>",
	"用法：/verdict recheck [<sign-off URL>] 或 /verdict bypass <check-number> <sha> <reason>",
)

// Action is what a /verdict command asks for.
type Action int

const (
	// ActionRecheck re-runs verification of the PR's sign-offs.
	ActionRecheck Action = iota + 1
	// ActionBypass records a maintainer's bypass of one check on one commit.
	ActionBypass
)

func (a Action) String() string {
	switch a {
	case ActionRecheck:
		return "recheck"
	case ActionBypass:
		return "bypass"
	}
	return "unknown"
}

// Verdict is a parsed /verdict command. Target is the optional
// sign-off URL of a recheck (one token, validated by the caller against the
// PR); Check, SHA and Reason are set for a bypass only, SHA in lower case.
type Verdict struct {
	Action Action
	Target string
	Check  int
	SHA    string
	Reason string
}

// String renders the command as a maintainer would type it.
func (c Verdict) String() string {
	switch {
	case c.Action == ActionBypass:
		return "/verdict bypass " + strconv.Itoa(c.Check) + " " + c.SHA + " " + c.Reason
	case c.Target != "":
		return "/verdict " + c.Action.String() + " " + c.Target
	}
	return "/verdict " + c.Action.String()
}

// ParseVerdict parses a comment body. A body without any /verdict
// line is NoCommand; one whose /verdict lines are all malformed (unknown
// sub-command, missing or extra arguments, a bad SHA) is Malformed.
func ParseVerdict(body string) (Verdict, Error) {
	if !strings.Contains(body, "/verdict") {
		return Verdict{}, NoCommand
	}
	return parseVerdictLines(commandLines(body))
}

// parseVerdictLines parses the command lines of a body.
func parseVerdictLines(lines []string) (Verdict, Error) {
	ms := matching(lines, verdictLineRE)
	if len(ms) == 0 {
		return Verdict{}, NoCommand
	}
	for i := len(ms) - 1; i >= 0; i-- {
		if c, ok := parseVerdictArgs(ms[i][1]); ok {
			return c, OK
		}
	}
	return Verdict{}, Malformed
}

func parseVerdictArgs(rest string) (Verdict, bool) {
	sub, rest := cutToken(rest)
	switch sub {
	case "recheck":
		// The optional argument is a link to the sign-off; which PR it
		// names is for the caller to check.
		target, extra := cutToken(rest)
		ok := extra == "" && (target == "" || strings.HasPrefix(target, "https://"))
		return Verdict{Action: ActionRecheck, Target: target}, ok
	case "bypass":
		num, rest := cutToken(rest)
		sha, reason := cutToken(rest)
		if !checkNumberRE.MatchString(num) || !shaPrefixRE.MatchString(sha) || reason == "" {
			return Verdict{}, false
		}
		n, _ := strconv.Atoi(num) // at most three ASCII digits
		return Verdict{Action: ActionBypass, Check: n, SHA: strings.ToLower(sha), Reason: reason}, true
	}
	return Verdict{}, false
}

// cutToken splits off the first token of s, separated by horizontal ASCII
// whitespace, and returns it with the trimmed remainder.
func cutToken(s string) (tok, rest string) {
	const ws = " \t\f\r\v"
	s = strings.TrimLeft(s, ws)
	i := strings.IndexAny(s, ws)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.Trim(s[i:], ws)
}
