package commands

import (
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks/format/markdown"
)

// Commands are read from the Markdown structure of a comment, as GitHub
// renders it, and each grammar is then applied to whole lines, as the
// original bot's regexps were. A line can hold a command only when it is a
// line of ordinary paragraph text with nothing else on it:
//
//   - not in a fenced or indented code block, an HTML block or an HTML
//     comment (inline or over several lines), a block quote (a lazy
//     continuation line of a quote included) or a table;
//   - not a heading (ATX or setext);
//   - nothing before the command but spaces and tabs: a list item's first
//     line ("- /use 1") is not a command, while a later line of the item
//     that starts with the command is, as it was for the line grammar;
//   - no inline HTML on the line: a command line is plain source text, so
//     nothing hidden can complete or change it.
//
// A body the Markdown reader refuses (see markdown.Parse) carries no
// command.

// horizontal is the whitespace a command line may be indented with.
const horizontal = " \t"

// commandLines returns the lines of body that may hold a command, in order,
// normalized (CRLF and lone CR are line breaks).
func commandLines(body string) []string {
	d, err := markdown.Parse(body)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range d.Text {
		if isCommandLine(t) {
			out = append(out, t.Raw)
		}
	}
	return out
}

// isCommandLine reports whether a text line is plain paragraph text with
// only indentation before it.
func isCommandLine(t markdown.TextLine) bool {
	if t.Heading != 0 || strings.Trim(t.Raw[:t.Col], horizontal) != "" {
		return false
	}
	// Text is the line with inline HTML blanked; any difference from the
	// source means the line holds some.
	return strings.TrimRight(t.Raw[t.Col:], horizontal) == t.Text
}

// proseLines returns the text of every line of ordinary text of body
// (paragraphs, list items and headings outside code, HTML and quotes, with
// inline HTML blanked), or nil when the reader refuses the body.
func proseLines(body string) []string {
	d, err := markdown.Parse(body)
	if err != nil {
		return nil
	}
	out := make([]string, len(d.Text))
	for i, t := range d.Text {
		out[i] = t.Text
	}
	return out
}

// matching returns the submatches of re on each line it matches, in order.
func matching(lines []string, re *regexp.Regexp) [][]string {
	var out [][]string
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			out = append(out, m)
		}
	}
	return out
}
