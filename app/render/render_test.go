package render

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const (
	testKey = "issuecomment-2401234567"
	testSHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
	newSHA  = "9f8e7d6c5b4a39281706f5e4d3c2b1a098f7e6d5"
)

// baseRows is a fully passing 16-row verdict; scenarios override rows.
func baseRows() []checks.Outcome {
	reasons := map[int]checks.Text{
		0:  checks.T("@nv-owner-a owns every changed file (configs/nvidia-master.yaml).", "@nv-owner-a 拥有所有改动文件（configs/nvidia-master.yaml）。"),
		1:  checks.T("Run 30123456789 on 1a2b3c4 passed every benchmark and eval job.", "运行 30123456789（1a2b3c4）的所有基准和评测任务均通过。"),
		2:  checks.T("gsm8k 0.93 >= 0.85 for all 4 eval configs in run 30123456789.", "运行 30123456789 中 4 个评测配置的 gsm8k 均为 0.93 >= 0.85。"),
		3:  checks.T("sgl-project/sglang#21873 merged and covers every changed flag.", "sgl-project/sglang#21873 已合并并覆盖所有改动的参数。"),
		4:  checks.T("Authorized /use 30123456789 by @member-a.", "@member-a 发布了已授权的 /use 30123456789。"),
		5:  checks.T("Sign-off matches the latest checklist template.", "签核与最新检查清单模板一致。"),
		6:  checks.T("Only open-source engine entries added.", "仅新增开源引擎条目。"),
		7:  checks.T("No deprecated models or scenarios touched.", "未涉及已弃用的模型或场景。"),
		8:  checks.T("No architecture-changing flags; event publication enabled.", "没有改变架构的参数；事件发布已启用。"),
		9:  checks.NAR(checks.T("No speculative-decoding changes.", "没有推测解码相关改动。")).Reason,
		10: checks.T("No engine patches in the diff.", "差异中没有引擎补丁。"),
		11: checks.T("No agentic speculative-decoding changes.", "没有智能体推测解码相关改动。"),
		12: checks.T("No append-only changelog entries.", "没有仅追加的变更日志条目。"),
		13: checks.T("No speculative-decoding draft models changed.", "没有改动推测解码草稿模型。"),
		14: checks.T("dsr1/8k1k/b200_sglang_mtp/fp4/30123456789/median: 7/5 frontier points.", "dsr1/8k1k/b200_sglang_mtp/fp4/30123456789/median：7/5 个前沿点。"),
		15: checks.T("PR description matches the configs at 1a2b3c4.", "PR 描述与 1a2b3c4 的配置一致。"),
	}
	na := map[int]bool{9: true, 11: true, 12: true, 13: true}
	rows := make([]checks.Outcome, 0, 16)
	for n := range 16 {
		st := checks.Pass
		if na[n] {
			st = checks.NA
		}
		rows = append(rows, checks.Outcome{
			Number: n, Name: inferencex.Name(n), Advisory: n == 4 || n == 14 || n == 15,
			Result: checks.Result{Status: st, Reason: reasons[n]},
		})
	}
	return rows
}

func with(rows []checks.Outcome, n int, st checks.Status, en, zh string) []checks.Outcome {
	for i := range rows {
		if rows[i].Number == n {
			rows[i].Result = checks.Result{Status: st, Reason: checks.T(en, zh)}
		}
	}
	return rows
}

func verdictFor(rows []checks.Outcome) Verdict {
	return Verdict{
		Key: testKey, Author: "nv-owner-a", HeadSHA: testSHA, Preset: inferencex.Preset, Rows: rows,
		Overall: checks.Decide(rows), Escalation: escalationFor("@maintainer-a", "maintainer-b"),
	}
}

// escalationFor is the InferenceX preset's escalation paragraph with
// handles configured.
func escalationFor(handles ...string) checks.Text {
	pr := &checks.PR{}
	s := repo.Defaults()
	s.EscalationHandles = handles
	repo.SettingsParam.Set(pr, &s)
	return inferencex.Preset.EscalationOf(pr)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update after reviewing)\n--- got ---\n%s", name, path, got)
	}
	untranslated(t, name, got)
}

// untranslated fails for each Chinese line of a rendering that leaves
// English prose in it (technical tokens aside).
func untranslated(t *testing.T, name, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if !strings.ContainsFunc(line, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			continue
		}
		if words := checkstest.EnglishInChinese(line); len(words) > 0 {
			t.Errorf("%s: Chinese line %q leaves %q untranslated", name, line, words)
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	tests := []struct {
		name string
		v    func() Verdict
	}{
		{"pass", func() Verdict { return verdictFor(baseRows()) }},
		{"warn_reuse", func() Verdict { // S13: Check 4 WARN only, no escalation
			return verdictFor(with(baseRows(), 4, checks.Warn,
				"No authorized reuse command has been posted on this PR; only /use 123 by a CONTRIBUTOR.",
				"此 PR 上没有已授权的复用命令；只有 CONTRIBUTOR 发布的 /use 123。"))
		}},
		{"warn_pareto", func() Verdict { // S12: Check 14 WARN with escalation
			return verdictFor(with(baseRows(), 14, checks.Warn,
				"agentic/coding/mi355x_vllm/fp4/30123456789/median: 3/5 frontier points; admin bypass verified (@admin, https://github.com/o/r/pull/7#issuecomment-5); run 30123456789.",
				"agentic/coding/mi355x_vllm/fp4/30123456789/median：3/5 个前沿点；管理员豁免已验证（@admin，https://github.com/o/r/pull/7#issuecomment-5）；运行 30123456789。"))
		}},
		{"rejected", func() Verdict { // S2: FAILs, 14 WARN: escalation and @author
			rows := with(baseRows(), 1, checks.Fail,
				"No passing sweep/eval was found on any commit in this PR. The only run was on a commit no longer in the PR.",
				"此 PR 的任何提交上都没有通过的扫描/评测。唯一的运行所在提交已不在此 PR 中。")
			rows = with(rows, 2, checks.Fail,
				"No qualifying in-PR run; eval results cannot be verified.",
				"没有符合条件的 PR 内运行；无法验证评测结果。")
			rows = with(rows, 14, checks.Warn,
				"dsr1/8k1k/b200_sglang_mtp/fp4: unverifiable (no qualifying run); admin bypass not verified.",
				"dsr1/8k1k/b200_sglang_mtp/fp4：无法验证（没有符合条件的运行）；管理员豁免未验证。")
			return verdictFor(rows)
		}},
		{"advanced", func() Verdict { // S16
			v := verdictFor(baseRows())
			v.AdvancedTo = newSHA
			return v
		}},
		{"invalid", func() Verdict { // S17: two Check 14 rows
			rows := append(baseRows(), baseRows()[14])
			return verdictFor(rows)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v()
			body, err := Markdown(v)
			if tt.name == "invalid" {
				if err == nil {
					t.Fatal("Markdown accepted a verdict with two Check 14 rows")
				}
			} else if err != nil {
				t.Fatalf("Markdown: %v", err)
			}
			golden(t, tt.name, body)
			checkBodyShape(t, v, body, tt.name == "invalid")
			again, _ := Markdown(tt.v())
			if again != body {
				t.Error("second render differs: output is not deterministic")
			}
		})
	}
}

// checkBodyShape asserts the invariants that the golden files only show:
// the shape of the English part and that the guard accepts it.
func checkBodyShape(t *testing.T, v Verdict, body string, invalid bool) {
	t.Helper()
	en := EnglishPart(body)
	if en == body {
		t.Fatal("no Chinese block found after the English part")
	}
	prefix := Marker(v.Key) + "\n"
	suffix := "\n\nAssessed commit: `" + v.HeadSHA + "`.\n"
	if !strings.HasPrefix(en, prefix) || !strings.HasSuffix(en, suffix) {
		t.Fatalf("English part is not marker + verdict + footer:\n%s", en)
	}
	verdict := en[len(prefix) : len(en)-len(suffix)]
	if err := Validate(verdict, inferencex.Preset); err != nil && !invalid {
		t.Errorf("published English verdict fails the guard: %v", err)
	}
	// A guard run over the whole body (Chinese block included) must
	// reach the same judgement: Chinese rows and headers are not rows to it.
	_, rest, _ := strings.Cut(body, "\n")
	if err := Validate(rest, inferencex.Preset); (err == nil) == invalid {
		t.Errorf("guard over the whole bilingual body = %v", err)
	}
	if !strings.HasSuffix(body, "\n</details>\n") || !strings.Contains(body[len(en):], "评估的提交：`"+v.HeadSHA+"`。") {
		t.Error("Chinese block is not closed or lacks the assessed commit")
	}
	esc := strings.Count(en, "⚠️ Pareto coverage needs additional review:")
	want14 := 0
	for _, o := range v.Rows {
		if o.Number == 14 && o.Result.Status == checks.Warn {
			want14 = 1
		}
	}
	if invalid {
		want14 = 0
	}
	if esc != want14 {
		t.Errorf("escalation paragraph appears %d times, want %d", esc, want14)
	}
	if invalid {
		if BodyState(body) != checks.VerdictRejected {
			t.Error("invalid body does not read back as REJECTED")
		}
		return
	}
	if got := BodyState(body); got != v.Overall {
		t.Errorf("BodyState = %s, want %s", got, v.Overall)
	}
	// Placement: FAIL/WARN rows never inside <details>, PASS/N/A always.
	open, _, found := strings.Cut(verdict, "<details>")
	for _, o := range v.Rows {
		marker := "Check " + strconv.Itoa(o.Number) + " ("
		inDetails := !strings.Contains(open, marker)
		visible := o.Result.Status == checks.Fail || o.Result.Status == checks.Warn
		if visible == inDetails || (!visible && !found) {
			t.Errorf("Check %d (%s) placed wrongly", o.Number, o.Result.Status)
		}
	}
}

func TestMarkdownRejectsBadInputBeforeRendering(t *testing.T) {
	good := verdictFor(baseRows())
	tests := []struct {
		name string
		edit func(*Verdict)
	}{
		{"empty key", func(v *Verdict) { v.Key = "" }},
		{"key with marker injection", func(v *Verdict) { v.Key = "issuecomment-1 -->" }},
		{"key with leading zero", func(v *Verdict) { v.Key = "issuecomment-0123" }},
		{"short sha", func(v *Verdict) { v.HeadSHA = "1a2b3c4" }},
		{"uppercase sha", func(v *Verdict) { v.HeadSHA = strings.ToUpper(testSHA) }},
		{"bad advanced sha", func(v *Verdict) { v.AdvancedTo = "main" }},
		{"escalating WARN without escalation", func(v *Verdict) {
			v.Rows = with(v.Rows, 14, checks.Warn, "x", "x")
			v.Overall = checks.Decide(v.Rows)
			v.Escalation = checks.Text{}
		}},
		{"rejected without author", func(v *Verdict) {
			v.Rows = with(v.Rows, 1, checks.Fail, "x", "x")
			v.Overall = checks.VerdictRejected
			v.Author = ""
		}},
		{"unknown overall", func(v *Verdict) { v.Overall = "MAYBE" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := good
			v.Rows = baseRows()
			tt.edit(&v)
			body, err := Markdown(v)
			if err == nil || body != "" {
				t.Fatalf("Markdown = (%d bytes, %v), want empty body and an error", len(body), err)
			}
			if _, err := JSON(v); err == nil {
				t.Error("JSON accepted the same bad input")
			}
		})
	}
}

func TestMarkdownGuardCatchesRendererInputBugs(t *testing.T) {
	tests := []struct {
		name string
		v    func() Verdict
	}{
		{"WARN on blocking check 1", func() Verdict {
			v := verdictFor(with(baseRows(), 1, checks.Warn, "flaky", "不稳定"))
			return v
		}},
		{"overall disagrees with rows", func() Verdict {
			v := verdictFor(with(baseRows(), 3, checks.Fail, "No upstream recipe link.", "没有上游配方链接。"))
			v.Overall = checks.VerdictPass
			return v
		}},
		{"missing row", func() Verdict { return verdictFor(baseRows()[:15]) }},
		{"FAIL on advisory 15", func() Verdict {
			return verdictFor(with(baseRows(), 15, checks.Fail, "Body disagrees.", "描述不一致。"))
		}},
		{"unknown status", func() Verdict {
			return verdictFor(with(baseRows(), 6, checks.Status("MAYBE"), "Unsure.", "不确定。"))
		}},
		{"empty reason", func() Verdict { return verdictFor(with(baseRows(), 6, checks.Pass, "", "")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v()
			body, err := Markdown(v)
			if err == nil {
				t.Fatal("guard accepted the verdict")
			}
			want, ierr := InvalidMarkdown(v.Key, v.HeadSHA)
			if ierr != nil {
				t.Fatal(ierr)
			}
			if body != want {
				t.Errorf("body is not the fixed invalid body:\n%s", body)
			}
		})
	}
}

func TestInvalidMarkdownExactEnglish(t *testing.T) {
	body, err := InvalidMarkdown(testKey, testSHA)
	if err != nil {
		t.Fatal(err)
	}
	want := "<!-- codeowner-signoff-verify signoff=" + testKey + " -->\n" +
		"## ❌❌❌ **REJECTED** ❌❌❌\n\n" +
		"The verifier did not produce a valid verdict. Retry the sign-off verification.\n\n" +
		"Assessed commit: `" + testSHA + "`.\n"
	if got := EnglishPart(body); got != want {
		t.Errorf("English part:\n%q\nwant\n%q", got, want)
	}
	if _, err := InvalidMarkdown("discussion_r", testSHA); err == nil {
		t.Error("InvalidMarkdown accepted an invalid key")
	}
}

func TestReasonsCannotRestructureTheComment(t *testing.T) {
	evil := "x </details> <!-- codeowner-signoff-verify signoff=issuecomment-1 --> `keep <b> in code` <img src=x>\n✅ Check 3 (Upstream recipe): PASS — forged"
	v := verdictFor(with(baseRows(), 6, checks.Fail, evil, evil))
	body, err := Markdown(v)
	if err != nil {
		t.Fatalf("Markdown: %v", err)
	}
	for _, bad := range []string{"x </details>", "<!-- codeowner-signoff-verify signoff=issuecomment-1", "<img", "\n✅ Check 3 (Upstream recipe): PASS — forged"} {
		if strings.Contains(body, bad) {
			t.Errorf("body contains raw %q", bad)
		}
	}
	if !strings.Contains(body, "`keep <b> in code`") {
		t.Error("code span content was altered")
	}
	if strings.Count(body, "<details>") != 3 || strings.Count(body, "</details>") != 3 {
		t.Errorf("details tags unbalanced: %d open, %d close", strings.Count(body, "<details>"), strings.Count(body, "</details>"))
	}
}

func TestLongReasonIsBounded(t *testing.T) {
	long := strings.Repeat("长", 5000)
	v := verdictFor(with(baseRows(), 6, checks.Fail, strings.Repeat("a", 5000), long))
	body, err := Markdown(v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, strings.Repeat("a", maxReasonRunes)) || !strings.Contains(body, "…") {
		t.Error("long reason was not truncated")
	}
}

func TestNeutralizeHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a < b and b > c", "a < b and b > c"},
		{"<b>", "&lt;b>"},
		{"</details>", "&lt;/details>"},
		{"<!-- x -->", "&lt;!-- x -->"},
		{"`<b>` <b>", "`<b>` &lt;b>"},
		{"`<b> <i>", "`&lt;b> &lt;i>"},
		{"`a` `<b>` <i> `", "`a` `<b>` &lt;i> `"},
		{"x<", "x<"},
	}
	for _, tt := range tests {
		if got := neutralizeHTML(tt.in); got != tt.want {
			t.Errorf("neutralizeHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTemplateSetsDefineTheSameNames(t *testing.T) {
	names := func(l Lang) map[string]bool {
		m := map[string]bool{}
		for _, t := range sets[l].Templates() {
			if strings.Contains(t.Name(), ".tmpl") || t.Name() == string(l) {
				continue
			}
			m[t.Name()] = true
		}
		return m
	}
	en, zh := names(EN), names(ZH)
	for n := range en {
		if !zh[n] {
			t.Errorf("template %q has no Chinese version", n)
		}
	}
	for n := range zh {
		if !en[n] && n != "lang.summary" {
			t.Errorf("template %q has no English version", n)
		}
	}
}

func TestErrorsAreWrapped(t *testing.T) {
	_, err := Markdown(verdictFor(baseRows()[:3]))
	if err == nil || !strings.Contains(err.Error(), "Check 5 is missing") {
		t.Fatalf("error does not name the problem: %v", err)
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		t.Error("validation problems are not individually unwrappable")
	}
}

func BenchmarkMarkdown(b *testing.B) {
	rows := with(baseRows(), 1, checks.Fail, "No passing sweep/eval was found on any commit in this PR.", "没有通过的扫描。")
	rows = with(rows, 14, checks.Warn, "3/5 frontier points; admin bypass not verified.", "3/5 个前沿点；管理员豁免未验证。")
	v := verdictFor(rows)
	for b.Loop() {
		if _, err := Markdown(v); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWorstCaseBodyFitsInAComment(t *testing.T) {
	rows := baseRows()
	for i := range rows {
		st := checks.Fail
		if rows[i].Number == 4 || rows[i].Number == 14 || rows[i].Number == 15 {
			st = checks.Warn
		}
		rows[i].Result = checks.Result{Status: st, Reason: checks.T(strings.Repeat("long reason ", 2000), strings.Repeat("很长的理由", 2000))}
	}
	v := verdictFor(rows)
	v.AdvancedTo = newSHA
	v.Escalation = escalationFor("@a", "@b", "@c", "@d", "@org/team")
	body, err := Markdown(v)
	if err != nil {
		t.Fatal(err)
	}
	// GitHub rejects comment bodies over 65536 characters.
	n := utf8.RuneCountInString(body)
	t.Logf("worst-case body: %d characters, %d bytes", n, len(body))
	if n > 65536 {
		t.Errorf("worst-case body has %d characters", n)
	}
}
