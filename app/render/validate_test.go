package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// verdictLines builds a verdict text from a header and "N STATUS" specs, each
// row rendered in the canonical format with its correct emoji.
func verdictLines(header string, specs map[int]string) []string {
	lines := []string{header, ""}
	for n := range 16 {
		st, ok := specs[n]
		if !ok {
			st = "PASS"
		}
		lines = append(lines, fmt.Sprintf("%s Check %d (%s): %s — reason %d", guardEmoji[st], n, inferencex.Name(n).EN, st, n), "")
	}
	return lines
}

func TestValidate(t *testing.T) {
	pass := verdictLines(HeaderPass, nil)
	join := func(l []string) string { return strings.Join(l, "\n") }
	replace := func(l []string, i int, s string) []string {
		c := append([]string(nil), l...)
		c[i] = s
		return c
	}
	rowIdx := func(n int) int { return 2 + 2*n } // line index of Check n in verdictLines

	tests := []struct {
		name    string
		text    string
		wantErr string // substring; "" means valid
	}{
		{"all pass", join(pass), ""},
		{"warn on 4", join(verdictLines(HeaderWarn, map[int]string{4: "WARN"})), ""},
		{"warn on 14 and 15", join(verdictLines(HeaderWarn, map[int]string{14: "WARN", 15: "WARN"})), ""},
		{"N/A rows", join(verdictLines(HeaderPass, map[int]string{9: "N/A", 11: "N/A"})), ""},
		{"rejected with warn", join(verdictLines(HeaderRejected, map[int]string{1: "FAIL", 14: "WARN"})), ""},
		{"bullet and indent tolerated", join(replace(pass, rowIdx(3), "  - ✅ Check 3 (Upstream recipe): PASS — ok")), ""},
		{"star bullet tolerated", join(replace(pass, rowIdx(3), "* ✅ Check 3 (Upstream recipe): PASS — ok")), ""},
		{"details wrapper lines ignored", join(append(append([]string{}, pass[:4]...), append([]string{"<details>", "<summary>Passed and not applicable checks</summary>"}, pass[4:]...)...)), ""},
		{"prose mentioning Check is not a row", join(append(append([]string{}, pass...), "@a Check 1 (Passing sweep) failed.", "⚠️ Pareto coverage needs additional review: @m.")), ""},

		// Step 1: rows that try to be rows but are malformed.
		{"missing em dash", join(replace(pass, rowIdx(3), "✅ Check 3 (Upstream recipe): PASS - ok")), "malformed check row"},
		{"empty reason", join(replace(pass, rowIdx(3), "✅ Check 3 (Upstream recipe): PASS — ")), "malformed check row"},
		{"reason starts with space", join(replace(pass, rowIdx(3), "✅ Check 3 (Upstream recipe): PASS —  ok")), "malformed check row"},
		{"lowercase status", join(replace(pass, rowIdx(3), "✅ Check 3 (Upstream recipe): pass — ok")), "malformed check row"},
		{"no name", join(replace(pass, rowIdx(3), "✅ Check 3 (): PASS — ok")), "malformed check row"},
		{"two spaces before Check", join(replace(pass, rowIdx(3), "✅  Check 3 (Upstream recipe): PASS — ok")), "malformed check row"},
		{"warning sign without variation selector is not a row", join(replace(pass, rowIdx(4), "⚠ Check 4 (Reuse command): WARN — x")), "Check 4 is missing"},

		// Step 2: emoji/status agreement, WARN/FAIL capability, uniqueness, completeness.
		{"emoji disagrees", join(replace(pass, rowIdx(3), "❌ Check 3 (Upstream recipe): PASS — ok")), "has emoji ❌ for status PASS"},
		{"N/A with check mark", join(replace(pass, rowIdx(9), "✅ Check 9 (Chat template): N/A — ok")), "for status N/A"},
		{"WARN on blocking check (S17)", join(verdictLines(HeaderWarn, map[int]string{1: "WARN"})), "Check 1 may not WARN"},
		{"FAIL on advisory 14", join(verdictLines(HeaderRejected, map[int]string{14: "FAIL"})), "advisory Check 14 may not FAIL"},
		{"FAIL on advisory 4", join(verdictLines(HeaderRejected, map[int]string{4: "FAIL"})), "advisory Check 4 may not FAIL"},
		{"duplicate row (S17)", join(append(append([]string{}, pass...), pass[rowIdx(14)])), "Check 14 appears more than once"},
		{"missing row", join(append([]string{}, pass[:rowIdx(15)]...)), "Check 15 is missing"},
		{"number out of range", join(append(append([]string{}, pass...), "✅ Check 16 (Extra): PASS — x")), "not a row of the inferencex checklist"},
		{"huge number", join(append(append([]string{}, pass...), "✅ Check 99999999999999999999 (Extra): PASS — x")), "not a row of the inferencex checklist"},

		// Step 3: headers.
		{"no header", join(pass[1:]), "no verdict header line"},
		{"header not first", join(append([]string{""}, pass...)), "header is on line 2"},
		{"two headers", join(append(append([]string{}, pass...), HeaderPass)), "2 verdict header lines"},
		{"PASS header over a FAIL", join(verdictLines(HeaderPass, map[int]string{3: "FAIL"})), "does not match the rows"},
		{"WARN header over all PASS", join(verdictLines(HeaderWarn, nil)), "does not match the rows"},
		{"PASS header over a WARN", join(verdictLines(HeaderPass, map[int]string{15: "WARN"})), "does not match the rows"},
		{"REJECTED header over a WARN", join(verdictLines(HeaderRejected, map[int]string{15: "WARN"})), "does not match the rows"},
		{"header with trailing space", join(replace(pass, 0, HeaderPass+" ")), "no verdict header line"},
		{"header with CR counts as header line", join(replace(pass, 0, HeaderPass+"\r")), ""},
		{"row split by line separator", join(replace(pass, rowIdx(3), "✅ Check 3 (Upstream recipe): PASS — ok\u2028✅ Check 3 (Upstream recipe): PASS — again")), "appears more than once"},
		{"empty text", "", "no verdict header line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.text, inferencex.Preset)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate = %v, want valid", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Validate accepted it, want error containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Validate = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSplitLinesMatchesPython(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\nb", []string{"a", "", "b"}},
		{"a\r\nb\rc", []string{"a", "b", "c"}},
		{"a\u2028b\u0085c\x0bd", []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		got := splitLines(tt.in)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
			t.Errorf("splitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBodyState(t *testing.T) {
	for _, tt := range []struct {
		body string
		want checks.Overall
	}{
		{"<!-- m -->\n" + HeaderPass + "\n\nx", checks.VerdictPass},
		{"<!-- m -->\n" + HeaderWarn + "\n", checks.VerdictWarn},
		{"<!-- m -->\n" + HeaderRejected + "\n", checks.VerdictRejected},
		{HeaderPass + "\n", checks.VerdictRejected}, // no marker line: header is not line 2
		{"<!-- m -->\n" + HeaderPass + " extra\n", checks.VerdictRejected},
		{"", checks.VerdictRejected},
	} {
		if got := BodyState(tt.body); got != tt.want {
			t.Errorf("BodyState(%q) = %s, want %s", tt.body, got, tt.want)
		}
	}
}

// FuzzValidate checks that the guard never panics and that whatever it
// accepts really has the properties the guard promises.
func FuzzValidate(f *testing.F) {
	f.Add(strings.Join(verdictLines(HeaderPass, nil), "\n"))
	f.Add(strings.Join(verdictLines(HeaderRejected, map[int]string{1: "FAIL", 14: "WARN"}), "\n"))
	f.Add("✅ Check 3 (x): PASS — y\r\n⚠️Check")
	f.Fuzz(func(t *testing.T, s string) {
		if Validate(s, inferencex.Preset) != nil {
			return
		}
		lines := splitLines(s)
		if len(lines) == 0 || (lines[0] != HeaderPass && lines[0] != HeaderWarn && lines[0] != HeaderRejected) {
			t.Fatalf("accepted text whose first line is not a header: %q", s)
		}
		rows := 0
		for _, l := range lines {
			if rowRE.MatchString(strings.TrimSpace(l)) {
				rows++
			}
		}
		if rows != len(inferencex.Preset.Rows) {
			t.Fatalf("accepted text with %d rows", rows)
		}
	})
}

// FuzzMarkdownReason feeds arbitrary reasons through the renderer: the
// English part must always pass the guard and keep its shape.
func FuzzMarkdownReason(f *testing.F) {
	f.Add("plain reason", "理由")
	f.Add("x </details> <!-- y", "`<b>` ): PASS — z")
	f.Add("\u2028✅ Check 3 (a): PASS — b", "")
	f.Fuzz(func(t *testing.T, en, zh string) {
		v := verdictFor(with(baseRows(), 6, checks.Fail, en, zh))
		body, err := Markdown(v)
		if body == "" {
			t.Fatalf("no body (err %v)", err)
		}
		part := EnglishPart(body)
		prefix, suffix := Marker(v.Key)+"\n", "\n\nAssessed commit: `"+v.HeadSHA+"`.\n"
		if !strings.HasPrefix(part, prefix) || !strings.HasSuffix(part, suffix) {
			t.Fatalf("English part lost its shape: %q", part)
		}
		if err == nil {
			if verr := Validate(part[len(prefix):len(part)-len(suffix)], inferencex.Preset); verr != nil {
				t.Fatalf("published text fails the guard: %v", verr)
			}
		}
		if BodyState(body) != checks.VerdictRejected {
			t.Fatal("a FAIL verdict reads back as not REJECTED")
		}
	})
}
