package markdown

import (
	"fmt"
	"strings"
)

// The parser's work grows with the square of container nesting (every line
// walks the open block quotes and list items) and with the cells of a
// table (missing cells are filled in). No real comment comes near these
// bounds; a text past them is refused, not half read.
const (
	maxNesting    = 64
	maxTableCells = 100_000
	// The parser keeps a pending link label for every [ of a paragraph
	// until the paragraph ends, and allocates one per [ in any case.
	maxBrackets    = 20_000
	maxDocBrackets = 100_000
)

// checkLimits scans the normalized text line by line before parsing.
func checkLimits(s string) error {
	lines := strings.Split(s, "\n")
	if n := strings.Count(s, "["); n > maxDocBrackets {
		return &Error{Reason: fmt.Sprintf("%d [ in the text (at most %d)", n, maxDocBrackets)}
	}
	// blankAfter[i] is the first blank line at or after i.
	blankAfter := make([]int, len(lines)+1)
	blankAfter[len(lines)] = len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		blankAfter[i] = blankAfter[i+1]
		if strings.TrimSpace(lines[i]) == "" {
			blankAfter[i] = i
		}
	}
	brackets, first := 0, 0
	for i := 0; i < len(lines); i++ {
		d := nesting(lines[i])
		switch {
		case strings.TrimSpace(lines[i]) == "":
			brackets, first = 0, i+1
			continue
		case d > 0: // a list item or quote line starts a new block
			brackets, first = 0, i
		}
		if brackets += strings.Count(lines[i], "["); brackets > maxBrackets {
			return &Error{Line: first + 1, Reason: fmt.Sprintf("more than %d [ in one paragraph", maxBrackets)}
		}
		if d > maxNesting {
			return &Error{Line: i + 1, Reason: fmt.Sprintf("block quotes and lists nested %d deep (at most %d)", d, maxNesting)}
		}
		cols := delimiterColumns(lines[i])
		if cols == 0 {
			continue
		}
		rows := blankAfter[i+1] - i - 1
		if cols*(rows+2) > maxTableCells {
			return &Error{Line: i + 1, Reason: fmt.Sprintf("table of %d columns and %d rows (at most %d cells)", cols, rows, maxTableCells)}
		}
	}
	return nil
}

// nesting estimates how many containers a line opens or continues: one per
// > and per list marker in its prefix, plus its indentation in steps of two
// columns when the prefix holds a marker (an indented nested item). It can
// only over-count.
func nesting(l string) int {
	col, i := 0, 0
	for ; i < len(l) && (l[i] == ' ' || l[i] == '\t'); i++ {
		if l[i] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	markers := 0
	for i < len(l) {
		c := l[i]
		switch {
		case c == '>':
			markers++
			i++
		case c == ' ' || c == '\t':
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(l) && (l[i+1] == ' ' || l[i+1] == '\t'):
			markers++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(l) && j-i < 9 && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j+1 < len(l) && (l[j] == '.' || l[j] == ')') && (l[j+1] == ' ' || l[j+1] == '\t') {
				markers++
				i = j + 2
				continue
			}
			return nestScore(col, markers)
		default:
			return nestScore(col, markers)
		}
	}
	return nestScore(col, markers)
}

func nestScore(col, markers int) int {
	if markers == 0 {
		return 0
	}
	return markers + col/2
}

// delimiterColumns is the column count of a GFM table delimiter row
// (|---|:--:|), 0 for any other line.
func delimiterColumns(l string) int {
	t := strings.TrimSpace(strings.TrimLeft(l, " \t>"))
	if !strings.Contains(t, "-") || !strings.Contains(t, "|") {
		return 0
	}
	for _, c := range t {
		if c != '|' && c != '-' && c != ':' && c != ' ' && c != '\t' {
			return 0
		}
	}
	cols := 0
	for _, cell := range strings.Split(strings.Trim(t, "|"), "|") {
		if strings.Contains(cell, "-") {
			cols++
		}
	}
	return cols
}
