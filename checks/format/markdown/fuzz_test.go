package markdown

import "testing"

func FuzzParseMarkdown(f *testing.F) {
	seeds := []string{
		"# Sign-off\n- [x] one\n  - [ ] two\n\n## Additional detail section:\nhttps://x.example\nSigned: @a\n",
		"```\n/verdict recheck\n```\n    /use 3\n<!--\n/reuse-sweep-run\n-->\n> /verdict bypass 3 abcdef1 r\n",
		"a <!-- b\nc --> d [l][r]\n\n[r]: https://e\n",
		"| a | b |\n|---|:-:|\n| [x](y) | www.z.example |\n",
		"Setext\n===\n* [X] x\r\n+ [ ]\r1. [x] ~~s~~\n",
		">>>> - - - 1. [x]\x00\xff\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := Parse(src)
		if err != nil {
			if d != nil {
				t.Fatal("partial result with an error")
			}
			return
		}
		n := len(d.Lines)
		in := func(what string, l int) {
			if l < 1 || l > n {
				t.Fatalf("%s on line %d of %d", what, l, n)
			}
		}
		for _, l := range d.Text {
			in("text", l.Line)
			if l.Raw != d.Lines[l.Line-1] {
				t.Fatalf("line %d: Raw %q is not the source line %q", l.Line, l.Raw, d.Lines[l.Line-1])
			}
			if l.Col < 0 || l.Col+len(l.Text) > len(l.Raw) {
				t.Fatalf("line %d: Col %d and Text %q do not fit Raw %q", l.Line, l.Col, l.Text, l.Raw)
			}
		}
		for _, x := range d.Tasks {
			in("task", x.Line)
		}
		for _, x := range d.Links {
			in("link", x.Line)
		}
		for i, s := range d.Sections {
			in("section", s.Line)
			if s.EndLine < s.Line || s.EndLine > n {
				t.Fatalf("section %d spans %d..%d of %d", i, s.Line, s.EndLine, n)
			}
			d.TextIn(&d.Sections[i])
		}
		for _, c := range d.Code {
			if c.EndLine < c.Line || c.EndLine > n {
				t.Fatalf("code spans %d..%d of %d", c.Line, c.EndLine, n)
			}
		}
	})
}
