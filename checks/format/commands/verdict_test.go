package commands

import (
	"strings"
	"testing"
)

func TestParseVerdictCommand(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Verdict
		err  Error
	}{
		{"recheck", "/verdict recheck", Verdict{Action: ActionRecheck}, OK},
		{"recheck with spaces", "  /verdict   recheck  ", Verdict{Action: ActionRecheck}, OK},
		{"recheck CRLF in prose", "please\r\n/verdict recheck\r\nthanks", Verdict{Action: ActionRecheck}, OK},
		{"bypass", "/verdict bypass 14 1a2b3c4 tight GPU budget",
			Verdict{Action: ActionBypass, Check: 14, SHA: "1a2b3c4", Reason: "tight GPU budget"}, OK},
		{"bypass full sha upper case", "/verdict bypass 4 " + strings.Repeat("AB", 20) + " reason",
			Verdict{Action: ActionBypass, Check: 4, SHA: strings.Repeat("ab", 20), Reason: "reason"}, OK},
		{"bypass CRLF trims reason", "/verdict bypass 0 abcdef0 owner is away \r\n",
			Verdict{Action: ActionBypass, Check: 0, SHA: "abcdef0", Reason: "owner is away"}, OK},
		{"bypass keeps inner spacing", "/verdict bypass 2 abcdef0 a  b\tc",
			Verdict{Action: ActionBypass, Check: 2, SHA: "abcdef0", Reason: "a  b\tc"}, OK},
		{"last valid wins", "/verdict bypass 1 abcdef0 x\n/verdict recheck", Verdict{Action: ActionRecheck}, OK},
		{"malformed later line ignored", "/verdict recheck\n/verdict frobnicate", Verdict{Action: ActionRecheck}, OK},

		{"bare verdict", "/verdict", Verdict{}, Malformed},
		{"unknown sub-command", "/verdict x", Verdict{}, Malformed},
		{"sub-command case", "/verdict Recheck", Verdict{}, Malformed},
		{"recheck with sign-off URL", "/verdict recheck https://github.com/o/r/pull/1#issuecomment-2",
			Verdict{Action: ActionRecheck, Target: "https://github.com/o/r/pull/1#issuecomment-2"}, OK},
		{"recheck two arguments", "/verdict recheck https://x now", Verdict{}, Malformed},
		{"recheck trailing word", "/verdict recheck now", Verdict{}, Malformed},
		{"bypass no reason", "/verdict bypass 14 1a2b3c4", Verdict{}, Malformed},
		{"bypass reason of spaces", "/verdict bypass 14 1a2b3c4    ", Verdict{}, Malformed},
		{"bypass short sha", "/verdict bypass 14 1a2b3c reason", Verdict{}, Malformed},
		{"bypass long sha", "/verdict bypass 14 " + strings.Repeat("a", 41) + " reason", Verdict{}, Malformed},
		{"bypass non-hex sha", "/verdict bypass 14 1a2b3cg reason", Verdict{}, Malformed},
		{"bypass non-numeric check", "/verdict bypass fourteen 1a2b3c4 reason", Verdict{}, Malformed},
		{"bypass unicode digit check", "/verdict bypass １4 1a2b3c4 reason", Verdict{}, Malformed},
		{"bypass huge check", "/verdict bypass 1234 1a2b3c4 reason", Verdict{}, Malformed},
		{"bypass args on next line", "/verdict bypass\n14 1a2b3c4 reason", Verdict{}, Malformed},

		{"empty", "", Verdict{}, NoCommand},
		{"prose", "please /verdict recheck", Verdict{}, NoCommand},
		{"quoted", "> /verdict recheck", Verdict{}, NoCommand},
		{"glued", "/verdictrecheck", Verdict{}, NoCommand},
		{"reuse command is not a verdict command", "/use 1", Verdict{}, NoCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVerdict(tt.body)
			if err != tt.err || got != tt.want {
				t.Fatalf("ParseVerdict(%q) = %+v, %v; want %+v, %v", tt.body, got, err, tt.want, tt.err)
			}
		})
	}
}

func FuzzParseVerdictCommand(f *testing.F) {
	for _, s := range []string{"/verdict recheck", "/verdict bypass 14 1a2b3c4 why", "/verdict", "/verdict x", "> /verdict recheck", "/verdict bypass 1 abcdefg r\r\n",
		"```\n/verdict recheck\n```", "<!-- /verdict recheck -->", "> x\n/verdict recheck", "/verdict recheck <!-- c -->"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, err := ParseVerdict(body)
		if err != OK {
			if cmd != (Verdict{}) {
				t.Fatalf("error %v with command %+v", err, cmd)
			}
			return
		}
		switch cmd.Action {
		case ActionRecheck:
			if cmd.Check != 0 || cmd.SHA != "" || cmd.Reason != "" || strings.ContainsAny(cmd.Target, " \t\r\n\f\v") ||
				cmd.Target != "" && !strings.HasPrefix(cmd.Target, "https://") {
				t.Fatalf("recheck with arguments: %+v", cmd)
			}
		case ActionBypass:
			if cmd.Check < 0 || cmd.Check > 999 || !shaPrefixRE.MatchString(cmd.SHA) || cmd.SHA != strings.ToLower(cmd.SHA) {
				t.Fatalf("bad bypass %+v", cmd)
			}
			if cmd.Reason == "" || strings.Contains(cmd.Reason, "\n") || strings.Trim(cmd.Reason, " \t\f\r\v") != cmd.Reason {
				t.Fatalf("bad reason %q", cmd.Reason)
			}
		default:
			t.Fatalf("unknown action %v", cmd.Action)
		}
		again, err2 := ParseVerdict(cmd.String())
		if err2 != OK || again != cmd {
			t.Fatalf("round trip %q: %+v, %v; want %+v", cmd.String(), again, err2, cmd)
		}
	})
}
