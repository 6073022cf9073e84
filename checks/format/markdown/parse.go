package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// MaxBytes bounds the text Parse accepts.
const MaxBytes = 1 << 20

// Parse reads a Markdown text.
func Parse(src string) (*Doc, error) {
	if len(src) > MaxBytes {
		return nil, &Error{Reason: "text is larger than 1 MiB"}
	}
	s := normalize(src)
	if err := checkLimits(s); err != nil {
		return nil, err
	}
	b := []byte(s)
	root := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(b))
	r := &reader{src: b, idx: newLineIndex(s), masked: append([]byte(nil), b...)}
	r.doc.Lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if s == "" {
		r.doc.Lines = nil
	}
	r.maskHTML(root)
	r.walk(root, 0, 0)
	r.sections()
	return &r.doc, nil
}

// normalize turns CRLF and lone CR into LF and NUL bytes and invalid UTF-8
// into U+FFFD, as CommonMark asks for NUL.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	return strings.ToValidUTF8(s, "\uFFFD")
}

type reader struct {
	src, masked []byte
	idx         lineIndex
	doc         Doc
	headings    []heading
}

type heading struct {
	text              string
	level, line, last int
}

// maskHTML blanks inline HTML in a copy of the source, so text lines never
// carry what a comment hides.
func (r *reader) maskHTML(root ast.Node) {
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if h, ok := n.(*ast.RawHTML); ok {
			for i := 0; i < h.Segments.Len(); i++ {
				s := h.Segments.At(i)
				for j := s.Start; j < s.Stop && j < len(r.masked); j++ {
					if r.masked[j] != '\n' {
						r.masked[j] = ' '
					}
				}
			}
		}
		return ast.WalkContinue, nil
	})
}

// walk visits blocks, tracking block-quote and list nesting.
func (r *reader) walk(n ast.Node, quotes, lists int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch x := c.(type) {
		case *ast.Blockquote:
			r.walk(x, quotes+1, lists)
		case *ast.List:
			r.walk(x, quotes, lists)
		case *ast.ListItem:
			r.walk(x, quotes, lists+1)
		case *ast.FencedCodeBlock:
			r.code(x, true, quotes, lists)
		case *ast.CodeBlock:
			r.code(x, false, quotes, lists)
		case *ast.HTMLBlock, *ast.ThematicBreak, *ast.LinkReferenceDefinition:
		case *ast.Heading:
			r.links(x, quotes)
			if quotes == 0 {
				r.heading(x, lists)
			}
		case *ast.Paragraph, *ast.TextBlock:
			r.links(x, quotes)
			if quotes == 0 {
				r.paragraph(x, lists)
			}
		default:
			// Tables and other extension blocks: their links count, their
			// cells are not text lines.
			r.links(x, quotes)
		}
	}
}

func (r *reader) lineText(start, stop int) string {
	return strings.TrimRight(string(r.masked[start:stop]), " \t\n")
}

func (r *reader) textLines(n ast.Node, headingLevel, lists int) {
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		s := ls.At(i)
		line := r.idx.line(s.Start)
		raw := r.doc.Lines[line-1]
		r.doc.Text = append(r.doc.Text, TextLine{
			Line: line, Text: r.lineText(s.Start, s.Stop), Raw: raw,
			Col:     min(max(s.Start-r.idx[line-1], 0), len(raw)),
			Heading: headingLevel, ListDepth: lists,
		})
	}
}

// prose appends the visible inline text of a paragraph or heading.
func (r *reader) prose(n ast.Node) {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := c.(type) {
		case *ast.RawHTML, *ast.Image:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			b.Write(x.Segment.Value(r.src))
			if x.SoftLineBreak() || x.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(x.Value)
		case *ast.AutoLink:
			b.Write(x.Label(r.src))
		}
		return ast.WalkContinue, nil
	})
	r.doc.Prose = append(r.doc.Prose, b.String())
}

func (r *reader) paragraph(n ast.Node, lists int) {
	r.textLines(n, 0, lists)
	r.prose(n)
	cb, ok := n.FirstChild().(*east.TaskCheckBox)
	if !ok || lists == 0 || n.Lines().Len() == 0 {
		return
	}
	ls := n.Lines()
	var body []string
	for i := 0; i < ls.Len(); i++ {
		s := ls.At(i)
		body = append(body, strings.TrimRight(string(r.src[s.Start:s.Stop]), "\n"))
	}
	first := body[0]
	i := strings.IndexByte(first, ']')
	if i < 0 || i+1 < len(first) && first[i+1] != ' ' && first[i+1] != '\t' {
		return // "[x]text": GitHub shows no checkbox without the space
	}
	first = first[i+1:]
	body[0] = first
	r.doc.Tasks = append(r.doc.Tasks, Task{
		Checked: cb.IsChecked,
		Text:    strings.TrimSpace(first),
		Body:    strings.TrimSpace(strings.Join(body, "\n")),
		Depth:   lists - 1,
		Line:    r.idx.line(ls.At(0).Start),
	})
}

func (r *reader) heading(h *ast.Heading, lists int) {
	r.textLines(h, h.Level, lists)
	r.prose(h)
	ls := h.Lines()
	line := r.idx.line(h.Pos())
	var parts []string
	for i := 0; i < ls.Len(); i++ {
		s := ls.At(i)
		parts = append(parts, strings.TrimSpace(string(r.src[s.Start:s.Stop])))
	}
	last := line
	if ls.Len() > 0 {
		line = r.idx.line(ls.At(0).Start)
		last = r.idx.line(ls.At(ls.Len() - 1).Start)
		if !r.atx(ls.At(0).Start) {
			last++ // the setext underline
		}
	}
	r.headings = append(r.headings, heading{text: strings.Join(parts, " "), level: h.Level, line: line, last: last})
}

// atx reports whether the heading text starting at off follows # marks on
// its line (a setext heading's text does not).
func (r *reader) atx(off int) bool {
	i := off - 1
	for i >= 0 && (r.src[i] == ' ' || r.src[i] == '\t') {
		i--
	}
	return i >= 0 && r.src[i] == '#'
}

func (r *reader) code(n ast.Node, fenced bool, quotes, lists int) {
	c := Code{Fenced: fenced, Quoted: quotes > 0, ListDepth: lists}
	ls := n.Lines()
	var body bytes.Buffer
	for i := 0; i < ls.Len(); i++ {
		s := ls.At(i)
		body.Write(s.Value(r.src))
	}
	c.Body = body.String()
	if c.Body != "" && !strings.HasSuffix(c.Body, "\n") {
		c.Body += "\n"
	}
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		if f.Info != nil {
			c.Info = strings.TrimSpace(string(f.Info.Segment.Value(r.src)))
		}
		c.Line = r.idx.line(max(f.Pos(), 0))
		c.EndLine = c.Line
		if ls.Len() > 0 {
			c.EndLine = r.idx.line(ls.At(ls.Len() - 1).Start)
		}
		if next := c.EndLine + 1; next <= len(r.doc.Lines) && isFence(r.doc.Lines[next-1]) {
			c.EndLine = next
		}
	} else if ls.Len() > 0 {
		c.Line = r.idx.line(ls.At(0).Start)
		c.EndLine = r.idx.line(ls.At(ls.Len() - 1).Start)
	}
	r.doc.Code = append(r.doc.Code, c)
}

// isFence reports whether a line (inside any quote or list prefix) is only
// a run of ``` or ~~~.
func isFence(l string) bool {
	t := strings.TrimLeft(l, " \t>")
	t = strings.TrimRight(t, " \t")
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// links collects the links of a block's inline content.
func (r *reader) links(n ast.Node, quotes int) {
	ast.Walk(n, func(x ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := x.(type) {
		case *ast.Link:
			r.addLink(string(l.Destination), l, l.Reference != nil, false, quotes)
		case *ast.Image:
			r.addLink(string(l.Destination), l, l.Reference != nil, true, quotes)
		case *ast.AutoLink:
			label := l.Label(r.src)
			off := r.offsetOf(label, l.Pos())
			k := LinkBare
			if off > 0 && r.src[off-1] == '<' {
				k = LinkAuto
			}
			r.doc.Links = append(r.doc.Links, Link{URL: string(l.URL(r.src)), Kind: k, Text: string(label), Quoted: quotes > 0, Line: r.idx.line(off)})
		}
		return ast.WalkContinue, nil
	})
}

func (r *reader) addLink(url string, n ast.Node, ref, image bool, quotes int) {
	k := LinkInline
	if ref {
		k = LinkReference
	}
	r.doc.Links = append(r.doc.Links, Link{URL: url, Kind: k, Text: r.inlineText(n), Image: image, Quoted: quotes > 0, Line: r.idx.line(max(n.Pos(), 0))})
}

// inlineText is the source of a link's content, from its first to its last
// text segment.
func (r *reader) inlineText(n ast.Node) string {
	start, stop := -1, -1
	ast.Walk(n, func(x ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := x.(*ast.Text); ok && entering {
			if start < 0 || t.Segment.Start < start {
				start = t.Segment.Start
			}
			stop = max(stop, t.Segment.Stop)
		}
		return ast.WalkContinue, nil
	})
	if start < 0 || stop > len(r.src) || start > stop {
		return ""
	}
	return string(r.src[start:stop])
}

// offsetOf finds where a slice of the source starts (goldmark hands out
// sub-slices); fallback when it is a copy.
func (r *reader) offsetOf(b []byte, fallback int) int {
	off := cap(r.src) - cap(b)
	if off >= 0 && off+len(b) <= len(r.src) && bytes.Equal(r.src[off:off+len(b)], b) {
		return off
	}
	return max(fallback, 0)
}

// sections turns the headings into sections: each runs to the line before
// the next heading of the same or a higher level.
func (r *reader) sections() {
	n := len(r.doc.Lines)
	for i, h := range r.headings {
		end := n
		for _, g := range r.headings[i+1:] {
			if g.level <= h.level {
				end = g.line - 1
				break
			}
		}
		s := Section{Heading: h.text, Level: h.level, Line: h.line, EndLine: end}
		if h.last < end {
			s.Body = strings.Join(r.doc.Lines[h.last:end], "\n")
		}
		r.doc.Sections = append(r.doc.Sections, s)
	}
}
