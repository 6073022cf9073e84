package sweep

import (
	"context"
	"fmt"
	"sync"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Search is the outcome of looking for the passing sweep of a PR: Check
// 1's row and, when a sweep qualified, the run Checks 2 and 14 assess
// (RULES.md, Check 1).
type Search struct {
	Row       checks.Result
	Selection *Selection
}

// SearchFact is the sweep search of the PR: its commits judged newest
// first, the first with a qualifying sweep winning.
var SearchFact = checks.NewFact("passing sweep", nil, findSweep)

// sweepWindow is how many commits' check runs are fetched at once. Commits
// are judged newest first and the first qualifying one wins, so fetching in
// windows lets the check stop early while staying deterministic: a window is
// judged only once all of it has arrived, in commit order.
const sweepWindow = 4

type commitRuns struct {
	runs []checks.CheckRun
	err  error
}

// findSweep judges the PR's commits newest first; the first commit with a
// qualifying sweep wins.
func findSweep(ctx context.Context, pr *checks.PR) (Search, error) {
	fail := func(r checks.Result) (Search, error) { return Search{Row: r}, nil }
	cl, err := pr.Source.Commits(ctx)
	if err != nil {
		return fail(checks.Unverified(checks.T("could not list the PR's commits: "+err.Error(), "无法列出 PR 的提交："+checks.Code(err.Error()))))
	}
	settings := repo.SettingsParam.Get(pr)
	// Newest first. H is an in-PR commit even when the capped list omits it.
	shas := make([]string, 0, len(cl.Commits)+1)
	if !cl.Has(pr.HeadSHA) && pr.HeadSHA != "" {
		shas = append(shas, pr.HeadSHA)
	}
	for i := len(cl.Commits) - 1; i >= 0; i-- {
		shas = append(shas, cl.Commits[i].SHA)
	}
	capEN, capZH := "", ""
	if cl.Truncated {
		capEN = " The PR's commit list is capped at 250 commits; commits beyond the cap were not examined."
		capZH = " PR 的提交列表上限为 250 个提交；超出上限的提交未被检查。"
	}

	var newest *failedSweep
	examined := len(shas)
	for start := 0; start < len(shas); start += sweepWindow {
		if start == sweepWindow {
			// The newest commits found no sweep: skip the older ones
			// nothing ran on, which a long PR mostly has, instead of
			// reading each one's check runs.
			shas = append(shas[:start:start], withChecks(ctx, pr.Source, shas[start:])...)
			if start >= len(shas) {
				break
			}
		}
		end := min(start+sweepWindow, len(shas))
		got := make([]commitRuns, end-start)
		var wg sync.WaitGroup
		for i := start; i < end; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				rs, err := pr.Source.CheckRuns(ctx, shas[i])
				got[i-start] = commitRuns{rs, err}
			}(i)
		}
		wg.Wait()
		for i, cr := range got {
			sha := shas[start+i]
			if cr.err != nil {
				// A newer commit we cannot read might hold the passing
				// sweep; choosing an older one would depend on the error.
				return fail(checks.Unverified(checks.T(
					fmt.Sprintf("check runs of commit %s are unreadable: %v", checks.Short(sha), cr.err),
					fmt.Sprintf("无法读取提交 %s 的检查运行：%s", checks.Short(sha), checks.Code(cr.err.Error())))))
			}
			for _, g := range GroupByRun(settings, cr.runs) {
				ok, why := g.Qualifies(settings.RequireEvalGroup)
				if ok {
					return sweepPass(sha, g, cl.Truncated, capEN, capZH), nil
				}
				if newest == nil {
					newest = &failedSweep{sha: sha, group: g, why: why}
				}
			}
		}
	}
	en := "No passing sweep/eval was found on any commit in this PR. Run a passing full sweep on a current commit or re-anchor with `/use <run_id>`."
	zh := "在此 PR 的任何提交上都未找到通过的扫描/评测。请在当前提交上运行一次完整且通过的扫描，或使用 `/use <run_id>` 重新锚定。"
	var ev []checks.Evidence
	if newest != nil {
		en += fmt.Sprintf(" Newest sweep: run %d on %s, %s.", newest.group.RunID, checks.Short(newest.sha), newest.why.EN)
		zh += fmt.Sprintf(" 最新的扫描：提交 %s 上的运行 %d，%s。", checks.Short(newest.sha), newest.group.RunID, newest.why.ZH)
		ev = append(ev, checks.Evidence{Label: "newest sweep run", URL: newest.group.RunURL, Value: fmt.Sprint(newest.group.RunID)})
	} else {
		en += " No benchmark or eval job ran on any of its commits."
		zh += " 其任何提交上都没有运行过基准测试或评测作业。"
	}
	ev = append(ev, checks.Evidence{Label: "commits examined", Value: fmt.Sprint(examined)})
	return fail(checks.FailR(checks.T(en+capEN, zh+capZH), ev...))
}

// withChecks is shas (in order) without the commits the source says no
// check ran on. When the source cannot tell, all of them: reading each is
// slower but decides the same.
func withChecks(ctx context.Context, src checks.Source, shas []string) []string {
	has, err := src.CommitsWithChecks(ctx, shas)
	if err != nil {
		return shas
	}
	var out []string
	for _, sha := range shas {
		if v, ok := has[sha]; !ok || v {
			out = append(out, sha)
		}
	}
	return out
}

type failedSweep struct {
	sha   string
	group *Group
	why   checks.Text
}

func sweepPass(sha string, g *Group, truncated bool, capEN, capZH string) Search {
	what, whatZH := "benchmark + eval jobs", "基准测试与评测作业"
	if CountExecuted(g.Eval) == 0 {
		what, whatZH = "benchmark jobs (no eval group required)", "基准测试作业（配置不要求评测组）"
	}
	res := checks.PassR(checks.T(
		fmt.Sprintf("Green %s on in-PR commit %s (run %d).%s", what, checks.Short(sha), g.RunID, capEN),
		fmt.Sprintf("PR 内提交 %s 上的%s全部通过（运行 %d）。%s", checks.Short(sha), whatZH, g.RunID, capZH)),
		checks.Evidence{Label: "run", URL: g.RunURL, Value: fmt.Sprint(g.RunID)},
		checks.Evidence{Label: "commit", Value: sha},
		checks.Evidence{Label: "executed jobs", Value: fmt.Sprintf("%d benchmark, %d eval", CountExecuted(g.Benchmark), CountExecuted(g.Eval))},
	)
	return Search{Row: res, Selection: &Selection{
		RunID: g.RunID, RunURL: g.RunURL, HeadSHA: sha,
		Benchmark: g.Benchmark, Eval: g.Eval, Truncated: truncated,
	}}
}
