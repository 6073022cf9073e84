package checks

import (
	"context"
	"regexp"
	"sort"
	"strings"
)

// ImagesCheck is row 6 of the InferenceX preset: upstream images on
// established hardware and engine-first ordering (§Check 6).
func ImagesCheck() Check { return row(6, runImages) }

// imageExceptionRE finds a documented exception in the Additional detail
// section (PROPOSED keywords of §Check 6).
var imageExceptionRE = regexp.MustCompile(`(?i)\b(exception|new hardware|new model architecture|not supported upstream)\b`)

func runImages(ctx context.Context, pr *PR) Result {
	cs, bad := csChangeSetFor(ctx, pr)
	if bad != nil {
		return *bad
	}
	if ps := csMasterProblems(pr, cs); len(ps) > 0 || cs.MasterHead == nil {
		if len(ps) == 0 {
			ps = []InputProblem{{Path: pr.Layout.ConfigsDir, Err: "master configs at H could not be read"}}
		}
		return csUnreadable(ps)
	}
	touched := cs.Touched()
	if len(touched) == 0 {
		return NAR(T("PR changes no master-config entries.", "PR 未更改任何主配置条目。"))
	}
	s := pr.Settings
	if s == nil {
		d := Defaults()
		s = &d
	}
	exception := ""
	if !pr.SignOff.DetailEmpty {
		exception = imageExceptionRE.FindString(pr.SignOff.Detail)
	}

	var fail, review, pass csFindings
	var images []string
	// (a) upstream images.
	for _, k := range touched {
		e := cs.MasterHead[k]
		orgs, ok := s.ImageOrgs[e.Framework]
		if !ok {
			continue
		}
		repo := imageRepo(e.Image)
		ev := Evidence{Label: k, Value: e.Image + " (" + e.File + ")"}
		switch {
		case imageHasOrg(repo, orgs):
			images = csAppendUnique(images, repo)
			pass.note(ev)
		case !s.IsEstablishedSKU(e.SKU):
			pass.note(Evidence{Label: k, Value: e.Image + " on new hardware " + e.SKU})
		case exception != "":
			review.add("exception claimed for "+e.Image, "声明了例外："+e.Image, ev,
				Evidence{Label: "Additional detail", Value: exception})
		default:
			sku := strings.ToUpper(e.SKU)
			fail.add(e.Framework+" entry "+k+" uses "+e.Image+" on established "+sku+" with no documented exception",
				e.Framework+" 条目 "+k+" 在已有硬件 "+sku+" 上使用 "+e.Image+"，且未记录例外", ev)
		}
	}
	// (b) engine-first ordering for added vendor-framework entries.
	var vendorNotes []string
	vendorAdded := false
	for _, k := range cs.AddedKeys {
		e := cs.MasterHead[k]
		if s.IsOpenSource(e.Framework) {
			continue
		}
		vendorAdded = true
		if sib := openSourceSiblings(s, cs.MasterDefault, e); len(sib) > 0 {
			vendorNotes = append(vendorNotes, e.Framework+" entry preceded by "+sib[0])
			pass.note(Evidence{Label: k, Value: "open-source entry on the default branch: " + strings.Join(sib, ", ")})
			continue
		}
		if sib := openSourceSiblings(s, cs.MasterHead, e); len(sib) > 0 {
			review.add("new "+e.Framework+" entry "+k+" has an open-source engine entry for "+e.ModelPrefix+" on "+e.SKU+" only in this PR ("+sib[0]+"); it must land first",
				"新的 "+e.Framework+" 条目 "+k+" 的开源引擎条目（"+sib[0]+"）仅在本 PR 中添加，必须先合入",
				Evidence{Label: k, Value: "open-source entry added in this PR: " + strings.Join(sib, ", ")})
			continue
		}
		switch {
		case !s.IsEstablishedSKU(e.SKU):
			vendorNotes = append(vendorNotes, e.Framework+" entry on new hardware "+e.SKU)
		case exception != "":
			review.add("exception claimed for new "+e.Framework+" entry "+k+" with no open-source engine entry for "+e.ModelPrefix+" on "+e.SKU,
				"新的 "+e.Framework+" 条目 "+k+" 声明了例外，但 "+e.SKU+" 上没有 "+e.ModelPrefix+" 的开源引擎条目",
				Evidence{Label: "Additional detail", Value: exception})
		default:
			fail.add("New "+e.Framework+" entry "+k+" has no open-source engine entry for "+e.ModelPrefix+" on "+e.SKU,
				"新的 "+e.Framework+" 条目 "+k+" 在 "+e.SKU+" 上没有 "+e.ModelPrefix+" 的开源引擎条目",
				Evidence{Label: k, Value: e.File})
		}
	}
	if r, ok := csBlocking(&fail, &review); ok {
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
		zh = append(zh, vendorNotes...)
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
	return PassR(Text{EN: csSentence(strings.Join(en, "; ")), ZH: csSentenceZH(strings.Join(zh, "；"))}, pass.ev...)
}

// imageRepo normalizes an image reference to its repository: '#' read as
// '/', docker.io/ and index.docker.io/ stripped, tag and digest dropped.
func imageRepo(img string) string {
	r := strings.TrimSpace(strings.ReplaceAll(img, "#", "/"))
	r = strings.TrimPrefix(r, "docker.io/")
	r = strings.TrimPrefix(r, "index.docker.io/")
	if i := strings.IndexByte(r, '@'); i >= 0 {
		r = r[:i]
	}
	if i := strings.LastIndexByte(r, ':'); i > strings.LastIndexByte(r, '/') {
		r = r[:i]
	}
	return r
}

func imageHasOrg(repo string, orgs []string) bool {
	for _, o := range orgs {
		o = strings.TrimSuffix(o, "/") + "/"
		if strings.HasPrefix(repo, o) && len(repo) > len(o) {
			return true
		}
	}
	return false
}

// openSourceSiblings lists open-source entries with the same model prefix
// and SKU, sorted.
func openSourceSiblings(s *Settings, m map[string]*ConfigEntry, e *ConfigEntry) []string {
	var out []string
	for k, x := range m {
		if x.ModelPrefix == e.ModelPrefix && x.SKU == e.SKU && s.IsOpenSource(x.Framework) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func csAppendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
