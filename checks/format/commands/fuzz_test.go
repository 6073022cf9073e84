package commands

import (
	"strings"
	"testing"
)

// FuzzHiddenCommands: whatever a body holds, inside an HTML comment or a
// fenced code block it carries no command, and the command lines of the
// body itself are lines of it.
func FuzzHiddenCommands(f *testing.F) {
	for _, s := range []string{
		"/use 1", "/verdict recheck", "/verdict bypass 14 abcdef0 r", "/pareto-bypass abcdef0 r",
		"x\n/reuse-sweep-run 5\r\n", "> /use 1\n/use 2", "- a\n  /use 3", "```\n/use 4\n```\n/use 5",
		"<!-- c --> /verdict recheck", "a <!--\n/verdict recheck\n--> b", "\t/use 6", "/use 7\r/use 8",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		norm := strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
		for _, l := range commandLines(body) {
			if strings.ContainsAny(l, "\r\n") {
				t.Fatalf("command line %q spans lines", l)
			}
			if !strings.Contains(strings.ToValidUTF8(strings.ReplaceAll(norm, "\x00", "\uFFFD"), "\uFFFD"), l) {
				t.Fatalf("command line %q is not a line of the body", l)
			}
		}
		comment := "<!--\n" + strings.ReplaceAll(norm, "-->", "") + "\n-->"
		fence := strings.Repeat("`", longestRun(norm, '`')+3)
		fenced := fence + "\n" + norm + "\n" + fence
		for _, hidden := range []string{comment, fenced} {
			if _, err := ParseReuse(hidden); err != NoCommand || HasReuseLine(hidden) {
				t.Fatalf("reuse command read from %q: %v", hidden, err)
			}
			if _, err := ParseVerdict(hidden); err != NoCommand {
				t.Fatalf("/verdict command read from %q: %v", hidden, err)
			}
			if _, _, ok := bypassCommand(hidden, 14); ok {
				t.Fatalf("bypass read from %q", hidden)
			}
			if claimsBypass(hidden) {
				t.Fatalf("bypass claim read from %q", hidden)
			}
		}
	})
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
