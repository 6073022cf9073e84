package checklist

import (
	"strings"
	"testing"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		g, p string
		want bool
	}{
		{"src/**", "src/a/b.go", true},
		{"src/**", "src", true},
		{"src/**", "srcx/a.go", false},
		{"**/*_test.go", "a/b/c_test.go", true},
		{"*_test.go", "a/b/c_test.go", true},
		{"*_test.go", "c_test.go", true},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/x/a.md", false},
		{"CHANGELOG.md", "CHANGELOG.md", true},
		{"CHANGELOG.md", "sub/CHANGELOG.md", true},
		{"/CHANGELOG.md", "CHANGELOG.md", false},
		{"changelog.d/*", "changelog.d/123.feature", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/x/y/z/c", false},
	}
	for _, tt := range tests {
		if tt.g[0] == '/' {
			if validGlob(tt.g) {
				t.Errorf("%q accepted", tt.g)
			}
			continue
		}
		if got := matchGlob(tt.g, tt.p); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v", tt.g, tt.p, got)
		}
	}
	// Many ** against a deep path stay cheap (a table, not backtracking).
	deep := strings.Repeat("d/", 400) + "x"
	if matchGlob(strings.Repeat("**/d/", 30)+"y", deep) {
		t.Error("matched")
	}
}

func FuzzMatchGlob(f *testing.F) {
	f.Add("src/**/*.go", "src/a/b.go")
	f.Add("[", "x")
	f.Fuzz(func(t *testing.T, g, p string) {
		if len(g) > 512 || len(p) > 4096 {
			return
		}
		if validGlob(g) {
			matchGlob(g, p)
		}
	})
}
