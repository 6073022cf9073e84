package details

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// reasons renders the Markdown of a row's reason (code spans, emphasis,
// links) as HTML through goldmark's safe defaults: links with a dangerous
// scheme lose their target. Raw HTML, which the defaults would drop with
// its text, is shown as the text it is; an image is shown as its text.
var reasons = goldmark.New(goldmark.WithRendererOptions(
	renderer.WithNodeRenderers(util.Prioritized(literalHTML{}, 100))))

// maxReasonBytes bounds what one reason renders; longer text is cut.
const maxReasonBytes = 8 << 10

// markdown renders one reason, without the paragraph around a single line.
func markdown(src string) template.HTML {
	if len(src) > maxReasonBytes {
		src = src[:maxReasonBytes] + "…"
	}
	var b bytes.Buffer
	if err := reasons.Convert([]byte(src), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	out := strings.TrimSpace(b.String())
	if inner, ok := strings.CutPrefix(out, "<p>"); ok && strings.Count(out, "<p>") == 1 {
		out = strings.TrimSuffix(inner, "</p>")
	}
	return template.HTML(out)
}

// literalHTML renders raw HTML (inline and blocks) escaped, and an image
// as its text: a reason never loads anything.
type literalHTML struct{}

func (literalHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		return ast.WalkContinue, nil // the alt text is its children
	})
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := 0; i < segs.Len(); i++ {
				s := segs.At(i)
				template.HTMLEscape(w, s.Value(source))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			lines := n.Lines()
			w.WriteString("<p>")
			for i := 0; i < lines.Len(); i++ {
				s := lines.At(i)
				template.HTMLEscape(w, s.Value(source))
			}
			if b := n.(*ast.HTMLBlock); b.HasClosure() {
				template.HTMLEscape(w, b.ClosureLine.Value(source))
			}
			w.WriteString("</p>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}
