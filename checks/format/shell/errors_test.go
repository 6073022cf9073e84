package shell

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		reason    string
	}{
		{"unterminated quote", "echo ok\necho \"open\n", 2, 6, "reached EOF without closing quote"},
		{"if without fi", "if true; then\n  x\n", 1, 1, "must end with `fi`"},
		{"bad test operator", "[[ \"$CONC\" -gte 16 ]]\n", 1, 12, "not a valid test operator"},
		{"here-string without word", "cmd <<<\n", 1, 5, "must be followed by a word"},
		{"NUL byte", "echo a\necho b\x00c\n", 2, 7, "NUL byte"},
		{"bad bash -c string", "ok\nbash -c 'if x; then y'\n", 2, 10, "in the shell -c string starting at line 2"},
		{"bad eval string", "eval 'echo \"'\n", 1, 12, "in the eval starting at line 1"},
		{"colon subscript, not associative", "M=([a:b]=1)\n", 1, 6, "ternary operator"},
		{"unclosed heredoc", "cat <<EOF\nbody\n", 1, 5, "unclosed here-document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("dir/run.sh", []byte(tt.src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse = %v, %v; want an *Error", sc, err)
			}
			if sc != nil {
				t.Error("a script that does not parse yields no partial result")
			}
			if e.File != "dir/run.sh" || e.Line != tt.line || e.Col != tt.col || !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("error = %q (%d:%d), want line %d col %d containing %q", e.Error(), e.Line, e.Col, tt.line, tt.col, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), "dir/run.sh:") {
				t.Errorf("Error() = %q, want file:line:col: reason", err.Error())
			}
		})
	}
	big := make([]byte, MaxBytes+1)
	if _, err := Parse("big.sh", big); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("oversized script: %v", err)
	}
}

// bash reads the subscripts of an associative array as strings; the parser
// reads them as arithmetic. The retry keeps positions and texts exact.
func TestAssociativeSubscripts(t *testing.T) {
	src := `declare -A STEPS=(
  # isl:tp:conc
  [1024:8:4]=3
  [8192:4:64]=2
)
N="${STEPS[${ISL}:${TP}:${CONC}]:-1}"
FIXED="${STEPS[1024:8:4]}"
local_map() {
  local -A m=([a.b]=1)
  echo "${m[a.b]}"
}
run --steps "$N" --fixed "$FIXED"
`
	sc := mustParse(t, src)
	arr := sc.Assigns[0]
	if arr.Name != "STEPS" || len(arr.Elems) != 2 || arr.Elems[0].Key != "1024:8:4" || arr.Elems[1].Key != "8192:4:64" {
		t.Fatalf("array = %+v", arr)
	}
	run := find(t, sc, "run --steps")
	if got := strings.Join(run.Args[2].Values, ","); got != "3,2,1" {
		t.Errorf("run-time subscript values = %q, want 3,2,1", got)
	}
	if got := strings.Join(run.Args[4].Values, ","); got != "3" {
		t.Errorf("static subscript values = %q, want 3", got)
	}
	if c := find(t, sc, "echo \"${m[a.b]}\""); c.Line != 10 || c.Args[1].Text != `"${m[a.b]}"` {
		t.Errorf("echo = line %d %q", c.Line, c.Args[1].Text)
	}
	if n := find(t, sc, `N="${STEPS`); n.Text != `N="${STEPS[${ISL}:${TP}:${CONC}]:-1}"` {
		t.Errorf("text = %q (must come from the original source)", n.Text)
	}
}
