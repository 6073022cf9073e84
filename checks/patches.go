package checks

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
)

// EnginePatchesCheck is row 10 of the InferenceX preset: no engine patches
// without a waiver (§Check 10).
func EnginePatchesCheck() Check { return row(10, runEnginePatches) }

// patchMaxWaivers bounds how many default-branch waivers are read to attribute
// a pre-existing patch.
const patchMaxWaivers = 200

func runEnginePatches(ctx context.Context, pr *PR) Result {
	cs, bad := csChangeSetFor(ctx, pr)
	if bad != nil {
		return *bad
	}
	l := pr.Layout
	relevant := len(cs.Touched()) > 0 || len(cs.Affected) > 0
	for _, f := range cs.Files {
		for _, d := range []string{l.BenchmarksDir, l.RunnersDir, l.ConfigsDir, ".github/workflows"} {
			if !IsDocFile(f.Path) && strings.HasPrefix(f.Path, strings.TrimSuffix(d, "/")+"/") {
				relevant = true
			}
		}
	}
	if !relevant {
		return NAR(T("PR touches no benchmark scripts, images, configs or workflows.", "PR 未涉及基准测试脚本、镜像、配置或工作流。"))
	}
	s := pr.Settings
	if s == nil {
		d := Defaults()
		s = &d
	}
	var introduced, existing []patchHit
	var review csFindings
	seen := map[string]bool{}
	hit := func(h patchHit, added bool) {
		k := fmt.Sprintf("%s:%d", h.Path, h.Line)
		if seen[k] {
			return
		}
		seen[k] = true
		if added {
			introduced = append(introduced, h)
		} else {
			existing = append(existing, h)
		}
	}

	// Patch files added or changed by the PR.
	harnessDir := path.Join(l.RunnersDir, "srt-slurm", "patches") + "/"
	for _, f := range cs.Files {
		if f.Status == "removed" || !(strings.HasSuffix(f.Path, ".patch") || strings.HasSuffix(f.Path, ".diff")) {
			continue
		}
		switch {
		case patchAllowlisted(s.HarnessPatchAllowlist, f.Path, l.Root):
		case strings.HasPrefix(f.Path, harnessDir):
			review.add(f.Path+" is a new or changed srt-slurm harness patch outside the reviewed allowlist",
				f.Path+" 是新的或改动过的 srt-slurm 工具补丁，不在已审核的白名单中", Evidence{Label: f.Path, Value: f.Status})
		default:
			hit(patchHit{Path: f.Path, What: "adds patch file", WhatZH: "添加补丁文件"}, true)
		}
	}
	// Parsed files: commands (heredocs included), attributed to the PR when
	// any of their lines was added.
	parsed := map[string]bool{}
	for _, f := range csAllEffective(cs) {
		if f.Err != "" {
			continue
		}
		addedSet := csAddedLineSet(cs, f.Path)
		if len(f.Commands) > 0 {
			parsed[f.Path] = true
			for _, c := range f.Commands {
				w, z := commandIndicators(c)
				if w == "" || patchMentionsAllowlisted(c.Raw, s.HarnessPatchAllowlist) {
					continue
				}
				n := strings.Count(c.Raw, "\n") + strings.Count(c.Heredoc, "\n") + 1
				added := false
				for i := c.Line; i < c.Line+n; i++ {
					added = added || addedSet[i]
				}
				hit(patchHit{Path: f.Path, Line: c.Line, What: w, WhatZH: z}, added)
			}
			continue
		}
		if strings.HasSuffix(f.Path, ".yaml") || strings.HasSuffix(f.Path, ".yml") {
			parsed[f.Path] = true
			for i, line := range f.Lines {
				if csIsComment(line) {
					continue
				}
				if w, z := lineIndicators(line); w != "" {
					hit(patchHit{Path: f.Path, Line: i + 1, What: w, WhatZH: z}, addedSet[i+1])
				}
			}
		}
	}
	// Added lines of everything else (workflows, master configs, files of
	// unknown type).
	for _, a := range csRuntimeAdded(pr, cs, true) {
		if parsed[a.Path] || strings.HasSuffix(a.Path, ".patch") || strings.HasSuffix(a.Path, ".diff") {
			continue
		}
		if w, z := lineIndicators(a.Text); w != "" && !patchMentionsAllowlisted(a.Text, s.HarnessPatchAllowlist) {
			hit(patchHit{Path: a.Path, Line: a.Line, What: w, WhatZH: z}, true)
		}
	}
	for _, p := range csUnscanned(pr, cs, true, parsed) {
		review.add(p.Path+" could not be scanned ("+p.Err+")", "无法扫描 "+p.Path+"（"+p.Err+"）", Evidence{Label: p.Path, Value: p.Err})
	}
	patchSortHits(introduced)
	patchSortHits(existing)

	var fail, pass csFindings
	if len(introduced) > 0 {
		patchWaiverChecks(ctx, pr, cs, introduced, &fail, &review, &pass)
	}
	if len(existing) > 0 {
		patchExistingWaivers(ctx, pr, existing, &review, &pass)
	}
	if r, ok := csBlocking(&fail, &review); ok {
		return r
	}
	switch {
	case !pass.empty():
		t := pass.text()
		return PassR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, pass.ev...)
	}
	return PassR(T("No engine/serving-stack patching.", "未发现对引擎/服务栈的补丁。"))
}

func patchSortHits(hs []patchHit) {
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].Path != hs[j].Path {
			return hs[i].Path < hs[j].Path
		}
		return hs[i].Line < hs[j].Line
	})
}

func (h patchHit) at() string { return csLoc(h.Path, h.Line) }

// waiverChecks applies the three waiver requirements to patches the PR
// introduces.
func patchWaiverChecks(ctx context.Context, pr *PR, cs *ChangeSet, hits []patchHit, fail, review, pass *csFindings) {
	wp := pr.Layout.WaiverPath(pr.Number)
	first := hits[0]
	more := ""
	if len(hits) > 1 {
		more = fmt.Sprintf(" (+%d more)", len(hits)-1)
	}
	var ev []Evidence
	for _, h := range hits {
		ev = append(ev, Evidence{Label: h.at(), Value: h.What})
	}
	addedHere := false
	for _, f := range cs.Files {
		if f.Path == wp && f.Status != "removed" && f.Status != "modified" && f.Status != "changed" {
			addedHere = true
		}
	}
	if !addedHere {
		fail.add(fmt.Sprintf("%s %s%s; no %s in this PR", first.at(), first.What, more, wp),
			fmt.Sprintf("%s %s%s；本 PR 中没有 %s", first.at(), first.WhatZH, more, wp), ev...)
		return
	}
	data, err := csRead(ctx, pr, pr.HeadSHA, wp)
	if err != nil {
		fail.add("could not be verified: waiver "+wp+" could not be read ("+err.Error()+")",
			"无法验证：无法读取豁免文件 "+wp+"（"+err.Error()+"）", ev...)
		return
	}
	w := ParseWaiver(wp, string(data))
	if !patchWaiverLinked(pr, wp) {
		fail.add(fmt.Sprintf("waiver not linked in the sign-off (%s covers %s)", wp, first.at()),
			fmt.Sprintf("签核中未链接豁免文件（%s 对应 %s）", wp, first.at()), ev...)
		return
	}
	var weak []string
	for _, h := range hits {
		if !w.Mentions(h.Path, pr.Layout.Root) {
			weak = append(weak, "does not mention "+h.Path)
		}
	}
	if m := w.Missing(); len(m) > 0 {
		weak = append(weak, "lacks "+strings.Join(m, ", "))
	}
	if len(weak) > 0 {
		review.add("waiver may not cover this patch: "+wp+" "+strings.Join(weak, "; "),
			"豁免文件可能未覆盖此补丁："+wp+" "+strings.Join(weak, "；"), ev...)
		return
	}
	pass.add(fmt.Sprintf("%s %s%s, covered by waiver %s linked in the sign-off", first.at(), first.What, more, wp),
		fmt.Sprintf("%s %s%s，已由签核中链接的豁免文件 %s 覆盖", first.at(), first.WhatZH, more, wp), ev...)
}

// waiverLinked reports whether the Additional detail section links or
// names the waiver.
func patchWaiverLinked(pr *PR, wp string) bool {
	if pr.SignOff.DetailEmpty {
		return false
	}
	rel := strings.TrimPrefix(wp, pr.Layout.Root)
	for _, l := range pr.SignOff.DetailLinks {
		if strings.Contains(l, wp) || strings.HasSuffix(l, "/"+rel) || strings.Contains(l, "/"+rel+"#") {
			return true
		}
	}
	return strings.Contains(pr.SignOff.Detail, wp) || strings.Contains(pr.SignOff.Detail, rel)
}

// existingWaivers looks for default-branch waivers naming each script with
// a pre-existing patch. Attributing the original PR needs history, so a
// missing waiver is for a human.
func patchExistingWaivers(ctx context.Context, pr *PR, hits []patchHit, review, pass *csFindings) {
	var waivers []Waiver
	es, err := csList(ctx, pr, pr.DefaultSHA, pr.Layout.WaiverDir)
	if err == nil {
		var paths []string
		for _, e := range es {
			if e.Type != "dir" && strings.HasSuffix(e.Name, ".md") {
				paths = append(paths, e.Path)
			}
		}
		sort.Strings(paths)
		if len(paths) > patchMaxWaivers {
			paths = paths[:patchMaxWaivers]
		}
		ws := make([]Waiver, len(paths))
		csForEach(csMaxReads, len(paths), func(i int) {
			if b, err := csRead(ctx, pr, pr.DefaultSHA, paths[i]); err == nil {
				ws[i] = ParseWaiver(paths[i], string(b))
			}
		})
		waivers = ws
	}
	for _, h := range hits {
		found := ""
		for _, w := range waivers {
			if w.Text != "" && w.Mentions(h.Path, pr.Layout.Root) {
				found = w.Path
				break
			}
		}
		if found != "" {
			pass.add(fmt.Sprintf("pre-existing patch at %s (%s) is covered by %s", h.at(), h.What, found),
				fmt.Sprintf("%s 处已有的补丁（%s）由 %s 覆盖", h.at(), h.WhatZH, found),
				Evidence{Label: h.at(), Value: found})
			continue
		}
		review.add(fmt.Sprintf("pre-existing patch at %s (%s) has no waiver on the default branch naming %s", h.at(), h.What, h.Path),
			fmt.Sprintf("%s 处已有的补丁（%s）在默认分支上没有提及 %s 的豁免文件", h.at(), h.WhatZH, h.Path),
			Evidence{Label: h.at(), Value: h.What})
	}
}

func patchAllowlisted(list []string, p, root string) bool {
	for _, a := range list {
		if a == p || (root != "" && root+a == p) {
			return true
		}
	}
	return false
}

func patchMentionsAllowlisted(text string, list []string) bool {
	for _, a := range list {
		if a != "" && strings.Contains(text, path.Base(a)) {
			return true
		}
	}
	return false
}
