package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestJSON(t *testing.T) {
	rows := with(baseRows(), 2, checks.Fail, "No qualifying in-PR run; eval results cannot be verified.", "没有符合条件的 PR 内运行；无法验证评测结果。")
	rows[2].Result.Evidence = []checks.Evidence{{Label: "run", URL: "https://github.com/o/r/actions/runs/1"}}
	// Out of order input: output is sorted by check number.
	rows[0], rows[5] = rows[5], rows[0]
	v := verdictFor(rows)
	v.AdvancedTo = newSHA
	v.AffectedConfigs = []string{"qwen3.5-fp8-mi355x-sglang", "dsr1-fp8-h200-trt"}
	b, err := JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "rejected_json", string(b))

	var got struct {
		Verdict     string   `json:"verdict"`
		AssessedSHA string   `json:"assessed_sha"`
		SignOff     string   `json:"signoff"`
		Affected    []string `json:"affected_configs"`
		Checks      []struct {
			Number   int    `json:"number"`
			Name     string `json:"name"`
			Status   string `json:"status"`
			Reason   string `json:"reason"`
			ReasonZH string `json:"reason_zh"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Verdict != "REJECTED" || got.AssessedSHA != testSHA || got.SignOff != testKey || len(got.Checks) != 16 ||
		strings.Join(got.Affected, " ") != "dsr1-fp8-h200-trt qwen3.5-fp8-mi355x-sglang" {
		t.Fatalf("unexpected top level: %+v", got)
	}
	for i, c := range got.Checks {
		if c.Number != i || c.Name != inferencex.Name(i).EN {
			t.Errorf("checks[%d] = %d %q", i, c.Number, c.Name)
		}
	}
	if c := got.Checks[2]; c.Status != "FAIL" || !strings.HasPrefix(c.ReasonZH, "没有") {
		t.Errorf("check 2 = %+v", c)
	}
	order := []string{`"verdict"`, `"assessed_sha"`, `"signoff"`, `"advanced_to"`, `"affected_configs"`, `"checks"`}
	last := -1
	for _, k := range order {
		i := strings.Index(string(b), k)
		if i < last {
			t.Errorf("field %s out of order", k)
		}
		last = i
	}
	// Unknown (the model was not built) and none are told apart.
	for _, tc := range []struct {
		affected []string
		want     string
	}{{nil, `"affected_configs": null`}, {[]string{}, `"affected_configs": []`}} {
		v := verdictFor(baseRows())
		v.AffectedConfigs = tc.affected
		if b, err := JSON(v); err != nil || !strings.Contains(string(b), tc.want) {
			t.Errorf("affected %#v: %v\n%s", tc.affected, err, b)
		}
	}
	if _, err := JSON(verdictFor(append(baseRows(), baseRows()[3]))); err == nil {
		t.Error("JSON accepted a verdict the guard rejects")
	}
}

// inferencexReminder is the InferenceX preset's reminder text, as its
// Remind gives it for a pull request that changes a benchmark script.
func inferencexReminder(t *testing.T) func(checks.ReminderFacts) checks.Text {
	src := &checkstest.Source{FilesValue: []checks.ChangedFile{{Path: "benchmarks/run.sh", Status: "modified"}}}
	pr := checkstest.NewPR(src, checkstest.Fact(repo.LayoutFact, repo.LegacyLayout()))
	rm, ok, err := inferencex.Preset.Remind(t.Context(), pr)
	if err != nil || !ok || rm.Text == nil {
		t.Fatalf("the InferenceX preset sends no reminder: %v, %v", ok, err)
	}
	return rm.Text
}

func TestWelcomeMarkdown(t *testing.T) {
	w := Welcome{Text: inferencexReminder(t), ReminderFacts: checks.ReminderFacts{
		Author:        "contributor-a",
		ShowReview:    true,
		CodeOwnersURL: "https://github.com/o/r/blob/main/.github/CODEOWNERS",
		ChecklistURL:  "https://github.com/o/r/blob/main/.github/PR_REVIEW_CHECKLIST.md",
		SignOffPhrase: "As a PR reviewer and CODEOWNER, I have reviewed this and have",
	}}
	body, err := WelcomeMarkdown(w)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "welcome", body)
	if !strings.HasPrefix(body, WelcomeMarker+"\n") {
		t.Error("marker is not the first line")
	}
	if strings.Count(body, "`"+w.SignOffPhrase+"`") != 2 {
		t.Error("the sign-off phrase must appear verbatim in both languages")
	}

	noReview := w
	noReview.ShowReview, noReview.Author = false, ""
	body, err = WelcomeMarkdown(noReview)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "**Review:**") || strings.Contains(body, "**审核：**") || strings.Contains(body, "@") {
		t.Errorf("review bullet or mention rendered when not wanted:\n%s", body)
	}
	if !strings.Contains(body, "**PR verification:**") || !strings.Contains(body, "**After merging:**") {
		t.Error("fixed bullets missing")
	}

	for name, edit := range map[string]func(*Welcome){
		"bad author":      func(w *Welcome) { w.Author = "a b" },
		"no text":         func(w *Welcome) { w.Text = nil },
		"phrase backtick": func(w *Welcome) { w.SignOffPhrase = "a`b" },
		"review no URL":   func(w *Welcome) { w.CodeOwnersURL = "" },
		"link breakout":   func(w *Welcome) { w.ChecklistURL = "https://x/a) [click](https://evil" },
		"not https":       func(w *Welcome) { w.ChecklistURL = "javascript:alert(1)" },
		"empty text":      func(w *Welcome) { w.Text = func(checks.ReminderFacts) checks.Text { return checks.Text{} } },
	} {
		bad := w
		edit(&bad)
		if _, err := WelcomeMarkdown(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestReplies(t *testing.T) {
	accepted, err := ReuseReplyMarkdown(ReuseReply{CommentID: 555, Accepted: true, PR: 12, RunID: 30123456789, Conclusion: "success"})
	if err != nil {
		t.Fatal(err)
	}
	rejected, err := ReuseReplyMarkdown(ReuseReply{CommentID: 555, Reason: checks.T(
		"run 777 head 1a2b3c4 is not in PR #12's commit list", "运行 777 的头部提交 1a2b3c4 不在 PR #12 的提交列表中")})
	if err != nil {
		t.Fatal(err)
	}
	usage, err := UsageReplyMarkdown(UsageReply{CommentID: 556, Actor: "@member-a", Usage: ReuseUsage})
	if err != nil {
		t.Fatal(err)
	}
	unauth, err := UnauthorizedReplyMarkdown(UnauthorizedReply{CommentID: 557, Actor: "contrib", Command: "/use 555", Need: "association", Associations: []string{"OWNER", "MEMBER", "COLLABORATOR"}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "replies", strings.Join([]string{accepted, rejected, usage, unauth}, "\n---\n"))

	if !strings.HasPrefix(accepted, ReplyMarker(555)+"\n") || !strings.HasPrefix(rejected, ReplyMarker(555)+"\n") {
		t.Error("accepted and rejected replies to one command must share its marker")
	}
	if !strings.Contains(accepted, "Reuse accepted: PR #12, run 30123456789 (success).") ||
		!strings.Contains(accepted, "复用请求已接受：PR #12，运行 30123456789（`success`）。") {
		t.Errorf("accepted reply wording:\n%s", accepted)
	}
	if !strings.Contains(usage, "`/use <run_id>` or `/reuse-sweep-run [run_id]`") {
		t.Errorf("usage reply does not show the syntax as code:\n%s", usage)
	}

	for name, f := range map[string]func() error{
		"reuse no id":        func() error { _, err := ReuseReplyMarkdown(ReuseReply{Accepted: true, PR: 1, RunID: 1}); return err },
		"reuse no reason":    func() error { _, err := ReuseReplyMarkdown(ReuseReply{CommentID: 1}); return err },
		"reuse accepted bad": func() error { _, err := ReuseReplyMarkdown(ReuseReply{CommentID: 1, Accepted: true}); return err },
		"usage empty":        func() error { _, err := UsageReplyMarkdown(UsageReply{CommentID: 1, Actor: "a"}); return err },
		"usage bad actor": func() error {
			_, err := UsageReplyMarkdown(UsageReply{CommentID: 1, Actor: "a b", Usage: ReuseUsage})
			return err
		},
		"unauth need": func() error {
			_, err := UnauthorizedReplyMarkdown(UnauthorizedReply{CommentID: 1, Actor: "a", Command: "/x", Need: "root"})
			return err
		},
		"unauth no assoc": func() error {
			_, err := UnauthorizedReplyMarkdown(UnauthorizedReply{CommentID: 1, Actor: "a", Command: "/x", Need: "association"})
			return err
		},
	} {
		if f() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
