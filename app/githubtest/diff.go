package githubtest

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// diffTrees lists the files that differ between two trees the way GitHub's
// /pulls/{n}/files does: sorted by path, with hunks in Patch. Binary files
// (invalid UTF-8 or NUL bytes) get no patch.
func diffTrees(base, head map[string][]byte) []*File {
	paths := map[string]bool{}
	for p := range base {
		paths[p] = true
	}
	for p := range head {
		paths[p] = true
	}
	var out []*File
	for _, p := range sortedKeys(paths) {
		a, inA := base[p]
		b, inB := head[p]
		if inA && inB && bytes.Equal(a, b) {
			continue
		}
		f := &File{Filename: p}
		switch {
		case !inA:
			f.Status = "added"
		case !inB:
			f.Status = "removed"
		default:
			f.Status = "modified"
		}
		if isBinary(a) || isBinary(b) {
			f.NoPatch = true
		} else {
			f.Patch, f.Additions, f.Deletions = unifiedDiff(string(a), string(b), 3)
		}
		out = append(out, f)
	}
	return out
}

func isBinary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) }

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

type edit struct {
	op   byte // ' ', '-', '+'
	line string
}

// unifiedDiff returns GitHub-style hunks (no file header) and the counts of
// added and deleted lines. Common prefix and suffix are trimmed before an
// LCS over the middle, which keeps fixture-sized edits cheap; a middle too
// large for the table is shown as a full replacement.
func unifiedDiff(a, b string, context int) (string, int, int) {
	la, lb := splitLines(a), splitLines(b)
	pre := 0
	for pre < len(la) && pre < len(lb) && la[pre] == lb[pre] {
		pre++
	}
	suf := 0
	for suf < len(la)-pre && suf < len(lb)-pre && la[len(la)-1-suf] == lb[len(lb)-1-suf] {
		suf++
	}
	ma, mb := la[pre:len(la)-suf], lb[pre:len(lb)-suf]
	var edits []edit
	for _, l := range la[:pre] {
		edits = append(edits, edit{' ', l})
	}
	edits = append(edits, lcsEdits(ma, mb)...)
	for _, l := range la[len(la)-suf:] {
		edits = append(edits, edit{' ', l})
	}
	return hunks(edits, context)
}

func lcsEdits(a, b []string) []edit {
	var out []edit
	if len(a)*len(b) > 4_000_000 {
		for _, l := range a {
			out = append(out, edit{'-', l})
		}
		for _, l := range b {
			out = append(out, edit{'+', l})
		}
		return out
	}
	n, m := len(a), len(b)
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, edit{' ', a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, edit{'-', a[i]})
			i++
		default:
			out = append(out, edit{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, edit{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, edit{'+', b[j]})
	}
	return out
}

func hunks(edits []edit, context int) (string, int, int) {
	var sb strings.Builder
	adds, dels := 0, 0
	// Positions (1-based) in old and new before each edit.
	oldAt, newAt := make([]int, len(edits)+1), make([]int, len(edits)+1)
	o, nw := 1, 1
	for i, e := range edits {
		oldAt[i], newAt[i] = o, nw
		if e.op != '+' {
			o++
		}
		if e.op != '-' {
			nw++
		}
	}
	oldAt[len(edits)], newAt[len(edits)] = o, nw
	i := 0
	for i < len(edits) {
		if edits[i].op == ' ' {
			i++
			continue
		}
		start := max(0, i-context)
		end := i
		// Extend while the next change is within 2*context lines.
		for {
			for end < len(edits) && edits[end].op != ' ' {
				end++
			}
			k := end
			for k < len(edits) && edits[k].op == ' ' && k-end < 2*context {
				k++
			}
			if k < len(edits) && edits[k].op != ' ' {
				end = k
				continue
			}
			end = min(len(edits), end+context)
			break
		}
		oc, nc := 0, 0
		for _, e := range edits[start:end] {
			if e.op != '+' {
				oc++
			}
			if e.op != '-' {
				nc++
			}
		}
		os, ns := oldAt[start], newAt[start]
		if oc == 0 {
			os--
		}
		if nc == 0 {
			ns--
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(os, oc), span(ns, nc))
		for _, e := range edits[start:end] {
			line := e.line
			sb.WriteByte(e.op)
			if strings.HasSuffix(line, "\n") {
				sb.WriteString(line)
			} else {
				sb.WriteString(line + "\n\\ No newline at end of file\n")
			}
			switch e.op {
			case '+':
				adds++
			case '-':
				dels++
			}
		}
		i = end
	}
	return strings.TrimSuffix(sb.String(), "\n"), adds, dels
}

func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// diffText renders the whole PR diff for Accept: application/vnd.github.diff.
func diffText(files []*File) string {
	var sb strings.Builder
	fs := append([]*File(nil), files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Filename < fs[j].Filename })
	for _, f := range fs {
		old := f.Filename
		if f.PreviousFilename != "" {
			old = f.PreviousFilename
		}
		fmt.Fprintf(&sb, "diff --git a/%s b/%s\n", old, f.Filename)
		a, b := "a/"+old, "b/"+f.Filename
		switch f.Status {
		case "added":
			sb.WriteString("new file mode 100644\n")
			a = "/dev/null"
		case "removed":
			sb.WriteString("deleted file mode 100644\n")
			b = "/dev/null"
		}
		if f.NoPatch || f.Patch == "" {
			fmt.Fprintf(&sb, "Binary files %s and %s differ\n", a, b)
			continue
		}
		fmt.Fprintf(&sb, "--- %s\n+++ %s\n%s\n", a, b, f.Patch)
	}
	return sb.String()
}
