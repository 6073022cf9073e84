package signoff

import (
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

// itemsOf lists the items as "[x] text" / "[ ] text", nested ones indented
// by their depth.
func itemsOf(s checks.SignOff) []string {
	var out []string
	for _, it := range s.Items {
		box := "[ ] "
		if it.Checked {
			box = "[x] "
		}
		out = append(out, strings.Repeat("  ", it.Depth)+box+it.Text)
	}
	return out
}

// Ticks come only from real task-list items.
func TestTicksFromTaskItemsOnly(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"bullet", "- [x] a", []string{"[x] a"}},
		{"star and plus", "* [X] a\n+ [ ] b", []string{"[x] a", "[ ] b"}},
		{"ordered", "1. [x] a\n2) [ ] b", []string{"[x] a", "[ ] b"}},
		{"no space after the box", "- [x]a\n- [x]\tb", []string{"[x] b"}},
		{"no space after the marker", "-[x] a", nil},
		{"bad mark", "- [y] a\n- [xx] b", nil},
		{"empty item", "- [x]\n- [x]   ", nil},
		{"fence", "```\n- [x] a\n```", nil},
		{"tilde fence", "~~~md\n- [x] a\n~~~", nil},
		{"unclosed fence", "- [ ] real\n```\n- [x] a", []string{"[ ] real"}},
		{"indented code", "text\n\n    - [x] a", nil},
		{"html block", "<details>\n- [x] a\n</details>", nil},
		{"html comment block", "<!--\n- [x] a\n-->", nil},
		// A list item interrupts the paragraph, so "<!--" never opens a
		// comment there: GitHub shows it as text and the item as an item.
		{"item after an unclosed inline comment", "text <!--\n- [x] a\n--> more", []string{"[x] a"}},
		{"unclosed comment in an item", "- [ ] real <!--\n  - [x] a\n  -->", []string{"[ ] real <!--", "  [x] a"}},
		{"html comment block in a list", "- [ ] real\n\n  <!--\n  - [x] a\n  -->", []string{"[ ] real"}},
		{"comment as the item text", "- [x] <!-- Verified that evals pass -->", nil},
		{"comment inside the item text", "- [x] Verified <!-- not --> evals", []string{"[x] Verified evals"}},
		{"block quote", "> - [x] a", nil},
		{"nested quote in a list", "- [ ] real\n  > - [x] a", []string{"[ ] real"}},
		{"lazy quote continuation", "> quoted\n- [x] a", []string{"[x] a"}},
		{"heading", "## [x] a", nil},
		{"paragraph", "[x] a", nil},
		{"table cell", "| - [x] a |\n|---|\n| b |", nil},
		{"nested", "- [x] a\n  - [ ] b\n    - [x] c\n- [x] d", []string{"[x] a", "  [ ] b", "    [x] c", "[x] d"}},
		{"nested under a plain item", "- group\n  - [x] a", []string{"  [x] a"}},
		{"four-space nesting", "- [x] a\n    - [x] b", []string{"[x] a", "  [x] b"}},
		{"crlf", "- [x] a\r\n- [ ] b\r\n", []string{"[x] a", "[ ] b"}},
		{"lone cr", "- [x] a\r- [ ] b\r", []string{"[x] a", "[ ] b"}},
		{"wrapped item keeps its first line", "- [x] first\nsecond", []string{"[x] first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := itemsOf(Parse(tt.body)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("items of %q = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

// The scenario of the issue: a sign-off whose ticked checklist sits in a
// code block and an HTML comment, with an unticked real item.
func TestHiddenTicksDoNotCount(t *testing.T) {
	body := strings.Join([]string{
		"As a PR reviewer and CODEOWNER, I have reviewed this and have:",
		"```",
		"- [x] Verified that this PR passes evals.",
		"- [x] Verified the recipe is merged.",
		"```",
		"<!--",
		"- [x] Verified that this PR passes evals.",
		"-->",
		"- [ ] Verified that this PR passes evals.",
		"- [x] Verified the recipe is merged.",
	}, "\n")
	s := Parse(body)
	if want := []string{"[ ] Verified that this PR passes evals.", "[x] Verified the recipe is merged."}; !reflect.DeepEqual(itemsOf(s), want) {
		t.Fatalf("items = %q, want %q", itemsOf(s), want)
	}
	tpl := items("Verified that this PR passes evals.", "Verified the recipe is merged.")
	m := MatchItems(tpl, s.Items)
	if s.Items[m[0]].Checked {
		t.Error("the evals item matched a ticked copy")
	}
}

func TestDetailSection(t *testing.T) {
	tests := []struct {
		name, body string
		detail     string
		empty      bool
	}{
		{"atx", "### Additional detail section:\nreason", "reason", false},
		{"closing hashes", "### Additional detail section ###\nreason", "reason", false},
		{"no space after the hashes", "##Additional detail section:\nreason", "reason", false},
		{"setext", "Additional detail section:\n---\nreason", "reason", false},
		{"indented heading", "   ## Additional detail section\nreason", "reason", false},
		{"heading in code", "```\n## Additional detail section\nreason\n```", "", true},
		{"heading in a quote", "> ## Additional detail section\n\nreason", "", true},
		{"heading as code", "    ## Additional detail section\n\nreason", "", true},
		{"list markers kept", "## Additional detail section\n- a\n  * b", "- a\n  * b", false},
		{"paragraph break kept", "## Additional detail section\na\n\nb", "a\n\nb", false},
		{"code is not a statement", "## Additional detail section\n```\nexception: new hardware\n```", "", true},
		{"indented code is not", "## Additional detail section\ntext\n\n    exception", "text", false},
		{"html comment is hidden", "## Additional detail section\n<!--\nnew hardware exception\n-->", "", true},
		{"inline comment is hidden", "## Additional detail section\n- insert any additional info here <!-- exception -->", "- insert any additional info here", true},
		{"quote is someone else's", "## Additional detail section\n> exception: new hardware", "", true},
		{"ends at Signed", "## Additional detail section\nreason\nSigned: `x`\nlater", "reason", false},
		{"Signed in code does not end it", "## Additional detail section\nreason\n```\nSigned: x\n```\nmore", "reason\n\nmore", false},
		{"crlf", "## Additional detail section\r\nreason\r\n", "reason", false},
		{"lone cr", "## Additional detail section\rreason\r", "reason", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.body)
			if s.Detail != tt.detail || s.DetailEmpty != tt.empty {
				t.Errorf("detail of %q = %q empty=%v, want %q empty=%v", tt.body, s.Detail, s.DetailEmpty, tt.detail, tt.empty)
			}
		})
	}
	// The statement tests read only the reviewer's visible prose.
	hidden := "- [x] a\n## Additional detail section\n<!-- exception: new hardware -->\n```\nexception: not supported upstream\n```\n> new model architecture\n\nSee above."
	if got := ImageException(Parse(hidden)); got != "" {
		t.Errorf("ImageException read a hidden statement: %q", got)
	}
	if got := ImageException(Parse("## Additional detail section\nException: new hardware.")); got != "Exception" {
		t.Errorf("ImageException = %q", got)
	}
}

func TestLinksFromMarkdown(t *testing.T) {
	body := strings.Join([]string{
		"- [x] evals [run](https://github.com/o/r/actions/runs/1) and <https://auto.example/a>",
		"`https://code.example/span` and ![shot](https://img.example/s.png)",
		"> quoted https://quote.example/q",
		"```",
		"https://fence.example/f",
		"```",
		"<!-- https://comment.example/c -->",
		"mailto:x@y.example and [rel](docs/a.md)",
		"## Additional detail section:",
		"- Recipe: https://github.com/sgl-project/sglang/pull/2, merged.",
		"- Ref [waiver][w] and www.w.example/x.",
		"> https://quote.example/detail",
		"    https://indented.example/i",
		"",
		"[w]: https://github.com/o/r/blob/main/docs/waiver/1.md",
		"Signed: `x`",
		"https://after.example/s",
	}, "\n")
	s := Parse(body)
	want := []string{
		"https://github.com/o/r/actions/runs/1",
		"https://auto.example/a",
		"https://img.example/s.png",
		"https://github.com/sgl-project/sglang/pull/2",
		"https://github.com/o/r/blob/main/docs/waiver/1.md",
		"http://www.w.example/x",
		"https://after.example/s",
	}
	if !reflect.DeepEqual(s.Links, want) {
		t.Errorf("Links =\n %q\nwant\n %q", s.Links, want)
	}
	if want := want[3:6]; !reflect.DeepEqual(s.DetailLinks, want) {
		t.Errorf("DetailLinks = %q, want %q", s.DetailLinks, want)
	}
}

func TestSignedLine(t *testing.T) {
	for body, want := range map[string]string{
		"Signed: `a`":                      "a",
		"- item\nSigned: `a`":              "a", // a lazy continuation line of the item
		"- Signed: `a`":                    "",
		"## Signed: a":                     "",
		"```\nSigned: a\n```":              "",
		"> Signed: a":                      "",
		"<!-- Signed: a -->":               "",
		"Signed: `a`\n```\nSigned: b\n```": "a",
		"Signed: a\nSigned: b":             "b",
		"Signed: <!-- b --> `a`":           "a",
	} {
		if got := Parse(body).Signed; got != want {
			t.Errorf("Signed of %q = %q, want %q", body, got, want)
		}
	}
}

func TestIsCandidate(t *testing.T) {
	const phrase = "As a PR reviewer and CODEOWNER"
	for body, want := range map[string]bool{
		phrase + ", I have reviewed this and have:": true,
		"- " + phrase:                                 true,
		"## " + phrase:                                true,
		"Thanks! " + phrase + " here":                 true,
		"as a pr reviewer and codeowner":              false,
		"```\n" + phrase + "\n```":                    false,
		"    " + phrase:                               false,
		"<!-- " + phrase + " -->":                     false,
		"see <!--\n" + phrase + "\n-->":               false,
		"> " + phrase + ", I have reviewed this":      false,
		"| " + phrase + " |\n|---|":                   false,
		"> " + phrase + "\n\nWhy is evals ticked?":    false,
		"<!-- x -->\n\n" + phrase + ", I have: - [x]": true,
		strings.Repeat(">", 70) + " " + phrase:        true, // unreadable: verified, and rejected with the reason
		"":                                            false,
		// What shows only on hover, or not at all, is not written there.
		"[LGTM](https://x.test \"" + phrase + "\")":                             false,
		"[LGTM](https://x.test/" + strings.ReplaceAll(phrase, " ", "%20") + ")": false,
		"![" + phrase + "](https://x.test/i.png)":                               false,
		"[" + phrase + "](https://x.test), I have reviewed this":                true,
	} {
		if got := IsCandidate(body, phrase); got != want {
			t.Errorf("IsCandidate(%q) = %v, want %v", body, got, want)
		}
	}
	if IsCandidate("anything", "") {
		t.Error("empty phrase makes a candidate")
	}
	if !IsCandidate("line one\nline two", "one\nline") {
		t.Error("a phrase of two lines is not looked for in the body")
	}
}

// A body the reader refuses reads as nothing, and says why.
func TestUnreadableSignOff(t *testing.T) {
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] a https://x.example\n" +
		strings.Repeat(">", 70) + " deep\n## Additional detail section:\nexception\nSigned: `u`"
	s := Parse(body)
	if s.Unreadable == "" || !strings.Contains(s.Unreadable, "nested 70 deep") {
		t.Fatalf("Unreadable = %q", s.Unreadable)
	}
	if s.Body != body || len(s.Items) != 0 || s.Detail != "" || !s.DetailEmpty || s.Links != nil || s.DetailLinks != nil || s.Signed != "" {
		t.Errorf("unreadable sign-off read as %+v", s)
	}
	why, ok := Unreadable(s)
	if !ok || !strings.Contains(why.EN, "could not be read as Markdown") || !strings.Contains(why.EN, "nested 70 deep") || why.ZH == why.EN {
		t.Errorf("Unreadable = %+v, %v", why, ok)
	}
	if _, ok := Unreadable(Parse("- [x] a")); ok {
		t.Error("a readable sign-off is reported unreadable")
	}
	if ImageException(s) != "" || StatesALSource(s) || ClaimsSyntheticException(s) {
		t.Error("a statement read from an unreadable sign-off")
	}
	if _, _, ok := DraftPrecision(s); ok {
		t.Error("draft precision read from an unreadable sign-off")
	}
}
