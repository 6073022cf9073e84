package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"text/template"

	"github.com/verdict-bot/verdict/templates"
)

// Lang selects one language's template set.
type Lang string

const (
	EN Lang = "en"
	ZH Lang = "zh"
)

// langs are the languages every comment is written in, in output order.
var langs = []Lang{EN, ZH}

// sets holds one parsed template set per language. The embedded files are
// part of the binary, so a parse failure is a build defect: it panics at
// init and every test catches it.
var sets = func() map[Lang]*template.Template {
	m := map[Lang]*template.Template{}
	for _, l := range langs {
		names, err := fs.Glob(templates.FS, "*."+string(l)+".tmpl")
		if err != nil || len(names) == 0 {
			panic(fmt.Sprintf("render: no %s templates embedded", l))
		}
		t := template.New(string(l)).Option("missingkey=error")
		m[l] = template.Must(t.ParseFS(templates.FS, names...))
	}
	return m
}()

// text executes the named template of language l and returns its output with
// surrounding blank lines removed, so template files may be laid out for
// readability without leaking whitespace into comments.
func text(l Lang, name string, data any) (string, error) {
	var b bytes.Buffer
	if err := sets[l].ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("executing %s template %q: %w", l, name, err)
	}
	return strings.Trim(b.String(), "\n"), nil
}

// chineseBlock wraps already rendered Chinese text in the collapsed
// <details><summary>中文</summary> block that follows every English comment.
func chineseBlock(zh string) (string, error) {
	summary, err := text(ZH, "lang.summary", nil)
	if err != nil {
		return "", err
	}
	return "<details>\n<summary>" + summary + "</summary>\n\n" + zh + "\n\n</details>\n", nil
}
