package signoff

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

func TestExtractChecklistTemplate(t *testing.T) {
	doc := strings.Join([]string{
		"# Review checklist",
		"```",
		"- [ ] an item in a code block before the heading is not the template",
		"```",
		"## Template",
		"Copy this:",
		"~~~~text",
		"As a PR reviewer and CODEOWNER, I have reviewed this and have:",
		"- [ ] first item",
		"  - [ ] nested item",
		"* [ ] star bullet item",
		"```",
		"- [ ] an item in a code block of the template is not an item",
		"```",
		"- [ ] still inside: a shorter fence of another kind does not close",
		"<!--",
		"- [ ] nor is one in an HTML comment",
		"-->",
		"~~~~",
		"### Additional detail section:",
		"- [ ] a second block is ignored",
	}, "\n")
	items, err := ExtractTemplate(doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, strings.Repeat(">", it.Depth)+it.Text)
	}
	want := []string{"first item", ">nested item", "star bullet item", "still inside: a shorter fence of another kind does not close"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items = %q, want %q", got, want)
	}

	for name, tc := range map[string]struct {
		doc  string
		want error
	}{
		"no heading":              {"# Title\n```\n- [ ] x\n```\n", ErrNoTemplateHeading},
		"heading without block":   {"## Template\ntext\n## Example\n```\n- [ ] x\n```\n", ErrNoTemplateBlock},
		"block without items":     {"## Template\n```\nnothing to check\n```\n", ErrNoTemplateItems},
		"translated heading only": {"## 模板\n```\n- [ ] x\n```\n", ErrNoTemplateHeading},
		"heading inside code":     {"```\n## Template\n```\n```\n- [ ] x\n```\n", ErrNoTemplateHeading},
		"heading inside a quote":  {"> ## Template\n\n```\n- [ ] x\n```\n", ErrNoTemplateHeading},
		"only a quoted block":     {"## Template\n> ```\n> - [ ] x\n> ```\n", ErrNoTemplateBlock},
		"only an indented block":  {"## Template\n\n    - [ ] x\n", ErrNoTemplateBlock},
		"items only in code":      {"## Template\n````\n```\n- [ ] x\n```\n````\n", ErrNoTemplateItems},
	} {
		if _, err := ExtractTemplate(tc.doc); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
	// An unclosed fence runs to the end of the document.
	if items, err := ExtractTemplate("## Template\n```\n- [ ] a\n- [x] b"); err != nil || len(items) != 2 {
		t.Errorf("unclosed fence: %v %v", items, err)
	}
}

func TestNormalizeChecklistText(t *testing.T) {
	for in, want := range map[string]string{
		"Verified that this is the latest [PR_REVIEW_CHECKLIST.md](https://x/blob/main/a.md)": "verified that this is the latest prreviewchecklist md",
		"verified it is **MERGED** before `append-only: true`":                                "verified it is merged before append only true",
		"  Spaces\tand   tabs — dashes / slashes  ":                                           "spaces and tabs dashes slashes",
		"![img](u) [a](b \"title\")":                                                          "img a",
		"vLLM/SGLang (TRT-LLM, ATOM, etc.)":                                                   "vllm sglang trt llm atom etc",
	} {
		if got := NormalizeItem(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func items(texts ...string) []checks.ChecklistItem {
	out := make([]checks.ChecklistItem, len(texts))
	for i, s := range texts {
		out[i] = checks.ChecklistItem{Text: s, Checked: true, Line: i + 1}
	}
	return out
}

func TestMatchChecklist(t *testing.T) {
	const (
		img   = "If a company claims that they support vLLM/SGLang as first class engines, verified images come from the upstream docker repo"
		order = "If a company claims that they support vLLM/SGLang as first class upstream engines, verified that submission came before additional frameworks"
		long  = "Verified that the model architecture is not changed with benchmark hacks such as overrides that skip layers on models that do not support it natively"
	)
	tests := []struct {
		name     string
		template []checks.ChecklistItem
		signoff  []checks.ChecklistItem
		want     []int
	}{
		{"identical", items("a b c", "d e f"), items("a b c", "d e f"), []int{0, 1}},
		{"reordered", items("a b c", "d e f"), items("d e f", "a b c"), []int{1, 0}},
		{"markup differences", items("Verified `x` is **MERGED** [here](http://a)"), items("verified x is MERGED here"), []int{0}},
		{"short items need equality", items("verified evals"), items("verified evals pass"), []int{-1}},
		{"first eight tokens", items("one two three four five six seven eight nine"), items("one two three four five six seven eight ten eleven twelve"), []int{0}},
		{"jaccard drift", items(long), items(long + " today"), []int{0}},
		{"typo fixed", items("Verified the north star princple holds for every optimization used in production here"),
			items("Verified the north star principle holds for every optimization used in production here"), []int{0}},
		{"too different", items(long), items("Verified that nothing changed"), []int{-1}},
		{"one to one", items("a b c", "a b c"), items("a b c"), []int{0, -1}},
		{"shared prefix does not steal an exact copy", items(img, order), items(order, img), []int{1, 0}},
		{"shared prefix matches the missing neighbour's sibling only once", items(img, order), items(order), []int{-1, 0}},
		{"empty sign-off", items("a"), nil, []int{-1}},
		{"empty template", nil, items("a"), []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MatchItems(tc.template, tc.signoff); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MatchChecklist = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestChecklistShortName(t *testing.T) {
	for in, want := range map[string]string{
		"Verified that every draft model and draft head is served as it ships (no SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE)":                       "draft served as it ships",
		"For agentic workloads: verified that speculative-decoding configs use the golden AL curve for the draft length":                  "golden AL",
		"If this PR uses `append-only: true`, verified that existing points are untouched":                                                "append-only",
		"Reported measured throughput/E2EL Pareto counts per affected curve":                                                              "Pareto counts",
		"Confirmed that every draft model and draft head runs in the precision it ships in (no SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE override)": "draft served as it ships",
		"If any of the above criteria cannot reasonably be satisfied, I have provided additional reasoning below.":                        "additional reasoning",
		"Verified that this PR passes evals. Please link to the workflow.":                                                                "evals",
		"Verified that the model architecture isn't changed with benchmark hacks; FLOPs at lower precision pass evals":                    "architecture hacks",
		"Verified that the dashboard screenshots render in dark mode":                                                                     "dashboard screenshots render in",
		"Verified that": "verified that",
		"!!!":           "unnamed item",
		"Docs updated":  "docs updated",
		"I linked the upstream recipe PR and verified that it is **MERGED**": "upstream recipe merged",
	} {
		if got := ItemLabel(in); got != want {
			t.Errorf("ItemLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuoteLabels(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"a"}, `"a"`},
		{[]string{"append-only", "Pareto counts"}, `"append-only" and "Pareto counts"`},
		{[]string{"draft served as it ships", "append-only", "Pareto counts"}, `"draft served as it ships", "append-only", "Pareto counts"`},
		{[]string{"x", "x", "y"}, `"x" and "y"`},
		{[]string{"1", "2", "3", "4", "5", "6"}, `"1", "2", "3", "4", "5", "6"`},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8"}, `"1", "2", "3", "4", "5" and 3 more`},
	} {
		if got := QuoteLabels(tc.in); got != tc.want {
			t.Errorf("QuoteLabels(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzMatchChecklist(f *testing.F) {
	f.Add("## Template\n```\n- [ ] Verified a b c\n  - [ ] nested d e f\n```\n", "- [x] Verified a b c\n- [ ] nested d e f\n")
	f.Add("## Template\n~~~\n- [ ] [link](u) `code` **bold**\n~~~", "* [X] link code bold")
	f.Add("## template\n````\n- [ ] x\n```\n````\n", "")
	f.Fuzz(func(t *testing.T, doc, body string) {
		tpl, err := ExtractTemplate(doc)
		if err != nil {
			if tpl != nil {
				t.Fatalf("items with error %v", err)
			}
			return
		}
		got := Parse(body).Items
		m := MatchItems(tpl, got)
		if len(m) != len(tpl) {
			t.Fatalf("len(match) = %d, want %d", len(m), len(tpl))
		}
		used := map[int]bool{}
		for i, j := range m {
			if j < -1 || j >= len(got) || (j >= 0 && used[j]) {
				t.Fatalf("bad match %d -> %d (%v)", i, j, m)
			}
			if j >= 0 {
				used[j] = true
			}
			if ItemLabel(tpl[i].Text) == "" {
				t.Fatalf("empty short name for %q", tpl[i].Text)
			}
		}
		// The template matched against itself pairs every item.
		for i, j := range MatchItems(tpl, tpl) {
			if j < 0 {
				t.Fatalf("template item %d %q does not match itself", i, tpl[i].Text)
			}
		}
	})
}
