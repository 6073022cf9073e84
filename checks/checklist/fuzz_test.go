package checklist

import (
	"strings"
	"testing"
)

// FuzzRefsIn: the links read from a PR description (text the PR's author
// writes) never panic, name only positive numbers, and come at most once.
func FuzzRefsIn(f *testing.F) {
	f.Add("see #12 and o/r#3, https://github.com/o/r/pull/4")
	f.Add("#0 #-1 (#7) x#8 https://github.com/o/r/pull/")
	f.Add("https://github.com/o/r/issues/5 https://github.com/o/r/issues/ o/r/issues#6")
	f.Fuzz(func(t *testing.T, body string) {
		refs := refsIn(body, "o", "r")
		seen := map[prRef]bool{}
		for _, r := range refs {
			if r.number <= 0 || seen[r] {
				t.Fatalf("ref %v in %q", r, body)
			}
			seen[r] = true
		}
	})
}

// FuzzParseSettings: any configuration file gives settings or problems,
// never a panic, and settings only without problems.
func FuzzParseSettings(f *testing.F) {
	f.Add("preset_settings:\n  items:\n    - item: x\n      verify: files\n      require: ['a/**']\n")
	f.Add("preset_settings: &a [*a]\n")
	f.Add("preset_settings:\n  items: [" + strings.Repeat("{item: x, verify: dco},", 300) + "]\n")
	f.Fuzz(func(t *testing.T, file string) {
		if len(file) > 64<<10 {
			return
		}
		s, probs := parseSettings([]byte(file))
		if len(probs) == 0 && len(s.Items) > maxItems {
			t.Fatalf("%d items accepted", len(s.Items))
		}
	})
}
