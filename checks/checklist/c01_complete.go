package checklist

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Complete is row 1: the sign-off holds every item of the checklist as it
// is now on the default branch, each checked; and every item the settings
// bind is still in the checklist (a binding to an item that is gone would
// verify nothing, silently).
var Complete = &checks.Check{
	Number:   1,
	Name:     checks.T("Checklist complete", "清单完整"),
	SignOff:  checks.SignOffJudged,
	Requires: []checks.Requirement{templateFact},
	Run:      runComplete,
}

// template is the checklist as the default branch holds it.
type template struct {
	Path  string
	Items []checks.ChecklistItem
}

// templateFact reads the checklist at the default branch.
var templateFact = checks.NewFact("checklist", nil, func(ctx context.Context, pr *checks.PR) (template, error) {
	s := settingsOf(pr)
	paths := TemplatePaths
	if s.Checklist != "" {
		paths = []string{s.Checklist}
	}
	p, data, err := firstFile(ctx, pr.Source, pr.DefaultSHA, paths)
	t := template{Path: p}
	if err != nil {
		return t, err
	}
	parsed := signoff.Parse(string(data))
	if parsed.Unreadable != "" {
		return t, fmt.Errorf("%s: %s", p, parsed.Unreadable)
	}
	t.Items = parsed.Items
	if len(t.Items) == 0 {
		return t, fmt.Errorf("%s has no checkbox items", p)
	}
	return t, nil
})

func runComplete(ctx context.Context, pr *checks.PR) checks.Result {
	tpl, err := templateFact.Of(ctx, pr)
	if err != nil {
		return checks.Unverified(checks.T("reading the checklist: "+err.Error(), "读取清单失败："+checks.Code(err.Error())))
	}
	ev := checks.Evidence{Label: "checklist", Value: tpl.Path + " @ " + checks.Short(pr.DefaultSHA)}
	if why, bad := signoff.Unreadable(pr.SignOff); bad {
		return checks.Unverified(why)
	}
	var missing, unchecked, unbound []string
	for i, j := range signoff.MatchItems(tpl.Items, pr.SignOff.Items) {
		label := labelOf(tpl.Items[i].Text)
		switch {
		case j < 0:
			missing = append(missing, label)
		case !pr.SignOff.Items[j].Checked:
			unchecked = append(unchecked, label)
		}
	}
	for _, it := range settingsOf(pr).Items {
		if !inTemplate(tpl.Items, it.Item) {
			unbound = append(unbound, it.Item)
		}
	}
	switch {
	case len(unbound) > 0:
		return checks.FailR(checks.T(
			fmt.Sprintf("preset_settings binds %q, which %s no longer has; update the binding", unbound[0], tpl.Path),
			fmt.Sprintf("preset_settings 绑定了 %q，但 %s 中已没有该项；请更新绑定", unbound[0], tpl.Path)).AndMore(len(unbound)-1), ev)
	case len(missing) > 0:
		return checks.FailR(checks.T(
			"the sign-off lacks the current checklist item "+signoff.QuoteLabels(missing),
			"签核缺少当前清单项 "+signoff.QuoteLabelsZH(missing)), ev)
	case len(unchecked) > 0:
		return checks.FailR(checks.T(
			"the sign-off leaves unchecked: "+signoff.QuoteLabels(unchecked),
			"签核中未勾选："+signoff.QuoteLabelsZH(unchecked)), ev)
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("all %d items of %s present and checked", len(tpl.Items), tpl.Path),
		fmt.Sprintf("%s 的全部 %d 项均已包含并勾选", tpl.Path, len(tpl.Items))), ev)
}

// inTemplate reports whether the bound text names an item of the checklist.
func inTemplate(items []checks.ChecklistItem, text string) bool {
	return itemIndex(items, text) >= 0
}

// itemIndex is the index of the item the bound text names, -1 when none
// does: the same matching as the sign-off's items get.
func itemIndex(items []checks.ChecklistItem, text string) int {
	want := signoff.NormalizeItem(text)
	for i, it := range items {
		if signoff.NormalizeItem(it.Text) == want {
			return i
		}
	}
	m := signoff.MatchItems([]checks.ChecklistItem{{Text: text}}, items)
	return m[0]
}

// labelOf is how reasons name an item: its words as written, inline
// Markdown marks aside, cut after 60 characters.
func labelOf(text string) string {
	s := strings.Join(strings.Fields(strings.NewReplacer("`", "", "**", "", "__", "").Replace(text)), " ")
	if r := []rune(s); len(r) > 60 {
		cut := string(r[:60])
		if i := strings.LastIndex(cut, " "); i > 20 {
			cut = cut[:i]
		}
		return cut + "…"
	}
	return s
}
