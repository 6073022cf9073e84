package render

import (
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// HeadMovedMarker starts the line a push adds to an earlier verdict
// comment. The line is the comment's last: the English part, which tools
// read and the guard validated, stays byte for byte as published.
const HeadMovedMarker = "<!-- verdict-head-moved -->"

// headMovedSep is what precedes the marker: the line is its own paragraph.
const headMovedSep = "\n" + HeadMovedMarker + "\n"

type headMoved struct{ Covered, Head string }

// HeadMovedLine is the one bilingual line saying that a verdict covers
// commit covered and that the PR's head has moved to head.
func HeadMovedLine(covered, head string) (string, error) {
	if !shaRE.MatchString(covered) || !shaRE.MatchString(head) {
		return "", fmt.Errorf("head-moved line: invalid commits %q, %q", covered, head)
	}
	return joinLangs("headmoved.line", headMoved{checks.Short(covered), checks.Short(head)})
}

// SignOffNeededStatus is the commit status description of a head that no
// verdict covers: the last verdict covered commit covered.
func SignOffNeededStatus(covered string) (string, error) {
	if !shaRE.MatchString(covered) {
		return "", fmt.Errorf("sign-off-needed status: invalid commit %q", covered)
	}
	return joinLangs("headmoved.status", headMoved{Covered: checks.Short(covered)})
}

func joinLangs(name string, data any) (string, error) {
	var parts []string
	for _, l := range langs {
		s, err := text(l, name, data)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " / "), nil
}

// WithHeadMoved returns a verdict comment body with line as its head-moved
// line, replacing the one an earlier push added; "" removes it. Applying it
// twice with the same line changes nothing.
func WithHeadMoved(body, line string) string {
	if i := strings.Index(body, headMovedSep); i >= 0 {
		body = body[:i]
	}
	if line == "" {
		return body
	}
	return body + headMovedSep + line + "\n"
}

// AssessedCommit is the commit a verdict comment body says it assessed
// (its English footer), false when the body has none.
func AssessedCommit(body string) (string, bool) {
	foot, err := text(EN, "footer", "\x00")
	if err != nil {
		return "", false
	}
	pre, post, _ := strings.Cut(foot, "\x00")
	en := EnglishPart(body)
	i := strings.LastIndex(en, pre)
	if i < 0 {
		return "", false
	}
	rest := en[i+len(pre):]
	if len(rest) < 40 || !strings.HasPrefix(rest[40:], post) || !shaRE.MatchString(rest[:40]) {
		return "", false
	}
	return rest[:40], true
}

// IsWithdrawn reports whether a verdict comment body is the notice of a
// withdrawn sign-off (Withdrawn): it quotes a verdict but stands for none.
func IsWithdrawn(body string) bool {
	header, err := text(EN, "withdrawn.header", nil)
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(body, "\n")
	return ok && strings.HasPrefix(body, "<!-- ") && strings.HasPrefix(rest, header+"\n")
}
