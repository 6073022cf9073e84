package inferencex_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

const tplDefault = "dddddddddddddddddddddddddddddddddddddddd"

// currentItems is a synthetic current template in the shape of the
// repository's checklist: 16 top-level items and one nested item ("  "
// prefix).
var currentItems = []string{
	"Verified that right now this is the latest version of [PR_REVIEW_CHECKLIST.md](https://example.com/blob/main/docs/PR_REVIEW_CHECKLIST.md)",
	"Verified that the general code quality meets the project standard and does not regress it.",
	"Verified that this PR has passed PR validation. Please link to the workflow run that shows this.",
	"Verified that this PR passes evals. Please link to the workflow run that shows this.",
	"Verified that speculative decoding PRs use chat templates so that the acceptance distribution matches real traffic",
	"Verified that every draft model and draft head is served as it ships, with no precision override such as SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
	"For agentic workloads: verified that speculative-decoding configs pin the acceptance length from the committed golden AL curve for that model and draft length",
	"Verified against the current [MODELS.md](https://example.com/MODELS.md) that this PR adds no deprecated model or scenario",
	"Verified that the model architecture is not changed with benchmark hacks that remove computation the model normally performs",
	"If a company claims first class vLLM/SGLang support on its hardware, verified that those submissions use the upstream docker repo images",
	"If a company claims first class vLLM/SGLang support on its hardware, verified that those submissions were made before additional frameworks",
	"Verified that every affected vLLM/SGLang production serving configuration in this PR is documented in the upstream recipes or cookbook:",
	"  I linked the corresponding upstream PR and verified that it is **MERGED** before this PR merges",
	"Verified that this PR does not patch the inference engine or serving stack unless a filled-out waiver covers it",
	"If this PR uses `append-only: true`, verified that it only appends new points and leaves every existing point untouched",
	"If any of the above criteria cannot reasonably be satisfied, I have provided additional reasoning below.",
	"Reported measured throughput/E2EL Pareto counts and evidence per affected curve (at least 5 points recommended)",
}

// oldCopySkip are the items a copy of the first template lacks (draft
// precision, append-only, Pareto counts).
var oldCopySkip = map[int]bool{5: true, 14: true, 16: true}

func checkbox(item string, checked bool) string {
	mark := " "
	if checked {
		mark = "x"
	}
	indent := ""
	if strings.HasPrefix(item, "  ") {
		indent, item = "  ", strings.TrimPrefix(item, "  ")
	}
	return fmt.Sprintf("%s- [%s] %s", indent, mark, item)
}

func templateDoc(its []string) string {
	var b strings.Builder
	b.WriteString("# PR Review Checklist\n\nFill this in when you approve.\n\n## Template\n```\n")
	b.WriteString("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n")
	for _, it := range its {
		b.WriteString(checkbox(it, false) + "\n")
	}
	b.WriteString("\n### Additional detail section:\n- insert any additional info here\n\nSigned: `FILL_IN_GITHUB_USERNAME`\n```\n\n## Example\n\n- [ ] not part of the template\n")
	return b.String()
}

// signOffBody renders a filled sign-off: items listed, unchecked[i] leaves
// item i unchecked, detail is the Additional detail text.
func signOffBody(its []string, unchecked map[int]bool, detail string) string {
	var b strings.Builder
	b.WriteString("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n")
	for i, it := range its {
		b.WriteString(checkbox(it, !unchecked[i]) + "\n")
	}
	if detail == "" {
		detail = "- insert any additional info here"
	}
	b.WriteString("### Additional detail section:\n" + detail + "\nSigned: `amd-owner-a`\n")
	return b.String()
}

// stubRow is a row with a fixed result, standing in for the checks Check 5
// reads through PR.ResultOf.
func stubRow(n int, st checks.Status) *checks.Check {
	return &checks.Check{Number: n, Name: inferencex.Name(n), Run: func(context.Context, *checks.PR) checks.Result {
		return checks.Result{Status: st, Reason: checks.T("stub "+string(st), "")}
	}}
}

type tplCase struct {
	name     string
	doc      *string // template document; nil = the current template
	body     string
	statuses map[int]checks.Status // other rows; default PASS
	status   checks.Status
	reason   string
	zh       string // substring of the Chinese reason
	// inject, when set, breaks the source before the rows run.
	inject func(*checkstest.Source)
}

func runTemplateCase(t *testing.T, tc tplCase) checks.Result {
	t.Helper()
	src := &checkstest.Source{}
	l := repo.E2ELayout()
	doc := templateDoc(currentItems)
	if tc.doc != nil {
		doc = *tc.doc
	}
	if doc != "<missing>" {
		src.SetFile(tplDefault, l.Checklist, doc)
	}
	// The stale Chinese copy must never be the source.
	src.SetFile(tplDefault, l.ChecklistZH, templateDoc(currentItems[:3]))
	pr := checkstest.NewPR(src, inferencextest.Preset(l),
		checkstest.Identity("SemiAnalysisAI", "InferenceX", 7),
		func(pr *checks.PR) { pr.DefaultSHA, pr.SignOff = tplDefault, signoff.Parse(tc.body) })
	if tc.inject != nil {
		tc.inject(src)
	}
	var rows []*checks.Check
	for n := 0; n < 16; n++ {
		if n == 5 {
			rows = append(rows, inferencex.ChecklistTemplate)
			continue
		}
		st := checks.Pass
		if v, ok := tc.statuses[n]; ok {
			st = v
		}
		rows = append(rows, stubRow(n, st))
	}
	reg, err := checks.NewRegistry(rows...)
	if err != nil {
		t.Fatal(err)
	}
	out := checks.Run(context.Background(), reg, pr, nil)
	return out[5].Result
}

func TestChecklistTemplateCheck(t *testing.T) {
	all := signOffBody(currentItems, nil, "")
	var oldCopy []string
	for i, it := range currentItems {
		if !oldCopySkip[i] {
			oldCopy = append(oldCopy, it)
		}
	}
	drift := append([]string(nil), currentItems...)
	drift[0] = "Verified that right now this is the latest version of [PR_REVIEW_CHECKLIST.md](https://example.com/edit/main/docs/PR_REVIEW_CHECKLIST.md)"
	drift[8] = "Verified that the model's architecture is not changed with benchmark hacks that remove computation the model normally performs"
	drift[12] = "  I linked the corresponding upstream PR and verified that it is MERGED before this PR merges"
	drift[3] = "Verified that this PR passes evals.   Please link to the workflow run that shows this!"
	// Same first eight words, different ending.
	drift[13] = "Verified that this PR does not patch the engine, the serving stack or the container unless a complete waiver covers the patch"
	const path = "inferencex-e2e/docs/PR_REVIEW_CHECKLIST.md"
	noHeading := "# Checklist\n```\n- [ ] x\n```\n"
	missing := "<missing>"
	na := func(ns ...int) map[int]checks.Status {
		m := map[int]checks.Status{}
		for _, n := range ns {
			m[n] = checks.NA
		}
		return m
	}

	tests := []tplCase{
		{name: "all present and checked", body: all, status: checks.Pass,
			reason: "All 17 current template items present and checked.", zh: "全部 17 个条目"},
		{name: "wording drift passes", body: signOffBody(drift, nil, ""), status: checks.Pass,
			reason: "All 17 current template items present and checked."},
		{name: "S3 first-template copy is stale", body: signOffBody(oldCopy, nil, ""), status: checks.Fail,
			reason: `Stale checklist: missing "draft served as it ships", "append-only", "Pareto counts" items; copy the current ` + path + ".",
			zh:     `缺少 "draft served as it ships"、"append-only"、"Pareto counts" 条目`},
		{name: "two missing items", body: signOffBody(append(append([]string(nil), currentItems[:14]...), currentItems[15]), nil, ""), status: checks.Fail,
			reason: `Stale checklist: missing "append-only" and "Pareto counts" items; copy the current ` + path + "."},
		{name: "missing nested item", body: signOffBody(append(append([]string(nil), currentItems[:12]...), currentItems[13:]...), nil, ""), status: checks.Fail,
			reason: `Stale checklist: missing "upstream recipe merged" item; copy the current ` + path + "."},
		{name: "no checklist at all", body: "As a PR reviewer and CODEOWNER, LGTM", status: checks.Fail,
			reason: "No checklist items found in the sign-off; copy the current " + path + "."},
		{name: "append-only unchecked, Check 12 N/A", body: signOffBody(currentItems, map[int]bool{14: true}, ""), statuses: na(12), status: checks.Pass,
			reason: `All 17 current template items present; unchecked "append-only" item is not applicable.`},
		{name: "append-only unchecked, Check 12 applies", body: signOffBody(currentItems, map[int]bool{14: true}, ""), status: checks.Fail,
			reason: `Unchecked items without explanation: "append-only".`, zh: "未勾选且未说明"},
		{name: "conditional items excused by N/A rows", body: signOffBody(currentItems, map[int]bool{6: true, 14: true, 16: true}, ""),
			statuses: na(11, 12, 14), status: checks.Pass,
			reason: `All 17 current template items present; unchecked "golden AL", "append-only", "Pareto counts" items are not applicable.`},
		{name: "golden AL unchecked, Check 11 applies", body: signOffBody(currentItems, map[int]bool{6: true}, ""), statuses: na(12, 14), status: checks.Fail,
			reason: `Unchecked items without explanation: "golden AL".`},
		{name: "any-of-the-above unchecked, nothing needs an exception", body: signOffBody(currentItems, map[int]bool{15: true}, ""), status: checks.Pass,
			reason: `All 17 current template items present; unchecked "additional reasoning" item is not applicable.`},
		{name: "any-of-the-above unchecked while another row warns", body: signOffBody(currentItems, map[int]bool{15: true}, ""),
			statuses: map[int]checks.Status{14: checks.Warn}, status: checks.Fail,
			reason: `Unchecked items without explanation: "additional reasoning".`},
		{name: "any-of-the-above unchecked while only advisory reuse/description rows warn", body: signOffBody(currentItems, map[int]bool{15: true}, ""),
			statuses: map[int]checks.Status{4: checks.Warn, 15: checks.Warn}, status: checks.Pass,
			reason: `All 17 current template items present; unchecked "additional reasoning" item is not applicable.`},
		{name: "unconditional items unchecked without explanation", body: signOffBody(currentItems, map[int]bool{1: true, 12: true}, ""), status: checks.Fail,
			reason: `Unchecked items without explanation: "code quality" and "upstream recipe merged".`},
		{name: "unchecked with explanation needs review", body: signOffBody(currentItems, map[int]bool{3: true}, "- evals are private for this vendor; see https://example.com/x"), status: checks.Fail,
			reason: `Needs human review: unchecked items explained only in the Additional detail section: "evals".`, zh: "需要人工审核"},
		{name: "template unreadable", doc: &missing, body: all, status: checks.Fail,
			reason: "could not be verified: checklist template " + path + "@ddddddd is unreadable: " + path + "@" + tplDefault + ": not found"},
		{name: "template without heading", doc: &noHeading, body: all, status: checks.Fail,
			reason: "could not be verified: checklist template " + path + `@ddddddd: no "## Template" heading`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runTemplateCase(t, tc)
			if r.Status != tc.status || r.Reason.EN != tc.reason {
				t.Errorf("got %s %q\nwant %s %q", r.Status, r.Reason.EN, tc.status, tc.reason)
			}
			if tc.zh != "" && !strings.Contains(r.Reason.ZH, tc.zh) {
				t.Errorf("zh %q lacks %q", r.Reason.ZH, tc.zh)
			}
			if r.Reason.ZH == r.Reason.EN {
				t.Errorf("zh reason untranslated: %q", r.Reason.ZH)
			}
		})
	}
}

func TestChecklistTemplateCheckDeclaresOtherRows(t *testing.T) {
	c := inferencex.ChecklistTemplate
	want := map[int]bool{}
	for n := 0; n < 16; n++ {
		if n != 5 {
			want[n] = true
		}
	}
	for _, r := range c.Requires {
		row, ok := r.(*checks.Check)
		if !ok {
			continue // a fact
		}
		n := row.Number
		if !want[n] {
			t.Errorf("Requires has unexpected row %d", n)
		}
		delete(want, n)
	}
	if len(want) != 0 {
		t.Errorf("Requires misses rows %v", want)
	}
	for _, o := range inferencex.Registry().Checks() {
		for _, r := range o.Requires {
			if row, ok := r.(*checks.Check); ok && row.Number == 5 {
				t.Errorf("check %d waits for check 5, which waits for it: deadlock", o.Number)
			}
		}
	}
}

func TestChecklistTemplateEvidence(t *testing.T) {
	r := runTemplateCase(t, tplCase{body: signOffBody(currentItems, map[int]bool{1: true}, "")})
	if len(r.Evidence) == 0 || r.Evidence[0].URL != "https://github.com/SemiAnalysisAI/InferenceX/blob/"+tplDefault+"/inferencex-e2e/docs/PR_REVIEW_CHECKLIST.md" {
		t.Fatalf("template evidence = %+v", r.Evidence)
	}
	found := false
	for _, e := range r.Evidence {
		if strings.HasPrefix(e.Label, "Unchecked (sign-off line 3)") {
			found = true
		}
	}
	if !found {
		t.Errorf("no evidence for the unchecked item: %+v", r.Evidence)
	}
}
