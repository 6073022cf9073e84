package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanInline makes check-supplied text safe for one row: one line, bounded
// length, and no raw HTML tag openings outside code spans (a stray
// "</details>" or "<!--" in a reason would otherwise restructure the comment).
func cleanInline(s string) string {
	// Control characters include line boundaries (\x1c-\x1e) that the guard
	// splits on but strings.Fields does not.
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxReasonRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:maxReasonRunes-1])) + "…"
	}
	// The guard's row pattern is greedy up to the last "): STATUS — ", so a
	// reason quoting such text would make a row read as another status. The
	// guard would then reject the whole verdict; defuse the quote instead.
	s = statusDashRE.ReplaceAllString(s, ": $1 - ")
	return neutralizeHTML(s)
}

// neutralizeHTML escapes "<" where it would open an HTML tag, comment or
// declaration, except inside backtick code spans where Markdown shows it
// literally anyway.
func neutralizeHTML(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	segs := strings.Split(s, "`")
	// With an odd number of backticks the last one is unmatched and the text
	// after it is ordinary text.
	lastInside := len(segs) - 2
	if len(segs)%2 == 0 {
		lastInside = len(segs) - 3
	}
	for i := range segs {
		if i%2 == 1 && i <= lastInside {
			continue
		}
		segs[i] = escapeTagOpen(segs[i])
	}
	return strings.Join(segs, "`")
}

func escapeTagOpen(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) {
			c := s[i+1]
			if c == '!' || c == '/' || c == '?' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
				b.WriteString("&lt;")
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
