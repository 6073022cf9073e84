package render

import (
	"fmt"
	"strings"
)

// Withdrawal describes a sign-off that was taken back: its comment deleted
// or its review dismissed.
type Withdrawal struct {
	Key, HeadSHA string
	Author       string
	// By is who deleted or dismissed it ("" when unknown).
	By string
	// How is "deleted" or "dismissed".
	How string
}

// Withdrawn renders the verdict comment of a withdrawn sign-off: the
// bilingual "withdrawn" notice, then the earlier verdict (previous, the body
// of the verdict comment, if any) quoted, as the record of what was
// assessed. It is idempotent: a body that is already withdrawn is returned
// unchanged.
func Withdrawn(w Withdrawal, previous string) (string, error) {
	if err := checkKeySHA(w.Key, w.HeadSHA); err != nil {
		return "", err
	}
	for _, l := range []string{w.Author, w.By} {
		if l != "" && !loginRE.MatchString(l) {
			return "", fmt.Errorf("invalid login %q", l)
		}
	}
	if w.How != "deleted" && w.How != "dismissed" {
		return "", fmt.Errorf("invalid withdrawal %q", w.How)
	}
	header, err := text(EN, "withdrawn.header", nil)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(previous, Marker(w.Key)+"\n"+header+"\n") {
		return previous, nil
	}
	en, zh := previousParts(w.Key, previous)
	var parts [2]string
	for i, l := range langs {
		h, err := text(l, "withdrawn.header", nil)
		if err != nil {
			return "", err
		}
		line, err := text(l, "withdrawn.line", w)
		if err != nil {
			return "", err
		}
		parts[i] = h + "\n\n" + line
		old := en
		if l == ZH {
			old = zh
		}
		if strings.TrimSpace(old) != "" {
			summary, err := text(l, "withdrawn.record", nil)
			if err != nil {
				return "", err
			}
			parts[i] += "\n\n<details>\n<summary>" + summary + "</summary>\n\n" + quote(old) + "\n\n</details>"
		}
	}
	return compose(w.Key, w.HeadSHA, parts[0], parts[1])
}

// previousParts splits an earlier verdict body into its English verdict
// (without marker and footer) and its Chinese verdict (without the
// collapsed block around it).
func previousParts(key, body string) (en, zh string) {
	body, ok := strings.CutPrefix(body, Marker(key)+"\n")
	if !ok {
		return "", ""
	}
	en = EnglishPart(body)
	zh = strings.TrimPrefix(body, en)
	if summary, err := text(ZH, "lang.summary", nil); err == nil {
		zh = strings.TrimPrefix(strings.TrimLeft(zh, "\n"), "<details>\n<summary>"+summary+"</summary>\n")
		zh = strings.TrimSuffix(strings.TrimRight(zh, "\n"), "</details>")
	}
	return strings.TrimSpace(en), strings.TrimSpace(zh)
}

// quote makes text a Markdown block quote, so none of its lines can read
// as a verdict header or a row. Lines are split as the guard splits them
// (every Unicode line boundary), so no boundary hides an unquoted line.
func quote(s string) string {
	lines := splitLines(s)
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}
