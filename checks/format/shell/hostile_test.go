package shell

import (
	"errors"
	"strings"
	"testing"
)

// hostile builds inputs of about MaxBytes/div bytes made to make a reader
// recurse or go quadratic. Each must end in a result or an *Error;
// BenchmarkParseHostile measures how long the full-size ones take.
func hostile(div int) map[string]string {
	n := func(k int) int { return k / div }
	return map[string]string{
		"nested parens":        strings.Repeat("(", 300000),
		"nested substitutions": strings.Repeat("\"$(", 100000),
		"long && chain":        strings.Repeat("a && ", n(200000)) + "b\n",
		"nested ifs":           strings.Repeat("if a; then ", n(50000)) + "b" + strings.Repeat("; fi", n(50000)),
		"long test chain":      "[[ a" + strings.Repeat(" && a", n(150000)) + " ]]\n",
		"growing variable":     strings.Repeat("X=$X.a\n", n(140000)),
		"many uses":            "X=1\n" + strings.Repeat("echo $X $X $X\n", n(70000)),
		"reassign and use":     strings.Repeat("X=1\necho $X\n", n(80000)),
		"conditional assigns":  strings.Repeat("if a; then X=1; fi\n", n(50000)) + "echo $X\n",
		"functions see later":  strings.Repeat("f() { echo $X; }\nX=1\n", n(45000)),
		"wide values":          "X=" + strings.Repeat("y", 16000) + "\n" + strings.Repeat("echo a$X b$X\n", n(60000)),
		"colon subscripts":     "declare -A M=(" + strings.Repeat("[a:b]=1 ", n(100000)) + ")\n",
	}
}

func TestHostileInputs(t *testing.T) {
	for name, src := range hostile(20) {
		t.Run(name, func(t *testing.T) {
			if len(src) > MaxBytes {
				t.Fatalf("input is %d bytes, over MaxBytes", len(src))
			}
			sc, err := Parse("h.sh", []byte(src))
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if (sc == nil) == (err == nil) {
				t.Fatalf("Parse = %v, %v", sc, err)
			}
		})
	}
}

func BenchmarkParseHostile(b *testing.B) {
	for name, src := range hostile(1) {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse("h.sh", []byte(src))
			}
		})
	}
}
