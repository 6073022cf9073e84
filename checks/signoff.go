package checks

import (
	"regexp"
	"strings"
	"time"
)

// Sign-off kinds, as logs and reasons name them.
const (
	KindConversation = "conversation comment"
	KindReview       = "review summary"
	KindInline       = "inline review comment"
)

// SignOff is a parsed checklist sign-off.
type SignOff struct {
	// Key is issuecomment-<id>, pullrequestreview-<id> or discussion_r<id>.
	Key       string
	Kind      string
	ID        int64
	Author    string
	Body      string
	URL       string
	CreatedAt time.Time
	UpdatedAt time.Time

	Items []ChecklistItem
	// Detail is the text of the Additional detail section (without its
	// heading); DetailEmpty is set when it holds only the template
	// placeholder or nothing.
	Detail      string
	DetailEmpty bool
	DetailLinks []string
	// Links are all http(s) URLs in the body.
	Links []string
	// Signed is the value of the Signed: line, backticks removed.
	Signed string
}

// ChecklistItem is one checkbox line.
type ChecklistItem struct {
	Text    string
	Checked bool
	// Depth is 0 for top-level items and grows with indentation.
	Depth int
	// Line is the 1-based line number in the body.
	Line int
}

var (
	itemRE    = regexp.MustCompile(`^(\s*)[-*+]\s+\[( |x|X)\]\s+(.+)$`)
	detailRE  = regexp.MustCompile(`(?i)^\s*#{1,6}\s*additional detail section:?\s*$`)
	signedRE  = regexp.MustCompile(`^\s*Signed:\s*(.*)$`)
	urlRE     = regexp.MustCompile("https?://[^\\s<>()\\[\\]\"'`]+")
	keyRE     = regexp.MustCompile(`^(issuecomment-|pullrequestreview-|discussion_r)[1-9][0-9]*$`)
	placehold = "insert any additional info here"
)

// ValidKey reports whether k is a well-formed sign-off key.
func ValidKey(k string) bool { return keyRE.MatchString(k) }

// IsSignOff reports whether body is a sign-off candidate for phrase: a plain,
// case-sensitive substring test, as the original bot does.
func IsSignOff(body, phrase string) bool {
	return phrase != "" && strings.Contains(body, phrase)
}

// ParseSignOff parses a sign-off body. It never fails: a body with no
// checklist yields no items, which Check 5 reports.
func ParseSignOff(body string) SignOff {
	s := SignOff{Body: body}
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
			s.Items = append(s.Items, ChecklistItem{
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
