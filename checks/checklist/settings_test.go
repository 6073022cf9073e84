package checklist

import (
	"strings"
	"testing"
)

// The options of verify: linked and verify: dco: every value the rows
// know is accepted, anything else is a problem on the item's line, and an
// option is refused where its verifier does not take it.
func TestSettingsStateAndAccept(t *testing.T) {
	for _, tt := range []struct {
		item string
		want string // "" accepts the item
	}{
		{"verify: linked", ""},
		{"verify: linked\n      state: merged", ""},
		{"verify: linked\n      state: completed", ""},
		{"verify: linked\n      state: open", ""},
		{"verify: linked\n      state: closed", ""},
		{"verify: linked\n      state: done", `state must be one of merged, completed, open, closed, not "done"`},
		{"verify: dco", ""},
		{"verify: dco\n      accept: signoff", ""},
		{"verify: dco\n      accept: signature", ""},
		{"verify: dco\n      accept: either", ""},
		{"verify: dco\n      accept: gpg", `accept must be one of signoff, signature, either, not "gpg"`},
		{"verify: dco\n      accept: [signoff]", "cannot unmarshal"},
		{"verify: linked\n      accept: signature", "unknown key (known: item, verify, state, repos)"},
		{"verify: dco\n      state: completed", "unknown key (known: item, verify, accept)"},
	} {
		file := "preset: checklist\npreset_settings:\n  items:\n    - item: X\n      " + tt.item + "\n"
		_, probs := parseSettings([]byte(file))
		switch {
		case tt.want == "" && len(probs) > 0:
			t.Errorf("%q: %v", tt.item, probs[0].Message.EN)
		case tt.want != "" && (len(probs) == 0 || !strings.Contains(probs[0].Message.EN, tt.want)):
			t.Errorf("%q: problems %+v, want one containing %q", tt.item, probs, tt.want)
		case tt.want != "" && probs[0].Line == 0:
			t.Errorf("%q: the problem names no line", tt.item)
		}
	}
}
