// Package signoff reads the sign-off text a reviewer posts: the phrase that
// makes a comment a sign-off, the checklist items, the Additional detail
// section (and the statements rows accept there), the links and the Signed:
// line; and the checklist template a sign-off must copy, with the
// deterministic matcher that pairs the two.
package signoff

import (
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

var (
	itemRE    = regexp.MustCompile(`^(\s*)[-*+]\s+\[( |x|X)\]\s+(.+)$`)
	detailRE  = regexp.MustCompile(`(?i)^\s*#{1,6}\s*additional detail section:?\s*$`)
	signedRE  = regexp.MustCompile(`^\s*Signed:\s*(.*)$`)
	urlRE     = regexp.MustCompile("https?://[^\\s<>()\\[\\]\"'`]+")
	keyRE     = regexp.MustCompile(`^(issuecomment-|pullrequestreview-|discussion_r)[1-9][0-9]*$`)
	placehold = "insert any additional info here"
)

// DefaultPhrase is the phrase of the InferenceX checklist sign-off ("As a PR
// reviewer and CODEOWNER, I have reviewed this and have: …"), used wherever
// a server or repository names no other.
const DefaultPhrase = "As a PR reviewer and CODEOWNER"

// ValidKey reports whether k is a well-formed sign-off key
// (issuecomment-<id>, pullrequestreview-<id> or discussion_r<id>).
func ValidKey(k string) bool { return keyRE.MatchString(k) }

// IsCandidate reports whether body is a sign-off candidate for phrase: a
// plain, case-sensitive substring test, as the original bot does.
func IsCandidate(body, phrase string) bool {
	return phrase != "" && strings.Contains(body, phrase)
}

// Parse parses a sign-off body. It never fails: a body with no
// checklist yields no items, which Check 5 reports.
func Parse(body string) checks.SignOff {
	s := checks.SignOff{Body: body}
	// Old Mac line endings (a lone \r) would otherwise glue lines together,
	// since "." matches \r.
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(body, "\n")
	inDetail := false
	var detail []string
	for i, line := range lines {
		if m := signedRE.FindStringSubmatch(line); m != nil {
			s.Signed = strings.Trim(m[1], " \t`")
			inDetail = false
			continue
		}
		if detailRE.MatchString(line) {
			inDetail = true
			continue
		}
		if inDetail {
			detail = append(detail, line)
			continue
		}
		// A checkbox with only whitespace after it has no text to match.
		if m := itemRE.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[3]) != "" {
			indent := strings.ReplaceAll(m[1], "\t", "    ")
			s.Items = append(s.Items, checks.ChecklistItem{
				Text:    strings.TrimSpace(m[3]),
				Checked: m[2] != " ",
				Depth:   len(indent) / 2,
				Line:    i + 1,
			})
		}
	}
	s.Detail = strings.TrimSpace(strings.Join(detail, "\n"))
	s.DetailEmpty = detailIsEmpty(detail)
	s.Links = findLinks(body)
	s.DetailLinks = findLinks(s.Detail)
	return s
}

func detailIsEmpty(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		t = strings.TrimSpace(strings.TrimLeft(t, "-*+"))
		if t == "" || strings.EqualFold(t, placehold) {
			continue
		}
		return false
	}
	return true
}

func findLinks(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range urlRE.FindAllString(s, -1) {
		u = strings.TrimRight(u, ".,;:!?*_")
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
