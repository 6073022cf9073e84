package markdown

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *Doc {
	t.Helper()
	d, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// textOf lists the text lines as "line:text".
func textOf(d *Doc) []string {
	var out []string
	for _, l := range d.Text {
		out = append(out, itoa(l.Line)+":"+l.Text)
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// A command is only ordinary text: code, HTML and quotes never carry one.
func TestTextLinesExcludeCodeHTMLAndQuotes(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"plain", "/verdict recheck\n", []string{"1:/verdict recheck"}},
		{"indented paragraph", "   /verdict recheck\n", []string{"1:/verdict recheck"}},
		{"fenced", "```\n/verdict recheck\n```\n", nil},
		{"tilde fence", "~~~text\n/use 12\n~~~\n", nil},
		{"unclosed fence", "```\n/verdict recheck\n", nil},
		{"indented code", "text\n\n    /verdict bypass 3 abcdef1 why\n", []string{"1:text"}},
		{"html block comment", "<!--\n/reuse-sweep-run\n-->\n", nil},
		{"html block tag", "<details>\n/verdict recheck\n</details>\n", nil},
		{"inline comment", "a <!-- /verdict recheck --> b\n", []string{"1:a " + strings.Repeat(" ", len("<!-- /verdict recheck -->")) + " b"}},
		{"inline comment over lines", "see <!--\n/verdict recheck\n--> done\n", []string{"1:see", "2:", "3:    done"}},
		{"block quote", "> /verdict recheck\n", nil},
		{"quoted list", "> - /use 3\n", nil},
		{"lazy quote continuation", "> quoted\n/verdict recheck\n", nil},
		{"heading", "## /verdict recheck\n", []string{"1:/verdict recheck"}},
		{"list item", "- /use 12\n", []string{"1:/use 12"}},
		{"table cells", "| a |\n|---|\n| /use 1 |\n", nil},
		{"reference definition", "[x]: https://e.com\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textOf(mustParse(t, tt.src)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
	d := mustParse(t, "# Head\n\n- item\n  - nested\n\npara\n")
	var meta []string
	for _, l := range d.Text {
		meta = append(meta, itoa(l.Heading)+"/"+itoa(l.ListDepth)+" "+l.Raw)
	}
	if want := []string{"1/0 # Head", "0/1 - item", "0/2   - nested", "0/0 para"}; !reflect.DeepEqual(meta, want) {
		t.Errorf("heading/list depth/raw = %q, want %q", meta, want)
	}
}

// Raw[:Col]+Text is the line as a reader sees it.
func TestTextColumn(t *testing.T) {
	src := "## Head ##\n" +
		"- item <!-- c --> x\n" +
		"  - [x] nested\n" +
		"lazy\n" +
		"\n" +
		"para\n" +
		"\tcontinued\n" +
		"> quoted\n"
	var got []string
	for _, l := range mustParse(t, src).Text {
		got = append(got, l.Raw[:l.Col]+"|"+l.Text)
	}
	want := []string{"## |Head", "- |item            x", "  - |[x] nested", "|lazy", "|para", "\t|continued"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("prefix|text = %q, want %q", got, want)
	}
}

func TestTasks(t *testing.T) {
	src := "Intro\n" +
		"- [x] Evals pass, see [run](https://ci/1) and `results.json`\n" +
		"- [ ] Unchecked item\n" +
		"  - [X] Nested **bold** item\n" +
		"    - [x] Deeper\n" +
		"* [x] wrapped over\n" +
		"two lines\n" +
		"1. [x] ordered\n" +
		"- [x]\n" +
		"- [x]no space\n" +
		"> - [x] quoted\n" +
		"```\n- [x] fenced\n```\n" +
		"<!--\n- [x] in a comment\n-->\n" +
		"\n    - [x] indented code\n"
	got := mustParse(t, src).Tasks
	want := []Task{
		{Checked: true, Text: "Evals pass, see [run](https://ci/1) and `results.json`", Body: "Evals pass, see [run](https://ci/1) and `results.json`", Depth: 0, Line: 2},
		{Checked: false, Text: "Unchecked item", Body: "Unchecked item", Depth: 0, Line: 3},
		{Checked: true, Text: "Nested **bold** item", Body: "Nested **bold** item", Depth: 1, Line: 4},
		{Checked: true, Text: "Deeper", Body: "Deeper", Depth: 2, Line: 5},
		{Checked: true, Text: "wrapped over", Body: "wrapped over\ntwo lines", Depth: 0, Line: 6},
		{Checked: true, Text: "ordered", Body: "ordered", Depth: 0, Line: 8},
		{Checked: true, Text: "", Body: "", Depth: 0, Line: 9},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tasks:\n got %+v\nwant %+v", got, want)
	}
}

func TestSections(t *testing.T) {
	src := "# Sign-off\n" +
		"intro\n" +
		"## Checklist\n" +
		"- [x] a\n" +
		"### Detail\n" +
		"deep\n" +
		"## Additional detail section:\n" +
		"Draft stored BF16, served BF16.\n" +
		"https://hf.co/x\n" +
		"> # quoted heading\n" +
		"Setext title\n" +
		"------------\n" +
		"last\n"
	d := mustParse(t, src)
	type row struct {
		heading          string
		level, line, end int
		body             string
	}
	var got []row
	for _, s := range d.Sections {
		got = append(got, row{s.Heading, s.Level, s.Line, s.EndLine, s.Body})
	}
	want := []row{
		{"Sign-off", 1, 1, 13, strings.Join(strings.Split(src, "\n")[1:13], "\n")},
		{"Checklist", 2, 3, 6, "- [x] a\n### Detail\ndeep"},
		{"Detail", 3, 5, 6, "deep"},
		{"Additional detail section:", 2, 7, 10, "Draft stored BF16, served BF16.\nhttps://hf.co/x\n> # quoted heading"},
		{"Setext title", 2, 11, 13, "last"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sections:\n got %+v\nwant %+v", got, want)
	}
	s := d.Section("additional detail section")
	if s == nil || s.Line != 7 {
		t.Fatalf("Section(additional detail section) = %+v", s)
	}
	var text []string
	for _, l := range d.TextIn(s) {
		text = append(text, l.Text)
	}
	if want := []string{"Draft stored BF16, served BF16.", "https://hf.co/x"}; !reflect.DeepEqual(text, want) {
		t.Errorf("TextIn = %q, want %q", text, want)
	}
	if ls := d.LinksIn(s); len(ls) != 1 || ls[0].URL != "https://hf.co/x" {
		t.Errorf("LinksIn = %+v", ls)
	}
}

func TestLinks(t *testing.T) {
	src := "See [the run](https://github.com/o/r/actions/runs/1) and ![img](https://i.example/p.png).\n" +
		"Ref [recipe][r] and <https://docs.example/x> and https://bare.example/y, www.w.example\n" +
		"`https://in.code/span` and\n" +
		"> quoted https://q.example/z\n" +
		"```\nhttps://fenced.example\n```\n" +
		"<!-- https://hidden.example -->\n" +
		"\n[r]: https://cookbook.example/recipe\n"
	var got []string
	for _, l := range mustParse(t, src).Links {
		q := ""
		if l.Quoted {
			q = " quoted"
		}
		if l.Image {
			q += " image"
		}
		got = append(got, itoa(l.Line)+" "+l.Kind.String()+" "+l.URL+" ["+l.Text+"]"+q)
	}
	want := []string{
		"1 inline https://github.com/o/r/actions/runs/1 [the run]",
		"1 inline https://i.example/p.png [img] image",
		"2 reference https://cookbook.example/recipe [recipe]",
		"2 autolink https://docs.example/x [https://docs.example/x]",
		"2 bare https://bare.example/y [https://bare.example/y]",
		"2 bare http://www.w.example [www.w.example]",
		"4 bare https://q.example/z [https://q.example/z] quoted",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %q\nwant %q", got, want)
	}
}

// The checklist template lives in a fenced block under a heading; its items
// are read by parsing the block's body.
func TestCodeBlocks(t *testing.T) {
	src := "## Template\n" +
		"Copy this:\n" +
		"````markdown\n" +
		"- [ ] first\n" +
		"  - [ ] nested\n" +
		"````\n" +
		"- item\n\n" +
		"      indented in a list\n" +
		"> ```\n> quoted\n> ```\n" +
		"```unclosed\n" +
		"tail\n"
	d := mustParse(t, src)
	if len(d.Code) != 4 {
		t.Fatalf("%d code blocks: %+v", len(d.Code), d.Code)
	}
	tpl := d.CodeIn(d.Section("template"))
	if len(tpl) != 4 || !tpl[0].Fenced || tpl[0].Info != "markdown" || tpl[0].Line != 3 || tpl[0].EndLine != 6 {
		t.Fatalf("template block = %+v", tpl)
	}
	items := mustParse(t, tpl[0].Body).Tasks
	if len(items) != 2 || items[1].Depth != 1 || items[0].Text != "first" {
		t.Errorf("template items = %+v", items)
	}
	if c := d.Code[1]; c.Fenced || c.ListDepth != 1 || c.Body != "indented in a list\n" {
		t.Errorf("indented block = %+v", c)
	}
	if c := d.Code[2]; !c.Quoted || c.Body != "quoted\n" {
		t.Errorf("quoted block = %+v", c)
	}
	if c := d.Code[3]; c.Info != "unclosed" || c.Line != 13 || c.EndLine != 14 || c.Body != "tail\n" {
		t.Errorf("unclosed block = %+v", c)
	}
}

func TestLineEndingsAndBytes(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"crlf", "a\r\n\r\n- [x] b\r\n", []string{"1:a", "3:[x] b"}},
		{"lone cr", "a\r\rb\rc", []string{"1:a", "3:b", "4:c"}},
		{"nul", "a\x00b\n", []string{"1:a\uFFFDb"}},
		{"invalid utf-8", "a\xffb\n\xc3", []string{"1:a\uFFFDb", "2:\uFFFD"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textOf(mustParse(t, tt.src)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
	if d := mustParse(t, "- [x] one\r\n- [ ] two\r"); len(d.Tasks) != 2 || d.Tasks[1].Line != 2 || d.Tasks[1].Text != "two" {
		t.Errorf("tasks with CRLF = %+v", d.Tasks)
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		reason    string
	}{
		{"deep quotes", strings.Repeat(">", 65) + " x\n", 1, "nested 65 deep"},
		{"deep list line", "ok\n" + strings.Repeat("- ", 70) + "x\n", 2, "nested 70 deep"},
		{"deep indented list", deepList(80), 65, "nested 65 deep"},
		{"big table", "|" + strings.Repeat("a|", 2000) + "\n|" + strings.Repeat("-|", 2000) + "\n" + strings.Repeat("|x\n", 60), 2, "table of 2000 columns"},
		{"too large", strings.Repeat("a", MaxBytes+1), 0, "larger than 1 MiB"},
		{"bracket soup", "ok\n\n" + strings.Repeat("[", 15000) + "\n" + strings.Repeat("[", 6000), 3, "more than 20000 ["},
		{"bracket flood", strings.Repeat(strings.Repeat("[", 10000)+"\n\n", 11), 0, "110000 [ in the text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.src)
			var e *Error
			if !errors.As(err, &e) || d != nil {
				t.Fatalf("Parse = %v, %v; want an *Error", d, err)
			}
			if e.Line != tt.line || !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("error %q at line %d, want line %d containing %q", e.Reason, e.Line, tt.line, tt.reason)
			}
		})
	}
	// Within the bounds nesting is read normally.
	if d := mustParse(t, strings.Repeat(">", 10)+" x\n"+deepList(20)); len(d.Text) != 20 || d.Text[19].ListDepth != 20 {
		t.Errorf("nesting within bounds: %d lines", len(d.Text))
	}
	if d := mustParse(t, strings.Repeat("[a](b) ", 15000)+"\n\n"+strings.Repeat("[c](d) ", 15000)); len(d.Links) != 30000 {
		t.Errorf("links within bounds: %d", len(d.Links))
	}
}

// deepList nests n list items, each indented under the one before.
func deepList(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	return b.String()
}
