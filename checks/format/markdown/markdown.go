// Package markdown reads GitHub-flavoured Markdown: CommonMark with the GFM
// task list, linkify, table and strikethrough extensions, on goldmark.
//
// Parse gives what the checks read from a comment or a document: the lines
// of ordinary text (paragraphs and headings, list items included) with
// their line numbers, task-list items, sections by heading, links and code
// blocks. Commands and checklist ticks are read from this structure, so
// fenced and indented code blocks, HTML blocks, HTML comments (block and
// inline) and block quotes never carry a text line or a task item; inline
// HTML is blanked out of the text lines it sits in.
//
// It never renders HTML, never follows a link and never executes anything.
// Line endings CRLF and lone CR count as one line break each; NUL bytes and
// invalid UTF-8 become U+FFFD. Input over MaxBytes, or nested deeper than
// the parser can take in bounded time, is an *Error rather than a partial
// reading.
package markdown

import (
	"fmt"
	"sort"
	"strings"
)

// Doc is what Parse read from one Markdown text.
type Doc struct {
	// Lines are the source lines after line-ending normalization; line n
	// is Lines[n-1].
	Lines []string
	Text  []TextLine
	// Prose is the text of each paragraph and heading outside code, HTML
	// and block quotes as GitHub shows it: emphasis and code-span marks
	// gone, a link's text kept and its destination and title (which show
	// only on hover) dropped, line breaks as "\n".
	Prose    []string
	Tasks    []Task
	Sections []Section
	Links    []Link
	Code     []Code
}

// TextLine is one line of a paragraph or heading outside code, HTML and
// block quotes.
type TextLine struct {
	Line int
	// Text is the line inside its block: list markers, indentation and
	// heading markers removed, inline HTML (comments included) replaced by
	// spaces. The checkbox of a task item stays ("[x] …").
	Text string
	// Raw is the whole source line.
	Raw string
	// Col is the byte offset in Raw where Text begins: Raw[:Col] holds the
	// indentation and the list and heading markers, so Raw[:Col]+Text is
	// the line as a reader sees it (inline HTML blanked).
	Col int
	// Heading is the level of a heading line, 0 in a paragraph.
	Heading int
	// ListDepth is 0 outside lists, 1 in an item of a top-level list, and
	// so on. Table cells are not text lines.
	ListDepth int
}

// Task is one task-list item ("- [x] …") outside code, HTML and quotes.
type Task struct {
	Checked bool
	// Text is the rest of the item's first line after the checkbox, as
	// written (backticks, links and emphasis kept), trimmed.
	Text string
	// Body is the item's whole first paragraph after the checkbox, its
	// lines joined by "\n" (a lazy continuation line is part of it).
	Body string
	// Depth is 0 for an item of a top-level list, 1 for an item nested in
	// one, and so on.
	Depth int
	Line  int
}

// Section is a heading and the text under it.
type Section struct {
	// Heading is the heading text as written (inline markup kept).
	Heading string
	Level   int
	// Line is the heading's first line; EndLine the last line before the
	// next heading of the same or a higher level (or the last line).
	Line, EndLine int
	// Body is the source from the line after the heading through EndLine.
	Body string
}

// LinkKind is how a link is written.
type LinkKind int

// Link kinds.
const (
	LinkInline    LinkKind = iota + 1 // [text](url)
	LinkReference                     // [text][ref] with a [ref]: url definition
	LinkAuto                          // <https://…>
	LinkBare                          // a bare URL or www. address (GFM linkify)
)

func (k LinkKind) String() string {
	switch k {
	case LinkInline:
		return "inline"
	case LinkReference:
		return "reference"
	case LinkAuto:
		return "autolink"
	case LinkBare:
		return "bare"
	}
	return fmt.Sprintf("LinkKind(%d)", int(k))
}

// Link is one link outside code and HTML.
type Link struct {
	URL  string
	Kind LinkKind
	// Text is the link text as written; for autolinks and bare URLs, the
	// address as written.
	Text  string
	Image bool
	// Quoted is set for a link inside a block quote.
	Quoted bool
	Line   int
}

// Code is one fenced or indented code block.
type Code struct {
	Fenced bool
	// Info is the info string after the opening fence.
	Info string
	// Body is the content, each line ending in "\n".
	Body string
	// Line is the opening fence (or the first line of an indented block);
	// EndLine the closing fence, or the last line of the block when the
	// fence is not closed.
	Line, EndLine int
	Quoted        bool
	ListDepth     int
}

// Error is a text Parse refuses to read.
type Error struct {
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "markdown: " + e.Reason
	}
	return fmt.Sprintf("markdown: line %d: %s", e.Line, e.Reason)
}

// Section returns the first section whose heading, trimmed and without a
// trailing colon, equals name ignoring case; nil when there is none.
func (d *Doc) Section(name string) *Section {
	for i := range d.Sections {
		h := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.Sections[i].Heading), ":"))
		if strings.EqualFold(h, strings.TrimSpace(name)) {
			return &d.Sections[i]
		}
	}
	return nil
}

// TextIn returns the text lines under section s (its heading excluded).
func (d *Doc) TextIn(s *Section) []TextLine {
	var out []TextLine
	for _, t := range d.Text {
		if t.Line > s.Line && t.Line <= s.EndLine && !(t.Heading > 0 && t.Line == s.Line) {
			out = append(out, t)
		}
	}
	return out
}

// LinksIn returns the links under section s, its heading included.
func (d *Doc) LinksIn(s *Section) []Link {
	var out []Link
	for _, l := range d.Links {
		if l.Line >= s.Line && l.Line <= s.EndLine {
			out = append(out, l)
		}
	}
	return out
}

// CodeIn returns the code blocks that start under section s.
func (d *Doc) CodeIn(s *Section) []Code {
	var out []Code
	for _, c := range d.Code {
		if c.Line > s.Line && c.Line <= s.EndLine {
			out = append(out, c)
		}
	}
	return out
}

// lineIndex maps byte offsets of the normalized source to line numbers.
type lineIndex []int

func newLineIndex(s string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line is the 1-based line holding offset off.
func (x lineIndex) line(off int) int {
	return sort.Search(len(x), func(i int) bool { return x[i] > off })
}
