package repo

import (
	"regexp"
	"strings"
)

// Waiver is a parsed engine-patch waiver (RULES.md, Check 10).
type Waiver struct {
	Path string
	Text string
	// The four required parts, found by heading (case-insensitive).
	WhatPatched bool
	WhyUpstream bool
	Upstream    bool // an upstream section with ≥1 github.com link
	Removal     bool
}

var githubLinkRE = regexp.MustCompile(`https?://(www\.)?github\.com/\S+`)

// ParseWaiver reads a waiver's sections by their headings: "patched",
// "why"/"cannot", "upstream" (with at least one github.com link in it) and
// "removal".
func ParseWaiver(path, text string) Waiver {
	w := Waiver{Path: path, Text: text}
	var head string
	var body []string
	flush := func() {
		h := strings.ToLower(head)
		b := strings.TrimSpace(strings.Join(body, "\n"))
		if head == "" || b == "" {
			return
		}
		switch {
		case strings.Contains(h, "removal"):
			w.Removal = true
		case strings.Contains(h, "why") || strings.Contains(h, "cannot"):
			w.WhyUpstream = true
		case strings.Contains(h, "upstream"):
			if githubLinkRE.MatchString(b) {
				w.Upstream = true
			}
		case strings.Contains(h, "patched"):
			w.WhatPatched = true
		}
	}
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			flush()
			head, body = strings.TrimLeft(t, "# "), nil
			continue
		}
		body = append(body, l)
	}
	flush()
	return w
}

// Missing lists the required parts the waiver lacks.
func (w Waiver) Missing() []string {
	var out []string
	if !w.WhatPatched {
		out = append(out, "what is patched")
	}
	if !w.WhyUpstream {
		out = append(out, "why the upstream image cannot run it")
	}
	if !w.Upstream {
		out = append(out, "upstream github.com links")
	}
	if !w.Removal {
		out = append(out, "removal plan")
	}
	return out
}

// Mentions reports whether the waiver names the script: its repository
// path, or its path relative to the project root.
func (w Waiver) Mentions(path, root string) bool {
	if strings.Contains(w.Text, path) {
		return true
	}
	if root != "" {
		if rel, ok := strings.CutPrefix(path, root); ok && strings.Contains(w.Text, rel) {
			return true
		}
	}
	return false
}
