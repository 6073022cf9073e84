package inferencex

import (
	"context"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The fail-closed answers rows give when an input is missing (RULES.md,
// "Fail-closed policy"): the row says what it could not read, never PASS.

// layoutOf returns the repository layout, or the row's answer when it is
// unknown.
func layoutOf(ctx context.Context, pr *checks.PR) (repo.Layout, *checks.Result) {
	l, err := repo.LayoutFact.Of(ctx, pr)
	if err != nil {
		r := checks.Unverified(checks.T("the repository layout is unknown: "+err.Error(), "仓库布局未知："+checks.Code(err.Error())))
		return repo.Layout{}, &r
	}
	return l, nil
}
