package inferencex

import (
	"context"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

// PassingSweep is row 1: a passing sweep (benchmark and eval jobs) ran on a
// commit that is part of the PR (RULES.md, Check 1).
var PassingSweep = &checks.Check{
	Number:   1,
	Name:     checks.Text{EN: "Passing sweep", ZH: "扫描通过"},
	Requires: []checks.Requirement{sweep.SearchFact},
	Run: func(ctx context.Context, pr *checks.PR) checks.Result {
		s, err := sweep.SearchFact.Of(ctx, pr)
		if err != nil {
			return checks.Unverified(checks.T("the sweep search failed: "+err.Error(), "扫描查找失败："+checks.Code(err.Error())))
		}
		return s.Row
	},
}

// chosenSweep returns the run Check 1 chose, if Check 1 passed (it may be
// disabled or fail). Rows calling it require PassingSweep and
// sweep.SearchFact.
func chosenSweep(ctx context.Context, pr *checks.PR) (*sweep.Selection, bool) {
	r, ok := pr.ResultOf(ctx, PassingSweep)
	if !ok || r.Status != checks.Pass {
		return nil, false
	}
	s, err := sweep.SearchFact.Of(ctx, pr)
	return s.Selection, err == nil && s.Selection != nil
}
