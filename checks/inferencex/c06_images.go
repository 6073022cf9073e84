package inferencex

import (
	"context"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// UpstreamImages is row 6: upstream images on established hardware and
// engine-first ordering (RULES.md, Check 6).
var UpstreamImages = &checks.Check{
	Number:   6,
	SignOff:  checks.SignOffRead,
	Name:     checks.Text{EN: "Upstream images", ZH: "上游镜像"},
	Requires: []checks.Requirement{changeset.Fact},
	Run:      runImages,
}

func runImages(ctx context.Context, pr *checks.PR) checks.Result {
	cs, bad := changeset.Of(ctx, pr)
	if bad != nil {
		return *bad
	}
	if ps := cs.MasterProblems(); len(ps) > 0 || cs.MasterHead == nil {
		if len(ps) == 0 {
			ps = []repo.InputProblem{{Path: cs.Layout.ConfigsDir, Err: "master configs at H could not be read"}}
		}
		return changeset.Unreadable(ps)
	}
	touched := cs.Touched()
	if len(touched) == 0 {
		return checks.NAR(checks.T("PR changes no master-config entries.", "PR 未更改任何主配置条目。"))
	}
	s := repo.SettingsParam.Get(pr)
	if s == nil {
		d := repo.Defaults()
		s = &d
	}
	exception := signoff.ImageException(pr.SignOff)
	unreadable, isUnreadable := signoff.Unreadable(pr.SignOff)

	var fail, review, pass findings
	var images []string
	// (a) upstream images.
	for _, k := range touched {
		e := cs.MasterHead[k]
		orgs, ok := s.ImageOrgs[e.Framework]
		if !ok {
			continue
		}
		image := repo.ImageRepo(e.Image)
		ev := checks.Evidence{Label: k, Value: e.Image + " (" + e.File + ")"}
		switch {
		case repo.InOrg(image, orgs):
			images = appendUnique(images, image)
			pass.note(ev)
		case !s.IsEstablishedSKU(e.SKU):
			pass.note(checks.Evidence{Label: k, Value: e.Image + " on new hardware " + e.SKU})
		case isUnreadable:
			fail.add("could not be verified: "+unreadable.EN, "无法验证："+unreadable.ZH, ev)
		case exception != "":
			review.add("exception claimed for "+e.Image, "声明了例外："+e.Image, ev,
				checks.Evidence{Label: "Additional detail", Value: exception})
		default:
			sku := strings.ToUpper(e.SKU)
			fail.add(e.Framework+" entry "+k+" uses "+e.Image+" on established "+sku+" with no documented exception",
				e.Framework+" 条目 "+k+" 在已有硬件 "+sku+" 上使用 "+e.Image+"，且未记录例外", ev)
		}
	}
	// (b) engine-first ordering for added vendor-framework entries.
	var vendorNotes, vendorNotesZH []string
	vendorAdded := false
	for _, k := range cs.AddedKeys {
		e := cs.MasterHead[k]
		if s.IsOpenSource(e.Framework) {
			continue
		}
		vendorAdded = true
		if sib := openSourceSiblings(s, cs.MasterDefault, e); len(sib) > 0 {
			vendorNotes = append(vendorNotes, e.Framework+" entry preceded by "+sib[0])
			vendorNotesZH = append(vendorNotesZH, e.Framework+" 条目之前已有开源引擎条目 "+sib[0])
			pass.note(checks.Evidence{Label: k, Value: "open-source entry on the default branch: " + strings.Join(sib, ", ")})
			continue
		}
		if sib := openSourceSiblings(s, cs.MasterHead, e); len(sib) > 0 {
			review.add("new "+e.Framework+" entry "+k+" has an open-source engine entry for "+e.ModelPrefix+" on "+e.SKU+" only in this PR ("+sib[0]+"); it must land first",
				"新的 "+e.Framework+" 条目 "+k+" 的开源引擎条目（"+sib[0]+"）仅在本 PR 中添加，必须先合入",
				checks.Evidence{Label: k, Value: "open-source entry added in this PR: " + strings.Join(sib, ", ")})
			continue
		}
		switch {
		case !s.IsEstablishedSKU(e.SKU):
			vendorNotes = append(vendorNotes, e.Framework+" entry on new hardware "+e.SKU)
			vendorNotesZH = append(vendorNotesZH, e.Framework+" 条目位于新硬件 "+e.SKU+" 上")
		case isUnreadable:
			fail.add("could not be verified: "+unreadable.EN, "无法验证："+unreadable.ZH, checks.Evidence{Label: k, Value: e.File})
		case exception != "":
			review.add("exception claimed for new "+e.Framework+" entry "+k+" with no open-source engine entry for "+e.ModelPrefix+" on "+e.SKU,
				"新的 "+e.Framework+" 条目 "+k+" 声明了例外，但 "+e.SKU+" 上没有 "+e.ModelPrefix+" 的开源引擎条目",
				checks.Evidence{Label: "Additional detail", Value: exception})
		default:
			fail.add("New "+e.Framework+" entry "+k+" has no open-source engine entry for "+e.ModelPrefix+" on "+e.SKU,
				"新的 "+e.Framework+" 条目 "+k+" 在 "+e.SKU+" 上没有 "+e.ModelPrefix+" 的开源引擎条目",
				checks.Evidence{Label: k, Value: e.File})
		}
	}
	if r, ok := blocking(&fail, &review); ok {
		return r
	}
	var en, zh []string
	if len(images) > 0 {
		en = append(en, strings.Join(images, ", ")+" image")
		zh = append(zh, "使用上游镜像 "+strings.Join(images, ", "))
	}
	switch {
	case len(vendorNotes) > 0:
		en = append(en, vendorNotes...)
		zh = append(zh, vendorNotesZH...)
	case vendorAdded:
	case len(cs.AddedKeys) > 0:
		only := "Only open-source engine entries added"
		if len(en) > 0 {
			only = "only open-source engine entries added"
		}
		en = append(en, only)
		zh = append(zh, "仅新增开源引擎条目")
	case len(en) == 0:
		en = append(en, "No new entries; changed entries keep upstream images")
		zh = append(zh, "未新增条目；改动的条目仍使用上游镜像")
	}
	return checks.PassR(checks.Text{EN: sentence(strings.Join(en, "; ")), ZH: sentenceZH(strings.Join(zh, "；"))}, pass.ev...)
}

// openSourceSiblings lists open-source entries with the same model prefix
// and SKU, sorted.
func openSourceSiblings(s *repo.Settings, m map[string]*repo.ConfigEntry, e *repo.ConfigEntry) []string {
	var out []string
	for k, x := range m {
		if x.ModelPrefix == e.ModelPrefix && x.SKU == e.SKU && s.IsOpenSource(x.Framework) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
