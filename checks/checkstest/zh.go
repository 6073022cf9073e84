package checkstest

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Chinese text is complete when every English word left in it is a
// technical token a translator would keep: code spans, verbatim quotes of
// the repository's or the author's text, URLs, paths, handles, SHAs, config
// keys, model and engine names, acronyms. Everything else is prose someone
// forgot to translate.
var (
	zhCodeSpan = regexp.MustCompile("`+[^`]*`+")
	// Verbatim quotes: "…" (ASCII), “…” and 「…」.
	zhQuote = regexp.MustCompile(`"[^"\n]*"|“[^”\n]*”|「[^」\n]*」`)
	zhURL   = regexp.MustCompile(`https?://\S+`)
	zhHTML  = regexp.MustCompile(`</?[a-zA-Z][^>\n]*>`)
	// A run of ASCII letters, digits and the punctuation of identifiers.
	zhToken = regexp.MustCompile(`[A-Za-z0-9_./@#:=+\-<>\[\]~*$%]+`)
)

// zhTechnical are words a Chinese reader sees in English on purpose:
// product and engine names, and the few terms of the trade that have no
// Chinese rendering in the project's glossary.
var zhTechnical = []string{
	"GitHub", "GitHub's", "Actions", "SGLang", "sglang", "vLLM", "vllm", "TensorRT", "trt", "Dynamo", "dynamo",
	"ATOM", "atom", "DSpark", "EAGLE", "Eagle", "Slurm", "slurm", "Verdict", "CommonMark", "Markdown",
	"InferenceX", "Docker", "PyPI", "Hugging", "Face", "HuggingFace", "cookbook", "recipes", "aiperf",
	// Master-config keys named bare in reasons ("conc 4, 8").
	"conc",
}

// EnglishInChinese returns the English words of zh that are not technical
// tokens, in order, without repeats.
func EnglishInChinese(zh string) []string {
	s := zhCodeSpan.ReplaceAllString(zh, " ")
	s = zhURL.ReplaceAllString(s, " ")
	s = zhHTML.ReplaceAllString(s, " ")
	s = zhQuote.ReplaceAllString(s, " ")
	var out []string
	for _, tok := range zhToken.FindAllString(s, -1) {
		tok = strings.Trim(tok, ".:-<>[]~*")
		if tok == "" || technicalToken(tok) || slices.Contains(out, tok) {
			continue
		}
		out = append(out, tok)
	}
	return out
}

func technicalToken(tok string) bool {
	letters := 0
	for _, r := range tok {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r), strings.ContainsRune("_./@#:=+-<>[]~*$%", r):
			// Identifiers, paths, handles, versions, SHAs, keys: kept as written.
			return true
		}
	}
	if letters <= 1 {
		return true
	}
	if strings.ToUpper(tok) == tok {
		return true // an acronym: PR, MTP, YAML, SKU, TP
	}
	return slices.Contains(zhTechnical, tok)
}
