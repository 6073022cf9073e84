package codeowners

import "testing"

func TestLeadOwner(t *testing.T) {
	const file = "* @org/core @catch-owner\nconfigs/ @org/amd @amd-owner @amd-second\ndocs/ @doc-owner\n"
	for _, tt := range []struct {
		name, file string
		paths      []string
		want       string
	}{
		{"specific rule", file, []string{"configs/a.yaml"}, "@amd-owner"},
		{"most paths", file, []string{"configs/a.yaml", "docs/x.md", "docs/y.md"}, "@doc-owner"},
		{"tie goes to the first listed", "* @org/core\nconfigs/ @b-owner\ndocs/ @a-owner\n", []string{"docs/x.md", "configs/a.yaml"}, "@b-owner"},
		{"case-insensitive count", "a/ @Owner\nb/ @owner @other\nc/ @other\n", []string{"a/x", "b/x", "c/x"}, "@Owner"},
		{"catch-all", file, []string{"README.md"}, "@catch-owner"},
		{"first listed", "* @org/core\nconfigs/ @org/amd @first\ndocs/ @second\n", []string{"README.md"}, "@first"},
		{"emails and teams are not individuals", "* @org/core\nconfigs/ owner@example.com\n", []string{"configs/a.yaml"}, ""},
		{"empty path skipped", file, []string{"", "configs/a.yaml"}, "@amd-owner"},
	} {
		if got := Parse(tt.file).LeadOwner(tt.paths); got != tt.want {
			t.Errorf("%s: LeadOwner(%q) = %q, want %q", tt.name, tt.paths, got, tt.want)
		}
	}
}
