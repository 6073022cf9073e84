package serving

import (
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Model families (RULES.md, Check 3): a linked recipe backs a config only
// when it is for the base model the config serves, whichever checkpoint of
// it (quantized, dated or revised) the config runs.

// Family is the base model a config serves.
type Family struct {
	// Name is how reasons print the family ("DeepSeek-R1").
	Name string
	// names are the word sequences that name the family: its name, then the
	// config's model prefix.
	names [][]string
}

// Known reports whether the config says enough to name its family.
func (f Family) Known() bool { return len(f.names) > 0 }

// FamilyOf is the family of c: its model's name (the repository part of the
// `model` path) up to the first qualifier, and its model prefix.
func FamilyOf(c *repo.ConfigEntry) Family {
	var f Family
	name := c.Model
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if segs := familyWords(words(name, false)); len(segs) > 0 {
		orig := words(name, true)[:len(segs)]
		f.Name = strings.Join(orig, "-")
		f.names = append(f.names, segs)
	}
	if p := words(c.ModelPrefix, false); len(p) > 0 {
		f.names = append(f.names, p)
		if f.Name == "" {
			f.Name = c.ModelPrefix
		}
	}
	return f
}

// familyWords keeps a model name's words up to its version: the first word
// with a digit that is not a qualifier ("R1", "Qwen3.5", "K2.5", "V4", the
// "5" of "GLM-5"). A qualifier before any version ends the family as well
// ("gpt-oss-120b"); dates and revisions after the version are dropped with
// everything else that follows it.
func familyWords(ws []string) []string {
	for i, w := range ws {
		switch {
		case qualifier(w):
			return ws[:i]
		case hasDigit(w):
			return ws[:i+1]
		}
	}
	return ws
}

var qualifierRE = regexp.MustCompile(`^(` +
	`\d+(\.\d+)?[bmkt]|a\d+(\.\d+)?b|\d+x\d+(\.\d+)?b` + // sizes: 397b, a17b, 8x7b
	`|(nv|mx)?fp\d+|u?int\d+|bf16|w\d+a\d+|awq|gptq|gguf|q\d+` + // precisions and quantization formats
	`)$`)

// qualifier reports whether a lowercased word qualifies a checkpoint (size,
// precision, quantization format) rather than naming the model.
func qualifier(w string) bool { return qualifierRE.MatchString(w) }

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// words splits s into its alphanumeric words, a dot kept between two digits
// ("Qwen3.5", "K2.5"); lowercased unless keepCase.
func words(s string, keepCase bool) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z', b >= '0' && b <= '9':
			cur.WriteByte(b)
		case b >= 'A' && b <= 'Z':
			if !keepCase {
				b += 'a' - 'A'
			}
			cur.WriteByte(b)
		case b == '.' && i > 0 && i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]):
			cur.WriteByte(b)
		default:
			flush()
		}
	}
	flush()
	return out
}

// NamedIn reports whether s names the family: a run of whole words of s
// spells one of its names, separators aside ("DeepSeek V4", "deepseek-v4",
// "DeepSeekV4" all name DeepSeek-V4; "Qwen3" does not name Qwen3.5).
func (f Family) NamedIn(s string) bool {
	ws := words(s, false)
	for _, n := range f.names {
		want := strings.Join(n, "")
		for i := range ws {
			got := ""
			for j := i; j < len(ws) && len(got) < len(want); j++ {
				got += ws[j]
				if got == want {
					return true
				}
			}
		}
	}
	return false
}

// servedRE finds the model a recipe's command serves: the value of
// --model / --model-path / --served-model-name, or the argument of
// `vllm serve`.
var servedRE = regexp.MustCompile(`(?:--model(?:-path)?|--served-model-name)(?:\s*=\s*|\s+)["']?([A-Za-z0-9][\w.\-]*(?:/[\w.\-]+)?)|\bserve\s+["']?([A-Za-z0-9][\w.\-]*/[\w.\-]+)`)

// titleRE finds a page's title.
var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// RecipeNames are what a fetched recipe says it is for: the link's path, a
// page's title, a pull request's title and changed file paths, and the
// models its commands serve. A page's body is not searched beyond that: its
// navigation lists every other model.
func RecipeNames(l UpstreamLink, f Fetched) []string {
	out := []string{l.URL}
	if m := titleRE.FindStringSubmatch(string(f.Page.Body)); m != nil {
		out = append(out, m[1])
	}
	if l.Kind == "pr" {
		out = append(out, f.PR.Title)
		out = append(out, f.Paths...)
	}
	text := f.Text
	if len(text) > 4<<20 {
		text = text[:4<<20]
	}
	for _, m := range servedRE.FindAllStringSubmatch(text, 200) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// ForFamily reports whether any of a recipe's names names the family.
func ForFamily(fam Family, names []string) bool {
	for _, n := range names {
		if fam.NamedIn(n) {
			return true
		}
	}
	return false
}
