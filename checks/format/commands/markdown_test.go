package commands

import (
	"strings"
	"testing"
)

// constructs places a command line in each Markdown construct; counts says
// whether GitHub shows it as a line of ordinary text of its own, the only
// place a command is read from.
var constructs = []struct {
	name   string
	wrap   func(cmd string) string
	counts bool
}{
	{"plain", func(c string) string { return c }, true},
	{"in prose", func(c string) string { return "Thanks.\n" + c + "\nBye." }, true},
	{"fence", func(c string) string { return "```\n" + c + "\n```" }, false},
	{"fence with info", func(c string) string { return "```text\n" + c + "\n```\n" }, false},
	{"tilde fence", func(c string) string { return "~~~\n" + c + "\n~~~" }, false},
	{"unclosed fence", func(c string) string { return "```\n" + c }, false},
	{"indented fence", func(c string) string { return "  ```\n  " + c + "\n  ```" }, false},
	{"after a closed fence", func(c string) string { return "```\nlog\n```\n" + c }, true},
	{"indented code", func(c string) string { return "text\n\n    " + c }, false},
	{"tab-indented code", func(c string) string { return "\t" + c }, false},
	{"html block", func(c string) string { return "<details>\n" + c + "\n</details>" }, false},
	{"html comment block", func(c string) string { return "<!--\n" + c + "\n-->" }, false},
	{"one-line html comment", func(c string) string { return "<!-- " + c + " -->" }, false},
	{"inline html comment", func(c string) string { return "note <!-- " + c + " --> done" }, false},
	{"comment before the command", func(c string) string { return "<!-- x --> " + c }, false},
	{"comment after the command", func(c string) string { return c + " <!-- why -->" }, false},
	{"inline tag on the line", func(c string) string { return "<b>" + c + "</b>" }, false},
	{"multi-line html comment", func(c string) string { return "see <!--\n" + c + "\n--> done" }, false},
	{"block quote", func(c string) string { return "> " + c }, false},
	{"lazy quote continuation", func(c string) string { return "> earlier\n" + c }, false},
	{"nested quote", func(c string) string { return "> > " + c }, false},
	{"quote in a list item", func(c string) string { return "- item\n  > " + c }, false},
	{"quote after a quote", func(c string) string { return "> earlier\n\n" + c }, true},
	{"list item", func(c string) string { return "- " + c }, false},
	{"ordered list item", func(c string) string { return "1. " + c }, false},
	{"task item", func(c string) string { return "- [x] " + c }, false},
	// A later line of a list item that starts with the command was a
	// command for the line grammar and still is.
	{"list item continuation", func(c string) string { return "- item\n  " + c }, true},
	{"list item lazy continuation", func(c string) string { return "- item\n" + c }, true},
	{"list item paragraph", func(c string) string { return "- item\n\n  " + c }, true},
	{"code in a list item", func(c string) string { return "- item\n\n      " + c }, false},
	{"heading", func(c string) string { return "## " + c }, false},
	{"setext heading", func(c string) string { return c + "\n---" }, false},
	{"table cell", func(c string) string { return "| a |\n|---|\n| " + c + " |" }, false},
	{"code span", func(c string) string { return "`" + c + "`" }, false},
	{"crlf", func(c string) string { return "Thanks\r\n" + c + "\r\nBye\r\n" }, true},
	{"lone cr", func(c string) string { return "Thanks\r" + c + "\rBye" }, true},
	{"leading spaces", func(c string) string { return "   " + c }, true},
	{"refused by the reader", func(c string) string { return strings.Repeat(">", 70) + " x\n\n" + c }, false},
}

// commandCases are one valid command of each grammar and how to read it.
var commandCases = []struct {
	cmd  string
	read func(body string) (string, bool)
}{
	{"/use 123", readReuse},
	{"/reuse-sweep-run", readReuse},
	{"/reuse-sweep-run 77", readReuse},
	{"/verdict recheck", readVerdict},
	{"/verdict recheck https://github.com/o/r/pull/1#issuecomment-2", readVerdict},
	{"/verdict bypass 14 abcdef0 tight GPU budget", readVerdict},
	{"/pareto-bypass abcdef0 tight GPU budget", func(body string) (string, bool) {
		sha, reason, ok := bypassCommand(body, 14)
		return "/pareto-bypass " + sha + " " + reason, ok
	}},
}

func readReuse(body string) (string, bool) {
	c, err := ParseReuse(body)
	if (err == NoCommand) == HasReuseLine(body) {
		return "", false // the pre-filter must agree; reported by the caller
	}
	return c.String(), err == OK
}

func readVerdict(body string) (string, bool) {
	c, err := ParseVerdict(body)
	return c.String(), err == OK
}

func TestCommandsInMarkdownConstructs(t *testing.T) {
	for _, cc := range commandCases {
		for _, k := range constructs {
			t.Run(cc.cmd+"/"+k.name, func(t *testing.T) {
				body := k.wrap(cc.cmd)
				got, ok := cc.read(body)
				if ok != k.counts {
					t.Fatalf("%q: command read = %v, want %v", body, ok, k.counts)
				}
				if ok && got != cc.cmd {
					t.Errorf("%q: read %q, want %q", body, got, cc.cmd)
				}
			})
		}
	}
}

// A hidden command never overrides a visible one: the last visible command
// line wins.
func TestHiddenCommandDoesNotWin(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"/use 1\n\n```\n/use 2\n```", "/use 1"},
		{"/use 1\n<!--\n/use 2\n-->", "/use 1"},
		{"/use 1\n\n> /use 2", "/use 1"},
		{"/use 1\n\n    /use 2", "/use 1"},
		{"```\n/use 2\n```\n/use 1", "/use 1"},
	} {
		if c, err := ParseReuse(tt.body); err != OK || c.String() != tt.want {
			t.Errorf("ParseReuse(%q) = %v, %v; want %s", tt.body, c, err, tt.want)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{"/verdict recheck\n\n```\n/verdict bypass 1 abcdef0 r\n```", "/verdict recheck"},
		{"/verdict bypass 1 abcdef0 r\n<!-- /verdict recheck -->", "/verdict bypass 1 abcdef0 r"},
	} {
		if c, err := ParseVerdict(tt.body); err != OK || c.String() != tt.want {
			t.Errorf("ParseVerdict(%q) = %v, %v; want %s", tt.body, c, err, tt.want)
		}
	}
	// A command that only looks like one inside code is not even malformed.
	for _, body := range []string{"```\n/use\n```", "<!-- /use 1 please -->", "> /use"} {
		if _, err := ParseReuse(body); err != NoCommand || HasReuseLine(body) {
			t.Errorf("ParseReuse(%q) = %v, want no command", body, err)
		}
	}
	if _, err := ParseVerdict("```\n/verdict frobnicate\n```"); err != NoCommand {
		t.Errorf("fenced malformed /verdict = %v, want no command", err)
	}
}

func TestReuseName(t *testing.T) {
	for body, want := range map[string]string{
		"/use":                                 "/use",
		"/reuse-sweep-run please":              "/reuse-sweep-run",
		"/use 1\n/reuse-sweep-run x y":         "/reuse-sweep-run",
		"/reuse-sweep-run\n/use":               "/use",
		"```\n/reuse-sweep-run x\n```\n/use x": "/use",
		"mentions /reuse-sweep-run mid-line":   "",
		"":                                     "",
	} {
		if got := ReuseName(body); got != want {
			t.Errorf("ReuseName(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestFreeTextBypassClaim(t *testing.T) {
	for body, want := range map[string]bool{
		"Admin bypass: the budget is gone.":       true,
		"- granting an admin exception here":      true,
		"```\nadmin bypass\n```":                  false,
		"<!-- admin bypass -->":                   false,
		"ok <!-- admin exception --> fine":        false,
		"> admin bypass\n\nI disagree with that.": false,
		"no claim here":                           false,
	} {
		if got := claimsBypass(body); got != want {
			t.Errorf("claimsBypass(%q) = %v, want %v", body, got, want)
		}
	}
}
