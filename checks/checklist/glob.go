package checklist

import (
	"path"
	"strings"
)

// Path patterns are slash-separated: * and ? and [...] match within one
// segment (as path.Match), ** matches any number of whole segments, and a
// pattern without a slash matches the file's name in any directory, as
// in .gitignore and CODEOWNERS.

// validGlob reports a pattern matchGlob accepts.
func validGlob(g string) bool {
	if g == "" || strings.HasPrefix(g, "/") || strings.Contains(g, `\`) {
		return false
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil || seg == "" {
			return false
		}
	}
	return true
}

// matchGlob reports whether the repository path p matches pattern g.
func matchGlob(g, p string) bool {
	if !strings.Contains(g, "/") {
		g = "**/" + g
	}
	return matchSegs(strings.Split(g, "/"), strings.Split(p, "/"))
}

// matchSegs matches pattern segments g against path segments p. It is a
// table over (pattern, path) positions, so patterns with many ** stay
// linear in their product rather than exponential.
func matchSegs(g, p []string) bool {
	// ok[j] is whether g[i:] matches p[j:], for the current i, going back.
	ok := make([]bool, len(p)+1)
	ok[len(p)] = true
	for i := len(g) - 1; i >= 0; i-- {
		next := make([]bool, len(p)+1)
		if g[i] == "**" {
			// ** matches p[j:k] for any k >= j: next[j] = ok[j] || next[j+1].
			for j := len(p); j >= 0; j-- {
				next[j] = ok[j] || (j < len(p) && next[j+1])
			}
		} else {
			for j := 0; j < len(p); j++ {
				m, err := path.Match(g[i], p[j])
				next[j] = err == nil && m && ok[j+1]
			}
		}
		ok = next
	}
	return ok[0]
}

// matchAny reports whether p matches one of patterns.
func matchAny(patterns []string, p string) bool {
	for _, g := range patterns {
		if matchGlob(g, p) {
			return true
		}
	}
	return false
}
