package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
)

func TestParseReuseCommand(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		want   string // Reuse.String(), "" when err != OK
		err    Error
		runID  int64
		pinned bool
	}{
		// The slash-command acceptance table, parsing column.
		{"use pinned", "/use 30123456789", "/use 30123456789", OK, 30123456789, true},
		{"bare use is usage", "/use", "", Malformed, 0, false},
		{"bare use with spaces is usage", "  /use   ", "", Malformed, 0, false},
		{"trailing text is usage", "/use 123 now", "", Malformed, 0, false},
		{"not at line start is ignored", "Please /use 123", "", NoCommand, 0, false},
		{"reuse-sweep-run auto-select", "/reuse-sweep-run", "/reuse-sweep-run", OK, 0, false},
		{"reuse-sweep-run pinned", "/reuse-sweep-run 777", "/reuse-sweep-run 777", OK, 777, true},
		// The original bot's quirk (\s+ spanning a newline) is not copied.
		{"id on next line is not a pin", "/reuse-sweep-run\n42", "/reuse-sweep-run", OK, 0, false},
		{"id on next line CRLF", "/reuse-sweep-run\r\n42", "/reuse-sweep-run", OK, 0, false},
		{"use with id on next line is usage", "/use\n42", "", Malformed, 0, false},
		{"quoted line is ignored", "> /use 1", "", NoCommand, 0, false},
		{"quoted line next to a real one", "> /use 1\n\n/use 2", "/use 2", OK, 2, true},
		// Without the blank line the second line is a lazy continuation of
		// the quote, and GitHub shows it inside the quote.
		{"lazy quote continuation is quoted", "> /use 1\n/use 2", "", NoCommand, 0, false},

		// Whole lines, whitespace, line endings.
		{"leading spaces", "   /use 12", "/use 12", OK, 12, true},
		// A tab opens an indented code block (four columns), which GitHub
		// shows as code; after a paragraph line it is a continuation.
		{"leading tab is indented code", "\t/use 12", "", NoCommand, 0, false},
		{"leading tab in a paragraph", "Thanks\n\t/use 12", "/use 12", OK, 12, true},
		{"four spaces are indented code", "    /use 12", "", NoCommand, 0, false},
		{"tab separator", "/use\t12", "/use 12", OK, 12, true},
		{"trailing spaces", "/use  12  \t", "/use 12", OK, 12, true},
		{"CRLF body", "Thanks!\r\n/use 123\r\nBye\r\n", "/use 123", OK, 123, true},
		{"CRLF auto-select", "/reuse-sweep-run\r\n", "/reuse-sweep-run", OK, 0, false},
		{"surrounding prose", "LGTM.\n\n/reuse-sweep-run 5\n\nthanks", "/reuse-sweep-run 5", OK, 5, true},
		{"blank lines before", "\n\n   \n/use 9", "/use 9", OK, 9, true},

		// Last command line wins; malformed lines are ignored when a real one exists.
		{"last wins", "/use 1\n/use 2", "/use 2", OK, 2, true},
		{"last wins across names", "/use 1\n/reuse-sweep-run", "/reuse-sweep-run", OK, 0, false},
		{"last valid wins", "/use 1\n/use 2 please", "/use 1", OK, 1, true},
		{"blank line between", "/use 1\n\n/use 3", "/use 3", OK, 3, true},

		// Digits: ASCII only, any length, canonical form.
		{"fullwidth digits", "/use ３０１", "", Malformed, 0, false},
		{"arabic-indic digits", "/use ١٢٣", "", Malformed, 0, false},
		{"negative", "/use -5", "", Malformed, 0, false},
		{"two ids", "/reuse-sweep-run 12 34", "", Malformed, 0, false},
		{"leading zeros", "/use 007", "/use 7", OK, 7, true},
		{"zero", "/use 0", "/use 0", OK, 0, true},
		{"overflow still parses", "/use 99999999999999999999", "/use 99999999999999999999", OK, 0, true},
		{"nbsp is not whitespace", "/use\u00a012", "", NoCommand, 0, false},
		{"trailing nbsp is text", "/use 12\u00a0", "", Malformed, 0, false},

		// Not commands at all.
		{"empty", "", "", NoCommand, 0, false},
		{"other command", "/user 12", "", NoCommand, 0, false},
		{"glued id", "/use12", "", NoCommand, 0, false},
		{"upper case", "/USE 12", "", NoCommand, 0, false},
		{"inline code", "run `/use 12` please", "", NoCommand, 0, false},
		{"reuse prefix glued", "/reuse-sweep-runs", "", NoCommand, 0, false},
		{"reuse glued id", "/reuse-sweep-run12", "", NoCommand, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := ParseReuse(tt.body)
			if err != tt.err {
				t.Fatalf("ParseReuse(%q) error = %v, want %v (cmd %+v)", tt.body, err, tt.err, cmd)
			}
			if err != OK {
				if cmd != (Reuse{}) {
					t.Errorf("non-zero command %+v with error %v", cmd, err)
				}
				return
			}
			if got := cmd.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if cmd.RunID != tt.runID || cmd.Pinned != tt.pinned {
				t.Errorf("RunID, Pinned = %d, %v; want %d, %v", cmd.RunID, cmd.Pinned, tt.runID, tt.pinned)
			}
			if !HasReuseLine(tt.body) {
				t.Errorf("parsed a command but the pre-filter does not match")
			}
		})
	}
}

func TestHasReuseCommandLine(t *testing.T) {
	for body, want := range map[string]bool{
		"/use":                  true,
		"/use 123 now":          true,
		"x\n  /reuse-sweep-run": true,
		"/reuse-sweep-run\t":    true,
		"Please /use 123":       false,
		"> /use 1":              false,
		"/used 1":               false,
		"":                      false,
	} {
		if got := HasReuseLine(body); got != want {
			t.Errorf("HasReuseLine(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestNewestAuthorized(t *testing.T) {
	allowed := []string{"OWNER", "MEMBER", "COLLABORATOR"} // the preset's reuse associations
	at := func(min int) time.Time { return time.Date(2026, 11, 1, 12, min, 0, 0, time.UTC) }
	c := func(id int64, assoc, body string, created int) checks.Comment {
		return checks.Comment{ID: id, Author: "u" + assoc, Association: assoc, Body: body, CreatedAt: at(created), UpdatedAt: at(created)}
	}
	tests := []struct {
		name     string
		comments []checks.Comment
		wantID   int64 // 0 = none
		wantCmd  string
	}{
		{"none", nil, 0, ""},
		{"single member", []checks.Comment{c(1, "MEMBER", "/use 30123456789", 1)}, 1, "/use 30123456789"},
		{"contributor only", []checks.Comment{c(1, "CONTRIBUTOR", "/use 123", 1)}, 0, ""},
		{"contributor newer is skipped", []checks.Comment{c(1, "MEMBER", "/use 1", 1), c(2, "CONTRIBUTOR", "/use 2", 2)}, 1, "/use 1"},
		{"newer wins", []checks.Comment{c(1, "MEMBER", "/use 1", 1), c(2, "MEMBER", "/use 2", 2)}, 2, "/use 2"},
		{"order by created_at, not listing order", []checks.Comment{c(2, "MEMBER", "/use 2", 2), c(1, "OWNER", "/use 1", 1)}, 2, "/use 2"},
		{"edited old comment does not move forward", []checks.Comment{
			{ID: 1, Association: "MEMBER", Body: "/use 9", CreatedAt: at(1), UpdatedAt: at(30)},
			c(2, "MEMBER", "/use 2", 2),
		}, 2, "/use 2"},
		{"equal timestamps keep listing order", []checks.Comment{c(5, "MEMBER", "/use 5", 1), c(3, "MEMBER", "/use 3", 1)}, 3, "/use 3"},
		{"unparsable newer is skipped", []checks.Comment{c(1, "COLLABORATOR", "/reuse-sweep-run", 1), c(2, "MEMBER", "/use", 2)}, 1, "/reuse-sweep-run"},
		{"prose newer is skipped", []checks.Comment{c(1, "MEMBER", "/use 7", 1), c(2, "OWNER", "looks good", 2)}, 1, "/use 7"},
		{"association case-insensitive", []checks.Comment{c(1, "member", "/use 4", 1)}, 1, "/use 4"},
		{"no association", []checks.Comment{c(1, "", "/use 4", 1)}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]checks.Comment(nil), tt.comments...)
			cmd, com, ok := NewestAuthorized(tt.comments, allowed)
			if ok != (tt.wantID != 0) {
				t.Fatalf("ok = %v, want %v", ok, tt.wantID != 0)
			}
			if com.ID != tt.wantID || (ok && cmd.String() != tt.wantCmd) {
				t.Errorf("got comment %d %q, want %d %q", com.ID, cmd.String(), tt.wantID, tt.wantCmd)
			}
			for i := range orig {
				if orig[i] != tt.comments[i] {
					t.Fatalf("NewestAuthorized reordered its input")
				}
			}
		})
	}
	// A custom association list is honoured.
	if _, _, ok := NewestAuthorized([]checks.Comment{c(1, "CONTRIBUTOR", "/use 1", 1)}, []string{"CONTRIBUTOR"}); !ok {
		t.Error("custom association list ignored")
	}
}

func FuzzParseReuseCommand(f *testing.F) {
	for _, s := range []string{"/use 1", "/use", "/reuse-sweep-run\n42", "> /use 1", "/use 123 now", "a\r\n/use 5\r\n", "/use ３", "/use 99999999999999999999",
		"```\n/use 1\n```", "<!--\n/use 2\n-->", "    /use 3", "- /use 4", "- a\n  /use 5", "/use 6\r/use 7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, err := ParseReuse(body)
		switch err {
		case NoCommand, Malformed:
			if cmd != (Reuse{}) {
				t.Fatalf("error %v with command %+v", err, cmd)
			}
			if (err == NoCommand) == HasReuseLine(body) {
				t.Fatalf("error %v disagrees with the pre-filter", err)
			}
			return
		case OK:
		default:
			t.Fatalf("unknown error %v", err)
		}
		if !HasReuseLine(body) {
			t.Fatal("parsed without a pre-filter match")
		}
		if cmd.Name != "/use" && cmd.Name != "/reuse-sweep-run" {
			t.Fatalf("bad name %q", cmd.Name)
		}
		if cmd.Name == "/use" && !cmd.Pinned {
			t.Fatal("unpinned /use")
		}
		if cmd.Pinned {
			if cmd.RunIDText == "" || strings.Trim(cmd.RunIDText, "0123456789") != "" || (len(cmd.RunIDText) > 1 && cmd.RunIDText[0] == '0') {
				t.Fatalf("bad run id text %q", cmd.RunIDText)
			}
			if cmd.RunID < 0 {
				t.Fatalf("negative run id %d", cmd.RunID)
			}
		}
		// The canonical form parses back to itself.
		again, err2 := ParseReuse(cmd.String())
		if err2 != OK || again != cmd {
			t.Fatalf("round trip %q: %+v, %v; want %+v", cmd.String(), again, err2, cmd)
		}
	})
}
