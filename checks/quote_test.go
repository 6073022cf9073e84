package checks

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"image `lmsysorg/sglang:v1` 🚀", "image 'lmsysorg/sglang:v1'"},
		{"a\nb\r\nc", "a b c"},
		{"<!-- codeowner-signoff-verify --> **x** <b>y</b>", "x y"},
		{`say "PASS"`, "say 'PASS'"},
		{strings.Repeat("é", 100), strings.Repeat("é", 10) + "…"},
	}
	for _, tc := range tests {
		max := 80
		if strings.HasPrefix(tc.in, "é") {
			max = 10
		}
		if got := Quote(tc.in, max); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNoMentions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"@alice", "@\u2060alice"},
		{"branch @org/team here", "branch @\u2060org/team here"},
		{"mail a@b.c", "mail a@\u2060b.c"},
		{"@ alone and @@x", "@ alone and @@\u2060x"},
		{"no handle", "no handle"},
		{"@\u2060already", "@\u2060already"},
	} {
		if got := NoMentions(tc.in); got != tc.want {
			t.Errorf("NoMentions(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Quote("see @org/team", 80); strings.Contains(got, "@o") {
		t.Errorf("Quote keeps a mention: %q", got)
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"yaml: line 3: did not find expected key", "`yaml: line 3: did not find expected key`"},
		{"a `b` c", "``a `b` c``"},
		{"`x`", "`` `x` ``"},
		{"two\nlines", "`two lines`"},
		{"", ""},
	} {
		if got := Code(tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
