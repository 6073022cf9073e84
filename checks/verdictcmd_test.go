package checks

import (
	"strings"
	"testing"
)

func TestParseVerdictCommand(t *testing.T) {
	tests := []struct {
		name string
		body string
		want VerdictCommand
		err  CommandError
	}{
		{"recheck", "/verdict recheck", VerdictCommand{Action: VerdictRecheck}, CommandOK},
		{"recheck with spaces", "  /verdict   recheck  ", VerdictCommand{Action: VerdictRecheck}, CommandOK},
		{"recheck CRLF in prose", "please\r\n/verdict recheck\r\nthanks", VerdictCommand{Action: VerdictRecheck}, CommandOK},
		{"bypass", "/verdict bypass 14 1a2b3c4 tight GPU budget",
			VerdictCommand{Action: VerdictBypass, Check: 14, SHA: "1a2b3c4", Reason: "tight GPU budget"}, CommandOK},
		{"bypass full sha upper case", "/verdict bypass 4 " + strings.Repeat("AB", 20) + " reason",
			VerdictCommand{Action: VerdictBypass, Check: 4, SHA: strings.Repeat("ab", 20), Reason: "reason"}, CommandOK},
		{"bypass CRLF trims reason", "/verdict bypass 0 abcdef0 owner is away \r\n",
			VerdictCommand{Action: VerdictBypass, Check: 0, SHA: "abcdef0", Reason: "owner is away"}, CommandOK},
		{"bypass keeps inner spacing", "/verdict bypass 2 abcdef0 a  b\tc",
			VerdictCommand{Action: VerdictBypass, Check: 2, SHA: "abcdef0", Reason: "a  b\tc"}, CommandOK},
		{"last valid wins", "/verdict bypass 1 abcdef0 x\n/verdict recheck", VerdictCommand{Action: VerdictRecheck}, CommandOK},
		{"malformed later line ignored", "/verdict recheck\n/verdict frobnicate", VerdictCommand{Action: VerdictRecheck}, CommandOK},

		{"bare verdict", "/verdict", VerdictCommand{}, CommandUsage},
		{"unknown sub-command", "/verdict x", VerdictCommand{}, CommandUsage},
		{"sub-command case", "/verdict Recheck", VerdictCommand{}, CommandUsage},
		{"recheck with sign-off URL", "/verdict recheck https://github.com/o/r/pull/1#issuecomment-2",
			VerdictCommand{Action: VerdictRecheck, Target: "https://github.com/o/r/pull/1#issuecomment-2"}, CommandOK},
		{"recheck two arguments", "/verdict recheck https://x now", VerdictCommand{}, CommandUsage},
		{"recheck trailing word", "/verdict recheck now", VerdictCommand{}, CommandUsage},
		{"bypass no reason", "/verdict bypass 14 1a2b3c4", VerdictCommand{}, CommandUsage},
		{"bypass reason of spaces", "/verdict bypass 14 1a2b3c4    ", VerdictCommand{}, CommandUsage},
		{"bypass short sha", "/verdict bypass 14 1a2b3c reason", VerdictCommand{}, CommandUsage},
		{"bypass long sha", "/verdict bypass 14 " + strings.Repeat("a", 41) + " reason", VerdictCommand{}, CommandUsage},
		{"bypass non-hex sha", "/verdict bypass 14 1a2b3cg reason", VerdictCommand{}, CommandUsage},
		{"bypass non-numeric check", "/verdict bypass fourteen 1a2b3c4 reason", VerdictCommand{}, CommandUsage},
		{"bypass unicode digit check", "/verdict bypass １4 1a2b3c4 reason", VerdictCommand{}, CommandUsage},
		{"bypass huge check", "/verdict bypass 1234 1a2b3c4 reason", VerdictCommand{}, CommandUsage},
		{"bypass args on next line", "/verdict bypass\n14 1a2b3c4 reason", VerdictCommand{}, CommandUsage},

		{"empty", "", VerdictCommand{}, NoCommand},
		{"prose", "please /verdict recheck", VerdictCommand{}, NoCommand},
		{"quoted", "> /verdict recheck", VerdictCommand{}, NoCommand},
		{"glued", "/verdictrecheck", VerdictCommand{}, NoCommand},
		{"reuse command is not a verdict command", "/use 1", VerdictCommand{}, NoCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVerdictCommand(tt.body)
			if err != tt.err || got != tt.want {
				t.Fatalf("ParseVerdictCommand(%q) = %+v, %v; want %+v, %v", tt.body, got, err, tt.want, tt.err)
			}
		})
	}
}

func FuzzParseVerdictCommand(f *testing.F) {
	for _, s := range []string{"/verdict recheck", "/verdict bypass 14 1a2b3c4 why", "/verdict", "/verdict x", "> /verdict recheck", "/verdict bypass 1 abcdefg r\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, err := ParseVerdictCommand(body)
		if err != CommandOK {
			if cmd != (VerdictCommand{}) {
				t.Fatalf("error %v with command %+v", err, cmd)
			}
			return
		}
		switch cmd.Action {
		case VerdictRecheck:
			if cmd.Check != 0 || cmd.SHA != "" || cmd.Reason != "" || strings.ContainsAny(cmd.Target, " \t\r\n\f\v") ||
				cmd.Target != "" && !strings.HasPrefix(cmd.Target, "https://") {
				t.Fatalf("recheck with arguments: %+v", cmd)
			}
		case VerdictBypass:
			if cmd.Check < 0 || cmd.Check > 999 || !shaPrefixRE.MatchString(cmd.SHA) || cmd.SHA != strings.ToLower(cmd.SHA) {
				t.Fatalf("bad bypass %+v", cmd)
			}
			if cmd.Reason == "" || strings.Contains(cmd.Reason, "\n") || strings.Trim(cmd.Reason, " \t\f\r\v") != cmd.Reason {
				t.Fatalf("bad reason %q", cmd.Reason)
			}
		default:
			t.Fatalf("unknown action %v", cmd.Action)
		}
		again, err2 := ParseVerdictCommand(cmd.String())
		if err2 != CommandOK || again != cmd {
			t.Fatalf("round trip %q: %+v, %v; want %+v", cmd.String(), again, err2, cmd)
		}
	})
}
