package checklist

import (
	"context"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// verifierRow is a row that verifies the items bound to one kind: each
// item is judged on its own, and the row fails with the first item that
// fails (counting the others), is unverified when an item could not be,
// and passes naming what each item showed.
func verifierRow(n int, name checks.Text, kind string, judge func(ctx context.Context, pr *checks.PR, it Item) checks.Result) *checks.Check {
	return &checks.Check{
		Number: n,
		Name:   name,
		Run: func(ctx context.Context, pr *checks.PR) checks.Result {
			items := bound(pr, kind)
			if len(items) == 0 {
				return checks.NAR(checks.T("no checklist item is bound to verify: "+kind, "没有清单项绑定到 "+checks.Code("verify: "+kind)))
			}
			var fails, unverified []checks.Result
			var passEN, passZH []string
			var ev []checks.Evidence
			for _, it := range items {
				r := judge(ctx, pr, it)
				// checks.Unverified's reasons open with its phrase.
				missing := r.Status == checks.Fail && strings.HasPrefix(r.Reason.EN, unverifiedEN)
				r.Reason = checks.T(quoteItem(it)+": "+r.Reason.EN, quoteItem(it)+"："+r.Reason.ZH)
				ev = append(ev, r.Evidence...)
				switch {
				case missing:
					unverified = append(unverified, r)
				case r.Status == checks.Fail:
					fails = append(fails, r)
				case r.Status == checks.Pass:
					passEN, passZH = append(passEN, r.Reason.EN), append(passZH, r.Reason.ZH)
				}
			}
			switch {
			case len(fails) > 0:
				// Each item is a claim of its own: name every one that
				// fails (a few), then count the rest.
				return checks.FailR(joined(fails, maxNamed).AndMore(len(fails)+len(unverified)-min(len(fails), maxNamed)), ev...)
			case len(unverified) > 0:
				return checks.FailR(joined(unverified, maxNamed).AndMore(len(unverified)-min(len(unverified), maxNamed)), ev...)
			case len(passEN) == 0:
				return checks.NAR(checks.T("no bound item applies to this change", "没有适用于本次变更的绑定项"), ev...)
			}
			return checks.PassR(checks.T(strings.Join(passEN, "; "), strings.Join(passZH, "；")), ev...)
		},
	}
}

// unverifiedEN opens the reason of checks.Unverified (TestRows holds
// the two together through an item whose evidence cannot be read).
const unverifiedEN = "could not be verified"

// maxNamed is how many failing items a row names before counting.
const maxNamed = 3

// joined is the reasons of the first n results, in both languages.
func joined(rs []checks.Result, n int) checks.Text {
	var en, zh []string
	for _, r := range rs[:min(len(rs), n)] {
		en, zh = append(en, r.Reason.EN), append(zh, r.Reason.ZH)
	}
	return checks.T(strings.Join(en, "; "), strings.Join(zh, "；"))
}

// bound are the items bound to kind.
func bound(pr *checks.PR, kind string) []Item {
	var out []Item
	for _, it := range settingsOf(pr).Items {
		if it.Verify == kind {
			out = append(out, it)
		}
	}
	return out
}

// quoteItem names an item in a reason.
func quoteItem(it Item) string { return `"` + labelOf(it.Item) + `"` }

// unverified is the row-level "could not be verified" of one item.
func unverified(en, zh string, err error) checks.Result {
	return checks.Unverified(checks.T(en+": "+err.Error(), zh+"："+checks.Code(err.Error())))
}
