package checks

import (
	"strconv"
	"strings"
)

// maxPatchLines bounds how many lines of one patch are kept: a generated
// file with a huge diff must not blow up memory or every later scan.
const maxPatchLines = 200000

// ParsePatch splits a unified-diff patch (as GitHub returns it per file) into
// added lines, numbered in the new file, and removed lines, numbered in the
// old file. Malformed hunk headers are skipped rather than guessed at.
func ParsePatch(patch string) (added, removed []DiffLine, truncated bool) {
	oldLn, newLn := 0, 0
	inHunk := false
	n := 0
	for len(patch) > 0 {
		var line string
		if i := strings.IndexByte(patch, '\n'); i >= 0 {
			line, patch = patch[:i], patch[i+1:]
		} else {
			line, patch = patch, ""
		}
		n++
		if n > maxPatchLines {
			return added, removed, true
		}
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "@@") {
			o, nw, ok := parseHunkHeader(line)
			inHunk = ok
			oldLn, newLn = o, nw
			continue
		}
		if !inHunk || line == "" {
			continue
		}
		switch line[0] {
		case '+':
			added = append(added, DiffLine{Line: newLn, Text: line[1:]})
			newLn++
		case '-':
			removed = append(removed, DiffLine{Line: oldLn, Text: line[1:]})
			oldLn++
		case ' ':
			oldLn++
			newLn++
		case '\\': // "\ No newline at end of file"
		}
	}
	return added, removed, false
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@".
func parseHunkHeader(h string) (oldStart, newStart int, ok bool) {
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
