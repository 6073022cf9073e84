package markdown

import (
	"errors"
	"strings"
	"testing"
)

// hostile builds texts of about MaxBytes/div bytes made to make a Markdown
// parser recurse or go quadratic. Each must end in a Doc or an *Error;
// BenchmarkParseHostile measures the full-size ones.
func hostile(div int) map[string]string {
	n := func(k int) int { return k / div }
	return map[string]string{
		"deep quotes":           strings.Repeat(">", n(1<<20)-4) + " x\n",
		"deep list markers":     strings.Repeat("- ", n(500000)) + "x\n",
		"deep indented list":    deepList(1000),
		"lists at the bound":    strings.Repeat(deepList(60), n(270)),
		"quotes at the bound":   strings.Repeat(strings.Repeat(">", 60)+" x\n", n(16000)),
		"nested emphasis":       strings.Repeat("*", n(500000)) + "x" + strings.Repeat("*", n(500000)),
		"open brackets":         strings.Repeat("[", n(1<<20)-1),
		"brackets at the bound": strings.Repeat(strings.Repeat("[", 19999)+"\n\n", 5),
		"nested links":          strings.Repeat("[", n(200000)) + "x" + strings.Repeat("](u)", n(200000)),
		"bare urls":             strings.Repeat("https://a.example/x ", n(50000)),
		"inline html":           strings.Repeat("<!-- a --> ", n(90000)),
		"unclosed comment":      "<!--" + strings.Repeat("x\n", n(500000)),
		"table at the bound":    "|" + strings.Repeat("a|", 300) + "\n|" + strings.Repeat("-|", 300) + "\n" + strings.Repeat("|x\n", n(320)),
		"delimiter rows":        strings.Repeat("|-|\n", n(260000)),
		"wide table":            "|" + strings.Repeat("a|", n(200000)) + "\n|" + strings.Repeat("-|", n(200000)) + "\n" + strings.Repeat("|x\n", 10),
		"many tasks":            strings.Repeat("- [x] item `c` [l](https://u)\n", n(34000)),
		"backticks":             strings.Repeat("`a ", n(340000)),
		"crlf soup":             strings.Repeat("\r\n\r>\x00\xff- [", n(100000)),
	}
}

func TestHostileInputs(t *testing.T) {
	for name, src := range hostile(16) {
		t.Run(name, func(t *testing.T) {
			d, err := Parse(src)
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if (d == nil) == (err == nil) {
				t.Fatalf("Parse = %v, %v", d, err)
			}
		})
	}
}

func BenchmarkParseHostile(b *testing.B) {
	for name, src := range hostile(1) {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse(src)
			}
		})
	}
}

// BenchmarkParseSignOff reads a sign-off of the usual shape: a checklist
// with nested items, links, a quoted reply, a template code block and the
// additional detail section.
func BenchmarkParseSignOff(b *testing.B) {
	var s strings.Builder
	s.WriteString("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n\n")
	for i := 0; i < 16; i++ {
		s.WriteString("- [x] Verified that check " + itoa(i) + " holds, see [run](https://github.com/o/r/actions/runs/" + itoa(i) + ") and `results.json`\n")
		s.WriteString("  - [ ] nested detail " + itoa(i) + "\n")
	}
	s.WriteString("\n> earlier reply\n> - [x] quoted\n\n```\n/verdict recheck\n```\n\n## Additional detail section:\nDraft stored BF16, served BF16: https://hf.co/x/y\n\nSigned: `@owner`\n")
	src := s.String()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
