package sweep

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// ReuseTarget is the pull request a reuse request is for: the facts
// eligibility needs that the Source does not list.
type ReuseTarget struct {
	Number  int
	HeadRef string
	Labels  []string
}

// ReuseDecision is the answer of ReuseEligibility.
type ReuseDecision struct {
	// Eligible is set when Run may be reused.
	Eligible bool
	// Run is the source run that was validated (the pinned run, or the run
	// auto-selection chose); zero when there was none.
	Run checks.WorkflowRun
	// Artifacts are the names of Run's unexpired reusable artifacts.
	Artifacts []string
	// Reason is one line: why the request is not eligible, or which run it
	// would reuse.
	Reason checks.Text
	// Err is set when evidence could not be read (an API failure other than
	// "not found"); Eligible is then false and Reason says what is missing.
	// Callers may retry: the request was neither accepted nor rejected.
	Err error
}

// ReuseEligibility decides whether a parsed reuse command may reuse a run
// (RULES.md, "Reuse commands"):
// reuse-incompatible labels, then source selection (the pinned run, or the
// newest successful pull_request run of the sweep workflow on the PR's head
// branch whose head is a PR commit and which has reusable artifacts), then
// validation of the chosen run. It reads through src only.
func ReuseEligibility(ctx context.Context, src checks.Source, s *repo.Settings, t ReuseTarget, cmd commands.Reuse) ReuseDecision {
	if s == nil {
		d := repo.Defaults()
		s = &d
	}
	if s.SweepWorkflow == "" {
		// Without it every run would fail the path rule; the preset's
		// workflow is the only sensible reading of "not configured".
		c := *s
		c.SweepWorkflow = repo.Defaults().SweepWorkflow
		s = &c
	}
	for _, bad := range s.ReuseIncompatibleLabels {
		for _, l := range t.Labels {
			if strings.EqualFold(l, bad) {
				return ReuseDecision{Reason: checks.T(
					fmt.Sprintf("PR #%d carries the reuse-incompatible label %s", t.Number, l),
					fmt.Sprintf("PR #%d 带有与复用不兼容的标签 %s", t.Number, l),
				)}
			}
		}
	}
	commits, err := src.Commits(ctx)
	if err != nil {
		return unreadable(fmt.Errorf("listing PR #%d commits: %w", t.Number, err),
			checks.T(fmt.Sprintf("PR #%d's commit list could not be read", t.Number), fmt.Sprintf("无法读取 PR #%d 的提交列表", t.Number)))
	}
	v := runValidator{src: src, s: s, t: t, commits: commits}
	if cmd.Pinned {
		return v.pinned(ctx, cmd)
	}
	return v.autoSelect(ctx)
}

func unreadable(err error, what checks.Text) ReuseDecision {
	return ReuseDecision{Err: err, Reason: checks.Text{
		EN: "could not be verified: " + what.EN + " (" + err.Error() + ")",
		ZH: "无法验证：" + what.ZH + "（" + checks.Code(err.Error()) + "）",
	}}
}

type runValidator struct {
	src     checks.Source
	s       *repo.Settings
	t       ReuseTarget
	commits checks.CommitList
}

func (v runValidator) pinned(ctx context.Context, cmd commands.Reuse) ReuseDecision {
	notFound := ReuseDecision{Reason: checks.T(
		"run "+cmd.RunIDText+" was not found in this repository",
		"在本仓库中找不到运行 "+cmd.RunIDText,
	)}
	if cmd.RunID <= 0 {
		return notFound // GitHub run ids are positive int64s
	}
	run, err := v.src.WorkflowRun(ctx, cmd.RunID)
	if errors.Is(err, checks.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return unreadable(fmt.Errorf("reading run %d: %w", cmd.RunID, err),
			checks.T("run "+cmd.RunIDText+" could not be read", "无法读取运行 "+cmd.RunIDText))
	}
	return v.validate(ctx, run, true)
}

func (v runValidator) autoSelect(ctx context.Context) ReuseDecision {
	wf := path.Base(v.s.SweepWorkflow)
	runs, err := v.src.WorkflowRuns(ctx, wf, checks.RunQuery{Event: "pull_request", Branch: v.t.HeadRef, Status: "completed"})
	if err != nil {
		return unreadable(fmt.Errorf("listing %s runs on %s: %w", wf, v.t.HeadRef, err),
			checks.T("the "+wf+" runs could not be listed", "无法列出 "+wf+" 的运行"))
	}
	for _, r := range runs {
		d := v.validate(ctx, r, false)
		if d.Err != nil {
			return d
		}
		if d.Eligible {
			return d
		}
	}
	// The branch name is the PR author's choice and is echoed in a reply.
	branch := checks.NoMentions(v.t.HeadRef)
	return ReuseDecision{Reason: checks.T(
		fmt.Sprintf("no successful %s pull_request run on branch %s has a head in PR #%d and reusable artifacts; pin a run with `/use <run_id>`", wf, branch, v.t.Number),
		fmt.Sprintf("分支 %s 上没有提交属于 PR #%d、且带有可复用产物的成功 %s pull_request 运行；请用 `/use <run_id>` 指定运行", branch, v.t.Number, wf),
	)}
}

// validate applies the reuse conditions to one run. Pinned runs may have
// failed or been cancelled (fail-fast cancels the rest of a sweep, and the
// completed points are still ingested); an auto-selected run must succeed.
func (v runValidator) validate(ctx context.Context, r checks.WorkflowRun, pinned bool) ReuseDecision {
	id := fmt.Sprint(r.ID)
	reject := func(en, zh string) ReuseDecision { return ReuseDecision{Run: r, Reason: checks.T(en, zh)} }
	if r.Event != "pull_request" {
		return reject("run "+id+" was triggered by "+OrNone(r.Event)+", not pull_request",
			"运行 "+id+" 由 "+OrNone(r.Event)+" 触发，而不是 pull_request")
	}
	if r.Status != "completed" {
		return reject("run "+id+" is "+OrNone(r.Status)+", not completed",
			"运行 "+id+" 的状态为 "+OrNone(r.Status)+"，尚未 completed")
	}
	switch {
	case r.Conclusion == "success":
	case pinned && (r.Conclusion == "failure" || r.Conclusion == "cancelled"):
	case pinned:
		return reject("run "+id+" concluded "+OrNone(r.Conclusion)+"; a pinned run must be success, failure or cancelled",
			"运行 "+id+" 的结论为 "+OrNone(r.Conclusion)+"；指定的运行必须为 success、failure 或 cancelled")
	default:
		return reject("run "+id+" concluded "+OrNone(r.Conclusion)+"; an auto-selected run must be success",
			"运行 "+id+" 的结论为 "+OrNone(r.Conclusion)+"；自动选择的运行必须为 success")
	}
	if r.Path != "" && r.Path != v.s.SweepWorkflow {
		return reject("run "+id+" is from "+r.Path+", not "+v.s.SweepWorkflow,
			"运行 "+id+" 来自 "+r.Path+"，而不是 "+v.s.SweepWorkflow)
	}
	if r.HeadSHA == "" {
		return reject("run "+id+" has no head SHA", "运行 "+id+" 没有头提交 SHA")
	}
	if !v.commits.Has(r.HeadSHA) {
		en := fmt.Sprintf("head %s of run %s is not in PR #%d's commit list", checks.Short(r.HeadSHA), id, v.t.Number)
		zh := fmt.Sprintf("运行 %s 的头提交 %s 不在 PR #%d 的提交列表中", id, checks.Short(r.HeadSHA), v.t.Number)
		if v.commits.Truncated {
			en += " (GitHub lists only the first 250 commits)"
			zh += "（GitHub 只列出前 250 个提交）"
		}
		return reject(en, zh)
	}
	arts, err := v.src.Artifacts(ctx, r.ID)
	if err != nil {
		d := unreadable(fmt.Errorf("listing artifacts of run %d: %w", r.ID, err),
			checks.T("the artifacts of run "+id+" could not be listed", "无法列出运行 "+id+" 的产物"))
		d.Run = r
		return d
	}
	var live, expired []string
	for _, a := range arts {
		if !v.reusable(a.Name) {
			continue
		}
		if a.Expired {
			expired = append(expired, a.Name)
		} else {
			live = append(live, a.Name)
		}
	}
	if len(live) == 0 {
		if len(expired) > 0 {
			return reject("the reusable artifacts of run "+id+" have expired ("+strings.Join(expired, ", ")+")",
				"运行 "+id+" 的可复用产物已过期（"+strings.Join(expired, ", ")+"）")
		}
		return reject("run "+id+" has no reusable artifacts ("+v.wantedArtifacts()+")",
			"运行 "+id+" 没有可复用产物（"+v.wantedArtifacts()+"）")
	}
	return ReuseDecision{
		Eligible:  true,
		Run:       r,
		Artifacts: live,
		Reason: checks.T(
			fmt.Sprintf("run %s (%s) on %s with %s", id, r.Conclusion, checks.Short(r.HeadSHA), strings.Join(live, ", ")),
			fmt.Sprintf("运行 %s（%s），提交 %s，产物 %s", id, r.Conclusion, checks.Short(r.HeadSHA), strings.Join(live, ", ")),
		),
	}
}

func (v runValidator) reusable(name string) bool {
	for _, n := range v.s.ReusableArtifacts {
		if name == n {
			return true
		}
	}
	for _, p := range v.s.ReusableArtifactPrefix {
		if p != "" && strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func (v runValidator) wantedArtifacts() string {
	names := append([]string(nil), v.s.ReusableArtifacts...)
	for _, p := range v.s.ReusableArtifactPrefix {
		names = append(names, p+"*")
	}
	return strings.Join(names, ", ")
}

// OrNone prints an empty run field as "(none)".
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
