// Package udiff reads unified-diff hunks as GitHub returns them per file:
// the added and removed lines with their line numbers.
package udiff

import (
	"strconv"
	"strings"
)

// MaxLines bounds how many lines of one diff are kept: a generated file with
// a huge diff must not blow up memory or every later scan.
const MaxLines = 200000

// Line is one added or removed line, with its line number in the new
// (added) or old (removed) file.
type Line struct {
	Line int
	Text string
}

// Parse splits a file's hunks into added lines, numbered in the new file,
// and removed lines, numbered in the old file. Malformed hunk headers are
// skipped rather than guessed at; truncated is set when the text is over
// MaxLines lines.
func Parse(hunks string) (added, removed []Line, truncated bool) {
	oldLn, newLn := 0, 0
	inHunk := false
	n := 0
	for len(hunks) > 0 {
		var line string
		if i := strings.IndexByte(hunks, '\n'); i >= 0 {
			line, hunks = hunks[:i], hunks[i+1:]
		} else {
			line, hunks = hunks, ""
		}
		n++
		if n > MaxLines {
			return added, removed, true
		}
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "@@") {
			o, nw, ok := parseHeader(line)
			inHunk = ok
			oldLn, newLn = o, nw
			continue
		}
		if !inHunk || line == "" {
			continue
		}
		switch line[0] {
		case '+':
			added = append(added, Line{Line: newLn, Text: line[1:]})
			newLn++
		case '-':
			removed = append(removed, Line{Line: oldLn, Text: line[1:]})
			oldLn++
		case ' ':
			oldLn++
			newLn++
		case '\\': // "\ No newline at end of file"
		}
	}
	return added, removed, false
}

// parseHeader reads "@@ -a[,b] +c[,d] @@".
func parseHeader(h string) (oldStart, newStart int, ok bool) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	num := func(s string) (int, bool) {
		s, _, _ = strings.Cut(s[1:], ",")
		v, err := strconv.Atoi(s)
		return v, err == nil && v >= 0
	}
	o, ok1 := num(f[1])
	nw, ok2 := num(f[2])
	return o, nw, ok1 && ok2
}
