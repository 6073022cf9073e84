package signoff

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/markdown"
)

// The checklist template is the fenced block under the "Template" heading
// of the checklist document; a sign-off must carry its items. The matcher
// is deterministic: normalized text, a shared opening, or a high token
// overlap make two items the same item.

var mdLinkRE = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^()\s]*(?:\s+"[^"]*")?\)`)

// Errors of ExtractTemplate.
var (
	ErrNoTemplateHeading = errors.New(`no "## Template" heading`)
	ErrNoTemplateBlock   = errors.New(`no fenced code block under the "## Template" heading`)
	ErrNoTemplateItems   = errors.New("the template block has no checkbox items")
)

// ExtractTemplate returns the checkbox items of the first fenced code
// block of the checklist document's "Template" section (its first heading
// that reads "Template", any level, outside code and quotes), nested items
// included (their Depth is relative to the shallowest item). The block's
// content is read as the sign-off that copies it will be: an item inside a
// code block or an HTML comment of the template is no item, and neither is
// one after its Additional detail section heading.
func ExtractTemplate(md string) ([]checks.ChecklistItem, error) {
	d, err := markdown.Parse(md)
	if err != nil {
		return nil, fmt.Errorf("reading the checklist document: %w", err)
	}
	sec := d.Section("template")
	if sec == nil {
		return nil, ErrNoTemplateHeading
	}
	var block *markdown.Code
	for _, c := range d.CodeIn(sec) {
		if c.Fenced && !c.Quoted {
			block = &c
			break
		}
	}
	if block == nil {
		return nil, ErrNoTemplateBlock
	}
	s := Parse(block.Body)
	if s.Unreadable != "" {
		return nil, fmt.Errorf("reading the template block: %s", s.Unreadable)
	}
	items := s.Items
	if len(items) == 0 {
		return nil, ErrNoTemplateItems
	}
	min := items[0].Depth
	for _, it := range items {
		if it.Depth < min {
			min = it.Depth
		}
	}
	for i := range items {
		items[i].Depth -= min
	}
	return items, nil
}

// NormalizeItem is the canonical form two checklist items are
// compared in: markdown links reduced to their text, backticks, "*" and "_"
// dropped, lowercased, every other non-alphanumeric turned into a space,
// whitespace collapsed.
func NormalizeItem(s string) string {
	if strings.Contains(s, "](") { // what every link the expression matches holds
		s = mdLinkRE.ReplaceAllString(s, "$1")
	}
	s = markupDropper.Replace(s)
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return ' '
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// markupDropper drops the inline markup NormalizeItem ignores.
var markupDropper = strings.NewReplacer("`", "", "*", "", "_", "")

// prefixTokens is how many leading tokens, when equal, make two items the
// same item; jaccardMin is the token-set similarity that does.
const (
	prefixTokens = 8
	jaccardMin   = 0.85
)

type normItem struct {
	text   string
	tokens []string
	set    map[string]bool
}

func normItemOf(s string) normItem {
	n := normItem{text: NormalizeItem(s), set: map[string]bool{}}
	n.tokens = strings.Fields(n.text)
	for _, t := range n.tokens {
		n.set[t] = true
	}
	return n
}

func tokenJaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// itemsMatch reports whether a sign-off item is the template item, and a
// score to prefer the closest of several candidates.
func itemsMatch(tpl, got normItem) (bool, float64) {
	if tpl.text == got.text {
		return true, 2
	}
	j := tokenJaccard(tpl.set, got.set)
	if len(tpl.tokens) >= prefixTokens && len(got.tokens) >= prefixTokens &&
		strings.Join(tpl.tokens[:prefixTokens], " ") == strings.Join(got.tokens[:prefixTokens], " ") {
		return true, 1 + j
	}
	return j >= jaccardMin, j
}

// MatchItems pairs template items with sign-off items one to one. It
// returns, for each template item, the index of its sign-off item or -1.
// Exact (normalized) matches are claimed first, then the remaining template
// items in template order each take the closest unclaimed match, so an item
// that shares its opening words with a neighbour cannot steal that
// neighbour's exact copy.
func MatchItems(template, signoff []checks.ChecklistItem) []int {
	tpl := make([]normItem, len(template))
	for i, it := range template {
		tpl[i] = normItemOf(it.Text)
	}
	got := make([]normItem, len(signoff))
	for i, it := range signoff {
		got[i] = normItemOf(it.Text)
	}
	out := make([]int, len(template))
	used := make([]bool, len(signoff))
	for i := range tpl {
		out[i] = -1
		for j := range got {
			if !used[j] && tpl[i].text == got[j].text {
				out[i], used[j] = j, true
				break
			}
		}
	}
	for i := range tpl {
		if out[i] >= 0 {
			continue
		}
		best, bestScore := -1, 0.0
		for j := range got {
			if used[j] {
				continue
			}
			if ok, score := itemsMatch(tpl[i], got[j]); ok && score > bestScore {
				best, bestScore = j, score
			}
		}
		if best >= 0 {
			out[i], used[best] = best, true
		}
	}
	return out
}

// shortNames label template items in reasons. A label applies when every
// key occurs in the normalized item at a word start; the first entry that
// applies wins, so entries for items that mention other items' keywords
// ("agentic ... speculative decoding ... golden AL") come first. Items no
// entry recognises fall back to their first words, so templates this table
// has never seen still get a stable label.
var shortNames = []struct {
	keys  []string
	label string
}{
	{[]string{"pareto"}, "Pareto counts"},
	{[]string{"append only"}, "append-only"},
	// "is served as it ships" (root-layout template) and "runs in the
	// precision it ships in" (e2e template) name the same item.
	{[]string{"it ships"}, "draft served as it ships"},
	{[]string{"golden"}, "golden AL"},
	{[]string{"any of the above"}, "additional reasoning"},
	{[]string{"latest version"}, "latest template"},
	{[]string{"code quality"}, "code quality"},
	{[]string{"pr validation"}, "PR validation"},
	{[]string{"benchmark hack"}, "architecture hacks"},
	{[]string{"chat template"}, "chat templates"},
	{[]string{"deprecated"}, "deprecated models"},
	{[]string{"docker"}, "upstream images"},
	{[]string{"before additional frameworks"}, "engine-first ordering"},
	{[]string{"merged"}, "upstream recipe merged"},
	{[]string{"recipe"}, "upstream recipe"},
	{[]string{"cookbook"}, "upstream recipe"},
	{[]string{"patch"}, "engine patches"},
	{[]string{"waiver"}, "engine patches"},
	{[]string{"evals"}, "evals"},
}

// fallbackSkip are leading words that carry no identity ("Verified that
// the ...").
var fallbackSkip = map[string]bool{"verified": true, "that": true, "i": true, "have": true, "the": true, "this": true, "a": true, "an": true}

// ItemLabel derives the short label reasons use for an item.
func ItemLabel(text string) string {
	n := NormalizeItem(text)
	padded := " " + n
	for _, s := range shortNames {
		all := true
		for _, k := range s.keys {
			if !strings.Contains(padded, " "+k) {
				all = false
				break
			}
		}
		if all {
			return s.label
		}
	}
	toks := strings.Fields(n)
	for len(toks) > 0 && fallbackSkip[toks[0]] {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		toks = strings.Fields(n)
	}
	if len(toks) > 4 {
		toks = toks[:4]
	}
	if len(toks) == 0 {
		return "unnamed item"
	}
	return strings.Join(toks, " ")
}

// maxNamedItems bounds how many labels a reason spells out.
const maxNamedItems = 5

// QuoteLabels renders labels as the spec's rows do: `"a"`, `"a" and "b"`,
// `"a", "b", "c"`; duplicates collapse and long lists end "and N more".
func QuoteLabels(labels []string) string {
	q := quoted(labels)
	switch {
	case len(q) == 2:
		return q[0] + " and " + q[1]
	case len(q) > maxNamedItems+1:
		return strings.Join(q[:maxNamedItems], ", ") + " and " + strconv.Itoa(len(q)-maxNamedItems) + " more"
	}
	return strings.Join(q, ", ")
}

// QuoteLabelsZH is QuoteLabels for the Chinese reason: the labels stay
// verbatim (they quote the template), joined with 、.
func QuoteLabelsZH(labels []string) string {
	q := quoted(labels)
	if len(q) > maxNamedItems+1 {
		return strings.Join(q[:maxNamedItems], "、") + " 等另外 " + strconv.Itoa(len(q)-maxNamedItems) + " 项"
	}
	return strings.Join(q, "、")
}

// quoted is the labels without repeats, each in double quotes.
func quoted(labels []string) []string {
	var uniq []string
	seen := map[string]bool{}
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			uniq = append(uniq, l)
		}
	}
	q := make([]string, len(uniq))
	for i, l := range uniq {
		q[i] = `"` + l + `"`
	}
	return q
}
