package inferencex

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
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

// changeSetFor returns the change-set model or the row's answer when it
// could not be built.
func changeSetFor(ctx context.Context, pr *checks.PR) (*changeset.Model, *checks.Result) {
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		msg := "change-set model could not be built"
		if err != nil {
			msg = err.Error()
		}
		r := checks.Unverified(checks.T(msg, "无法构建变更集模型："+checks.Code(msg)))
		return nil, &r
	}
	return cs, nil
}

// readableChangeSet is changeSetFor for rows that need the master configs:
// it also fails closed when they could not be read.
func readableChangeSet(ctx context.Context, pr *checks.PR) (*changeset.Model, *checks.Result) {
	cs, bad := changeSetFor(ctx, pr)
	if bad != nil {
		return nil, bad
	}
	if ps := cs.MasterProblems(); len(ps) > 0 {
		r := unreadable(ps)
		return nil, &r
	}
	return cs, nil
}

// changeSetUnavailable is the answer of the rows about speculative decoding,
// recipes and append-only entries when the change set is missing.
func changeSetUnavailable(err error) checks.Result {
	return checks.Unverified(checks.T("change set unavailable: "+errText(err), "变更集不可用："+checks.Code(errText(err))))
}

// unreadable is the answer for inputs the change-set model could not read.
func unreadable(ps []repo.InputProblem) checks.Result {
	t := problemText(ps[0].Path, ps[0].Err)
	if len(ps) > 1 {
		t.EN += fmt.Sprintf(" (+%d more)", len(ps)-1)
		t.ZH += fmt.Sprintf("（另有 %d 项）", len(ps)-1)
	}
	r := checks.Unverified(t)
	for _, p := range ps {
		r.Evidence = append(r.Evidence, checks.Evidence{Label: p.Path, Value: p.Err})
	}
	return r
}

// selectionUnread is the answer of a row about to say N/A: when a master
// config or the changelog could not be read, "nothing affected" is not known.
func selectionUnread(cs *changeset.Model) (checks.Result, bool) {
	ps := cs.MasterAndChangelogProblems()
	if len(ps) == 0 {
		return checks.Result{}, false
	}
	return checks.Unverified(problemText(ps[0].Path, checks.Quote(ps[0].Err, 160))), true
}

// problemText says which input could not be read and why. The reader's
// message stays as it wrote it, in a code span in the Chinese text.
func problemText(path, msg string) checks.Text {
	return checks.T(path+": "+msg, path+"："+checks.Code(msg))
}

// errText prints an error for a reason, "unknown error" for nil.
func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// unreadEffective names the effective files that could not be read or
// parsed, the first with its reason and the others counted: a row that reads
// them must not pass on what it could not see.
func unreadEffective(files []*repo.EffectiveFile) (checks.Text, []checks.Evidence, bool) {
	var bad []*repo.EffectiveFile
	seen := map[string]bool{}
	for _, f := range files {
		if f != nil && f.Err != "" && !seen[f.Path] {
			seen[f.Path] = true
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return checks.Text{}, nil, false
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i].Path < bad[j].Path })
	var ev []checks.Evidence
	for _, f := range bad {
		ev = append(ev, checks.Evidence{Label: f.Path, Value: f.Err})
	}
	why := checks.Quote(strings.TrimPrefix(strings.TrimPrefix(bad[0].Err, "parsing recipe "+bad[0].Path+": "), bad[0].Path+": "), 160)
	t := checks.Text{EN: fmt.Sprintf("%s could not be read (%s)", bad[0].Path, why), ZH: fmt.Sprintf("无法读取 %s（%s）", bad[0].Path, checks.Code(why))}
	return andMore(t, len(bad)-1), ev, true
}
