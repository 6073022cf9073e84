package checks

import (
	"context"
	"fmt"
	"sync"
)

// SweepCheck is row 1 of the InferenceX preset: a passing sweep (benchmark
// and eval jobs) on a commit that is part of the PR.
func SweepCheck() Check { return row(1, runSweep) }

// SweepSelection is the run Check 1 chose, handed to Checks 2 and 14 through
// Result.Data so that they assess exactly that run.
type SweepSelection struct {
	RunID   int64
	RunURL  string
	HeadSHA string // the in-PR commit the run's check runs are on
	// Benchmark and Eval are the run's deduplicated benchmark- and
	// eval-group check runs, sorted by name.
	Benchmark []CheckRun
	Eval      []CheckRun
	// Truncated is set when the PR's commit list hit GitHub's 250 cap.
	Truncated bool
}

// PriorSweep returns the run chosen by Check 1, if Check 1 passed. Checks
// reading it must list 1 in After.
func PriorSweep(pr *PR) (*SweepSelection, bool) {
	r, ok := pr.Prior(1)
	if !ok || r.Status != Pass {
		return nil, false
	}
	s, ok := r.Data.(*SweepSelection)
	return s, ok && s != nil
}

// sweepWindow is how many commits' check runs are fetched at once. Commits
// are judged newest first and the first qualifying one wins, so fetching in
// windows lets the check stop early while staying deterministic: a window is
// judged only once all of it has arrived, in commit order.
const sweepWindow = 4

type commitRuns struct {
	runs []CheckRun
	err  error
}

func runSweep(ctx context.Context, pr *PR) Result {
	cl, err := pr.Source.Commits(ctx)
	if err != nil {
		return Unverified(T("could not list the PR's commits: "+err.Error(), "无法列出 PR 的提交："+err.Error()))
	}
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
	for start := 0; start < len(shas); start += sweepWindow {
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
				return Unverified(T(
					fmt.Sprintf("check runs of commit %s are unreadable: %v", Short(sha), cr.err),
					fmt.Sprintf("无法读取提交 %s 的检查运行：%v", Short(sha), cr.err)))
			}
			for _, g := range groupByRun(pr.Settings, cr.runs) {
				ok, why := g.verdict(pr.Settings.RequireEvalGroup)
				if ok {
					return sweepPass(pr, sha, g, cl.Truncated, capEN, capZH)
				}
				if newest == nil {
					newest = &failedSweep{sha: sha, group: g, why: why}
				}
			}
		}
	}
	en := "No passing sweep/eval was found on any commit in this PR. Run a passing full sweep on a current commit or re-anchor with /use <run_id>."
	zh := "在此 PR 的任何提交上都未找到通过的扫描/评测。请在当前提交上运行一次完整且通过的扫描，或使用 /use <run_id> 重新锚定。"
	var ev []Evidence
	if newest != nil {
		en += fmt.Sprintf(" Newest sweep: run %d on %s, %s.", newest.group.RunID, Short(newest.sha), newest.why.EN)
		zh += fmt.Sprintf(" 最新的扫描：提交 %s 上的运行 %d，%s。", Short(newest.sha), newest.group.RunID, newest.why.ZH)
		ev = append(ev, Evidence{Label: "newest sweep run", URL: newest.group.RunURL, Value: fmt.Sprint(newest.group.RunID)})
	} else {
		en += " No benchmark or eval job ran on any of its commits."
		zh += " 其任何提交上都没有运行过基准测试或评测作业。"
	}
	ev = append(ev, Evidence{Label: "commits examined", Value: fmt.Sprint(len(shas))})
	return FailR(T(en+capEN, zh+capZH), ev...)
}

type failedSweep struct {
	sha   string
	group *SweepGroup
	why   Text
}

func sweepPass(pr *PR, sha string, g *SweepGroup, truncated bool, capEN, capZH string) Result {
	what, whatZH := "benchmark + eval jobs", "基准测试与评测作业"
	if countExecuted(g.Eval) == 0 {
		what, whatZH = "benchmark jobs (no eval group required)", "基准测试作业（配置不要求评测组）"
	}
	res := PassR(T(
		fmt.Sprintf("Green %s on in-PR commit %s (run %d).%s", what, Short(sha), g.RunID, capEN),
		fmt.Sprintf("PR 内提交 %s 上的%s全部通过（运行 %d）。%s", Short(sha), whatZH, g.RunID, capZH)),
		Evidence{Label: "run", URL: g.RunURL, Value: fmt.Sprint(g.RunID)},
		Evidence{Label: "commit", Value: sha},
		Evidence{Label: "executed jobs", Value: fmt.Sprintf("%d benchmark, %d eval", countExecuted(g.Benchmark), countExecuted(g.Eval))},
	)
	res.Data = &SweepSelection{
		RunID: g.RunID, RunURL: g.RunURL, HeadSHA: sha,
		Benchmark: g.Benchmark, Eval: g.Eval, Truncated: truncated,
	}
	return res
}

func countExecuted(rs []CheckRun) int {
	n := 0
	for _, r := range rs {
		if r.Executed() {
			n++
		}
	}
	return n
}
