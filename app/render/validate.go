package render

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/verdict-bot/verdict/checks"
)

// The publisher's guard: a verdict is published only when its rows are
// well-formed, complete and agree with its header, whatever produced it.
// The headers are repeated here rather than read from the templates on
// purpose: the guard must catch a template that drifts.
const (
	HeaderPass     = "## ✅✅✅ **Verdict: PASS** ✅✅✅"
	HeaderWarn     = "## ⚠️ **Verdict: WARN** ⚠️"
	HeaderRejected = "## ❌❌❌ **REJECTED** ❌❌❌"
)

var (
	rowRE = regexp.MustCompile(`^(?:[-*+] )?(✅|❌|➖|⚠️) Check ([0-9]+) \([^\r\n]+\): (PASS|FAIL|N/A|WARN) — \S.*$`)
	// rowishRE finds lines that try to be rows: an optional bullet, a status
	// emoji, optional spaces and the word Check.
	rowishRE = regexp.MustCompile(`^(?:[-*+] )?(?:✅|❌|➖|⚠️) *Check`)
)

// guardEmoji is the emoji each status must carry.
var guardEmoji = map[string]string{"PASS": "✅", "FAIL": "❌", "N/A": "➖", "WARN": "⚠️"}

// Validate applies the publisher guard to an English verdict (the text
// between the marker line and the footer) of preset p's rows: every row of
// p exactly once, and only p's advisory rows may WARN and never FAIL. It
// returns nil for a valid verdict, otherwise every problem found, joined.
func Validate(englishVerdict string, p *checks.Preset) error {
	if p == nil {
		return errors.New("no preset to validate the verdict against")
	}
	lines := splitLines(englishVerdict)
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	seen := map[int]int{}
	anyFail, anyWarn := false, false
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			if rowishRE.MatchString(line) {
				bad("line %d is a malformed check row: %q", i+1, line)
			}
			continue
		}
		emoji, status := m[1], m[3]
		n, err := strconv.Atoi(m[2])
		c, ok := p.Row(n)
		if err != nil || !ok {
			bad("line %d: check number %s is not a row of the %s checklist", i+1, m[2], p.Name)
			continue
		}
		if guardEmoji[status] != emoji {
			bad("line %d: Check %d has emoji %s for status %s", i+1, n, emoji, status)
		}
		if status == "WARN" && !c.Advisory {
			bad("line %d: Check %d may not WARN (only advisory checks can)", i+1, n)
		}
		if status == "FAIL" && c.Advisory {
			bad("line %d: advisory Check %d may not FAIL", i+1, n)
		}
		seen[n]++
		if seen[n] == 2 {
			bad("line %d: Check %d appears more than once", i+1, n)
		}
		anyFail = anyFail || status == "FAIL"
		anyWarn = anyWarn || status == "WARN"
	}
	for _, c := range p.Rows {
		if seen[c.Number] == 0 {
			bad("Check %d is missing", c.Number)
		}
	}

	want := HeaderPass
	switch {
	case anyFail:
		want = HeaderRejected
	case anyWarn:
		want = HeaderWarn
	}
	var headers []int
	for i, line := range lines {
		if line == HeaderPass || line == HeaderWarn || line == HeaderRejected {
			headers = append(headers, i)
		}
	}
	switch {
	case len(headers) == 0:
		bad("no verdict header line")
	case len(headers) > 1:
		bad("%d verdict header lines, want exactly one", len(headers))
	case headers[0] != 0:
		bad("verdict header is on line %d, want line 1", headers[0]+1)
	case lines[0] != want:
		bad("header %q does not match the rows, want %q", lines[0], want)
	}
	return errors.Join(errs...)
}

// splitLines splits like Python's str.splitlines: every Unicode line
// boundary ends a line, so a row cannot hide a second line behind a
// character Markdown might treat as a break.
func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch r {
		case '\r':
			out = append(out, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			start = i + size
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
