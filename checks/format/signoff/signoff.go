// Package signoff reads the sign-off text a reviewer posts: the phrase that
// makes a comment a sign-off, the checklist items, the Additional detail
// section (and the statements rows accept there), the links and the Signed:
// line; and the checklist template a sign-off must copy, with the
// deterministic matcher that pairs the two.
//
// A sign-off is read from its Markdown structure (checks/format/markdown),
// as GitHub shows it, and what counts is what the reviewer visibly wrote:
//
//   - Checklist items are task-list items ("- [x] …", "1. [ ] …"). An item
//     in a fenced or indented code block, an HTML block or comment, or a
//     block quote is not an item, and "- [x]text" (no space) is no checkbox,
//     as on GitHub. An item's text is what a reader sees: inline HTML,
//     comments included, is not part of it. Depth is list nesting.
//   - The Additional detail section runs from its heading (or a line
//     "##Additional detail section:", which the original grammar accepted)
//     to the Signed: line or the end. Its text, the statements the rows
//     look for, is its lines of ordinary text: paragraphs, list items and
//     headings. Code blocks are quoted material, HTML is hidden, and a
//     block quote is someone else's words (GitHub's "Quote reply" writes
//     one), so none of them is a statement or an explanation of the
//     reviewer's.
//   - Links are the links GitHub renders: inline, reference, autolinks and
//     bare URLs, outside code spans, code blocks and HTML. A link in a
//     block quote is not the reviewer's evidence, for the same reason its
//     words are not the reviewer's statement; a reviewer who relies on a
//     quoted link writes it again.
//   - The Signed: line is a line of ordinary text starting "Signed:".
//
// A body the Markdown reader refuses (markdown.Parse: too large, nested too
// deep, too many brackets) yields a SignOff with Unreadable set and nothing
// else read: every row that reads the sign-off's text fails closed with that
// reason, so such a sign-off can never PASS.
package signoff

import (
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/markdown"
)

// The line grammars of the original bot, applied to the lines of ordinary
// text as a reader sees them (indentation and list and heading markers
// kept, inline HTML blanked).
var (
	detailRE      = regexp.MustCompile(`(?i)^\s*#{1,6}\s*additional detail section:?\s*$`)
	detailTitleRE = regexp.MustCompile(`(?i)^\s*additional detail section:?\s*$`)
	signedRE      = regexp.MustCompile(`^\s*Signed:\s*(.*)$`)
	keyRE         = regexp.MustCompile(`^(issuecomment-|pullrequestreview-|discussion_r)[1-9][0-9]*$`)
	placehold     = "insert any additional info here"
)

// DefaultPhrase is the phrase of the InferenceX checklist sign-off ("As a PR
// reviewer and CODEOWNER, I have reviewed this and have: …"), used wherever
// a server or repository names no other.
const DefaultPhrase = "As a PR reviewer and CODEOWNER"

// ValidKey reports whether k is a well-formed sign-off key
// (issuecomment-<id>, pullrequestreview-<id> or discussion_r<id>).
func ValidKey(k string) bool { return keyRE.MatchString(k) }

// IsCandidate reports whether body is a sign-off candidate for phrase: the
// plain, case-sensitive substring test of the original bot, on the text a
// reader sees. A phrase that appears only inside a code block, an HTML
// block or comment, a block quote or a table does not make a candidate:
// quoting or pasting someone's sign-off is not signing off. A phrase of
// several lines is looked for in the whole body. A body the Markdown reader
// refuses is a candidate when it holds the phrase, so its verification says
// why it cannot be read instead of passing over it in silence.
func IsCandidate(body, phrase string) bool {
	if phrase == "" || !strings.Contains(body, phrase) {
		return false
	}
	if strings.ContainsAny(phrase, "\r\n") {
		return true
	}
	d, err := markdown.Parse(body)
	if err != nil {
		return true
	}
	// What a reader sees: a phrase in a link's title or destination, or
	// an image's alt text, is not there to them.
	for _, p := range d.Prose {
		if strings.Contains(p, phrase) {
			return true
		}
	}
	return false
}

// visible is a text line as a reader sees it: indentation and list and
// heading markers kept, inline HTML blanked, trailing space dropped.
func visible(t markdown.TextLine) string { return t.Raw[:t.Col] + t.Text }

// Unreadable is the reason a row that reads the sign-off's text gives when
// the Markdown reader refused the body; ok is false for a readable body.
func Unreadable(s checks.SignOff) (reason checks.Text, ok bool) {
	if s.Unreadable == "" {
		return checks.Text{}, false
	}
	return checks.T("the sign-off could not be read as Markdown ("+s.Unreadable+")",
		"签核无法按 Markdown 读取（"+checks.Code(s.Unreadable)+"）"), true
}

// Parse parses a sign-off body. It never fails: a body with no checklist
// yields no items, which Check 5 reports, and a body the Markdown reader
// refuses yields Unreadable.
func Parse(body string) checks.SignOff {
	s := checks.SignOff{Body: body}
	d, err := markdown.Parse(body)
	if err != nil {
		s.Unreadable = err.Error()
		s.DetailEmpty = true
		return s
	}
	// The detail section and the Signed: line, with the original bot's
	// state machine, over lines of ordinary text.
	var (
		detail   []string
		spans    []span // lines of detail sections
		inDetail bool
		prev     int
	)
	for _, t := range d.Text {
		v := visible(t)
		if m := signedRE.FindStringSubmatch(v); m != nil {
			s.Signed = strings.Trim(m[1], " \t`")
			if inDetail {
				spans[len(spans)-1].last = t.Line - 1
			}
			inDetail = false
			continue
		}
		if detailRE.MatchString(v) || t.Heading > 0 && detailTitleRE.MatchString(t.Text) {
			if !inDetail {
				spans = append(spans, span{first: t.Line + 1, last: len(d.Lines)})
			}
			inDetail = true
			continue
		}
		if inDetail {
			if prev > 0 && t.Line > prev+1 {
				detail = append(detail, "") // a paragraph break
			}
			detail = append(detail, v)
			prev = t.Line
		}
	}
	inSpan := func(line int) bool {
		for _, sp := range spans {
			if line >= sp.first && line <= sp.last {
				return true
			}
		}
		return false
	}
	s.Items = taskItems(d, inSpan)
	s.Detail = strings.TrimSpace(strings.Join(detail, "\n"))
	s.DetailEmpty = detailIsEmpty(detail)
	s.Links = links(d, func(int) bool { return true })
	s.DetailLinks = links(d, inSpan)
	return s
}

// span is a range of lines, both ends included.
type span struct{ first, last int }

// taskItems are the task-list items outside the detail sections (an item
// there is detail), with the text a reader sees.
func taskItems(d *markdown.Doc, inDetail func(int) bool) []checks.ChecklistItem {
	shown := map[int]string{}
	for _, t := range d.Text {
		shown[t.Line] = t.Text
	}
	var out []checks.ChecklistItem
	for _, k := range d.Tasks {
		if inDetail(k.Line) {
			continue
		}
		text := k.Text
		// The text line of the item starts with its checkbox; when inline
		// HTML was blanked out of it, the rest is what a reader sees.
		if line, ok := shown[k.Line]; ok {
			if i := strings.IndexByte(line, ']'); i >= 0 {
				if rest := strings.TrimSpace(line[i+1:]); rest != text {
					text = strings.Join(strings.Fields(rest), " ")
				}
			}
		}
		// A checkbox with nothing after it has no text to match.
		if text == "" {
			continue
		}
		out = append(out, checks.ChecklistItem{Text: text, Checked: k.Checked, Depth: k.Depth, Line: k.Line})
	}
	return out
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

// links are the http(s) links GitHub renders outside quotes on the lines
// in, deduplicated in order. A bare URL loses trailing punctuation, as the
// original bot's reading did.
func links(d *markdown.Doc, in func(int) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range d.Links {
		if l.Quoted || !in(l.Line) {
			continue
		}
		u := l.URL
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			continue
		}
		if l.Kind == markdown.LinkBare {
			u = strings.TrimRight(u, ".,;:!?*_")
		}
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
