package render

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

func TestWithdrawn(t *testing.T) {
	pass, err := Render(verdictFor(baseRows()))
	if err != nil {
		t.Fatal(err)
	}
	w := Withdrawal{Key: pass.Key(), HeadSHA: pass.HeadSHA(), Author: "owner-a", By: "maintainer-b", How: "deleted"}
	for _, tt := range []struct {
		name     string
		w        Withdrawal
		previous string
		want     []string
	}{
		{"deleted, with the record", w, pass.Markdown(), []string{
			"## ➖ **Sign-off withdrawn** ➖", "was deleted by @maintainer-b", "> " + HeaderPass,
			"## ➖ **签核已撤回** ➖", "已被 @maintainer-b 删除", "> ## ✅✅✅ **结论：通过** ✅✅✅",
			"<summary>The withdrawn verdict</summary>", "<summary>已撤回的结论</summary>"}},
		{"dismissed, no earlier verdict", Withdrawal{Key: pass.Key(), HeadSHA: pass.HeadSHA(), Author: "owner-a", How: "dismissed"}, "",
			[]string{"`" + pass.Key() + "` by @owner-a was dismissed.", "已被取消"}},
	} {
		got, err := Withdrawn(tt.w, tt.previous)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !strings.HasPrefix(got, Marker(tt.w.Key)+"\n") || !strings.Contains(EnglishPart(got), "Assessed commit: `"+tt.w.HeadSHA+"`.") {
			t.Errorf("%s: not a keyed verdict comment with its footer:\n%s", tt.name, got)
		}
		for _, s := range tt.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: lacks %q:\n%s", tt.name, s, got)
			}
		}
		// No line of the record reads as a verdict: it is quoted.
		for _, l := range splitLines(got) {
			if l == HeaderPass || l == HeaderWarn || l == HeaderRejected || rowRE.MatchString(l) {
				t.Errorf("%s: line %q reads as a verdict", tt.name, l)
			}
		}
		for _, l := range splitLines(strings.TrimPrefix(got, EnglishPart(got))) {
			if words := checkstest.EnglishInChinese(l); len(words) > 0 {
				t.Errorf("%s: untranslated %q in %q", tt.name, words, l)
			}
		}
		if BodyState(got) != checks.VerdictRejected {
			t.Errorf("%s: a withdrawn verdict reads as %s", tt.name, BodyState(got))
		}
		again, err := Withdrawn(tt.w, got)
		if err != nil || again != got {
			t.Errorf("%s: withdrawing again changed the body (%v)", tt.name, err)
		}
	}
	for _, bad := range []Withdrawal{{Key: "x", HeadSHA: testSHA, How: "deleted"}, {Key: pass.Key(), HeadSHA: testSHA, How: "edited"},
		{Key: pass.Key(), HeadSHA: testSHA, How: "deleted", By: "a b"}} {
		if _, err := Withdrawn(bad, ""); err == nil {
			t.Errorf("%+v rendered", bad)
		}
	}
}

// FuzzWithdrawn: whatever the earlier comment held, the withdrawn verdict is
// keyed, announces no verdict and quotes every line of the record.
func FuzzWithdrawn(f *testing.F) {
	pass, err := Render(verdictFor(baseRows()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pass.Markdown())
	f.Add(Marker(pass.Key()) + "\n" + HeaderPass + "\n\n<details>\n<summary>中文</summary>\n")
	f.Add("")
	f.Add(Marker(pass.Key()) + "\nx\u2028" + HeaderPass + "\r" + HeaderRejected + "\n")
	f.Fuzz(func(t *testing.T, previous string) {
		w := Withdrawal{Key: pass.Key(), HeadSHA: pass.HeadSHA(), Author: "owner-a", How: "deleted"}
		got, err := Withdrawn(w, previous)
		if err != nil {
			t.Fatal(err)
		}
		if got == previous {
			return // already withdrawn
		}
		if !strings.HasPrefix(got, Marker(w.Key)+"\n## ➖ **Sign-off withdrawn** ➖\n") {
			t.Fatalf("not a withdrawn verdict:\n%s", got)
		}
		for _, l := range splitLines(got) {
			if l == HeaderPass || l == HeaderWarn || l == HeaderRejected || rowRE.MatchString(l) {
				t.Fatalf("line %q reads as a verdict", l)
			}
		}
	})
}
