package details

import (
	"strings"
	"testing"
)

func TestMarkdownReasons(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"runs `--flag` on **every** point", "runs <code>--flag</code> on <strong>every</strong> point"},
		{"see [the run](https://github.com/o/r/actions/runs/1)", `see <a href="https://github.com/o/r/actions/runs/1">the run</a>`},
		{"[click](javascript:alert(1))", `<a href="">click</a>`},
		{"3 frontier points <script>alert(1)</script>", "3 frontier points &lt;script&gt;alert(1)&lt;/script&gt;"},
		{"<div onclick=x>block</div>", "&lt;div onclick=x&gt;block&lt;/div&gt;"},
		{"a < b & c", "a &lt; b &amp; c"},
		{"中文 `代码`", "中文 <code>代码</code>"},
		{"![tracker](https://evil.example/p.png) seen", "tracker seen"},
	} {
		got := string(markdown(tc.in))
		if got != tc.want {
			t.Errorf("markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := markdown(strings.Repeat("x", 3*maxReasonBytes)); len(got) > maxReasonBytes+16 {
		t.Errorf("a long reason renders %d bytes", len(got))
	}
}

func FuzzMarkdownReasons(f *testing.F) {
	for _, s := range []string{"`x`", "<a href=x>", "[a](javascript:x)", "**", "<!-- c -->", "<script>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := strings.ToLower(string(markdown(s)))
		for _, bad := range []string{"<script", "<div", "<iframe", "<img", "href=\"javascript:", "onerror=", "<a href=\"data:"} {
			if strings.Contains(out, bad) {
				t.Fatalf("markdown(%q) = %q holds %s", s, out, bad)
			}
		}
	})
}
