package checks

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	htmlCommentRE = regexp.MustCompile(`(?s)<!--.*?(-->|$)`)
	htmlTagRE     = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	// mentionRE finds what GitHub would turn into a notification: @login
	// and @org/team.
	mentionRE = regexp.MustCompile(`@([A-Za-z0-9])`)
)

// NoMentions makes untrusted text echoed in a comment notify nobody: a word
// joiner after each "@" keeps "@org/team" readable but not a mention. Every
// user-controlled string Verdict echoes (quotes, branch names, reasons,
// quoted configuration) goes through it; Verdict's own mentions of the
// sign-off author are written by the templates, not passed through here.
func NoMentions(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return mentionRE.ReplaceAllString(s, "@\u2060$1")
}

// Quote makes untrusted text safe to quote inside a one-line verdict row:
// HTML comments and tags removed, markdown and angle brackets dropped,
// newlines folded, emoji and control characters removed, double quotes
// replaced, mentions neutralized, and the result cut to max runes with an
// ellipsis.
func Quote(s string, max int) string {
	if len(s) > 4096 {
		s = s[:4096]
	}
	s = htmlCommentRE.ReplaceAllString(s, " ")
	s = htmlTagRE.ReplaceAllString(s, " ")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteRune(' ')
		case r == '"' || r == '`':
			b.WriteRune('\'')
		case strings.ContainsRune("<>*#|[]~\\", r):
			b.WriteRune(' ')
		case r == '\uFFFD' || unicode.IsControl(r) || !unicode.IsPrint(r):
		case r > 0x2000 && (unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || (r >= 0x1F000 && r <= 0x1FAFF) || (r >= 0x2600 && r <= 0x27BF) || r == 0x200D || (r >= 0xFE00 && r <= 0xFE0F)):
		default:
			b.WriteRune(r)
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if rs := []rune(out); len(rs) > max {
		out = strings.TrimSpace(string(rs[:max])) + "…"
	}
	return NoMentions(out)
}

// Code shows s verbatim as one Markdown code span. Reasons use it for text
// that stays as written in both languages (error messages of parsers and
// of GitHub, commands to type, config values): a translator keeps it, and
// Markdown shows it literally. The fence is longer than any backtick run in
// s, so no content can close it early.
func Code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
