package inferencex

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/serving"
)

// EnginePatches is row 10: no engine patches without a waiver (RULES.md,
// Check 10).
var EnginePatches = &checks.Check{
	Number:   10,
	SignOff:  checks.SignOffRead,
	Name:     checks.Text{EN: "Engine patches", ZH: "引擎补丁"},
	Requires: []checks.Requirement{changeset.Fact, repo.ReaderFact},
	Run:      runEnginePatches,
}

// maxWaivers bounds how many default-branch waivers are read to attribute a
// pre-existing patch.
const maxWaivers = 200

func runEnginePatches(ctx context.Context, pr *checks.PR) checks.Result {
	cs, bad := changeset.Of(ctx, pr)
	if bad != nil {
		return *bad
	}
	l := cs.Layout
	relevant := len(cs.Touched()) > 0 || len(cs.Affected) > 0
	for _, f := range cs.Files {
		if !repo.IsDocFile(f.Path) && cs.IsRuntimePath(f.Path, true) {
			relevant = true
		}
	}
	if !relevant {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		return checks.NAR(checks.T("PR touches no benchmark scripts, images, configs or workflows.", "PR 未涉及基准测试脚本、镜像、配置或工作流。"))
	}
	if r, bad := cs.MastersUnread(); bad {
		return r
	}
	s := repo.SettingsParam.Get(pr)
	if s == nil {
		d := repo.Defaults()
		s = &d
	}
	var introduced, existing []serving.Patching
	var review findings
	seen := map[string]bool{}
	record := func(h serving.Patching, added bool) {
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
		case allowlisted(s.HarnessPatchAllowlist, f.Path, l.Root):
		case strings.HasPrefix(f.Path, harnessDir):
			review.add(f.Path+" is a new or changed srt-slurm harness patch outside the reviewed allowlist",
				f.Path+" 是新的或改动过的 srt-slurm 工具补丁，不在已审核的白名单中", checks.Evidence{Label: f.Path, Value: f.Status})
		default:
			record(serving.Patching{Path: f.Path, What: "adds patch file", WhatZH: "添加补丁文件"}, true)
		}
	}
	hits, parsed := serving.FindPatching(cs, s.HarnessPatchAllowlist)
	for _, h := range hits {
		record(h.Patching, h.Introduced)
	}
	for _, p := range cs.Unscanned(true, parsed) {
		review.add(p.Path+" could not be scanned ("+p.Err+")", "无法扫描 "+p.Path+"（"+checks.Code(p.Err)+"）", checks.Evidence{Label: p.Path, Value: p.Err})
	}
	sortPatching(introduced)
	sortPatching(existing)

	var fail, pass findings
	if len(introduced) > 0 {
		checkWaiver(ctx, pr, cs, introduced, &fail, &review, &pass)
	}
	if len(existing) > 0 {
		existingWaivers(ctx, pr, cs.Layout, existing, &pass)
	}
	// A file that could not be read may hold the patch: never a pass.
	if t, ev, bad := changeset.UnreadEffective(cs.AllEffective()); bad {
		fail.add("could not be verified: "+t.EN, "无法验证："+t.ZH, ev...)
	}
	// Nor may what a job runs past the point where its dry run gave up.
	if t, ev, short := cs.DryRunsCutShort(); short {
		review.add(t.EN, t.ZH, ev...)
	}
	if r, ok := blocking(&fail, &review); ok {
		return r
	}
	if t, ev, gap := cs.DryRunsIncomplete(); gap {
		if pass.empty() {
			pass.add("No engine/serving-stack patching", "未发现对引擎/服务栈的补丁")
		}
		pass.add(t.EN, t.ZH, ev...)
	}
	if !pass.empty() {
		return checks.PassR(pass.text(), pass.ev...)
	}
	return checks.PassR(checks.T("No engine/serving-stack patching.", "未发现对引擎/服务栈的补丁。"))
}

func sortPatching(hs []serving.Patching) {
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].Path != hs[j].Path {
			return hs[i].Path < hs[j].Path
		}
		return hs[i].Line < hs[j].Line
	})
}

// checkWaiver applies the three waiver requirements to patches the PR
// introduces.
func checkWaiver(ctx context.Context, pr *checks.PR, cs *changeset.Model, hits []serving.Patching, fail, review, pass *findings) {
	wp := cs.Layout.WaiverPath(pr.Number)
	first := hits[0]
	more := ""
	if len(hits) > 1 {
		more = fmt.Sprintf(" (+%d more)", len(hits)-1)
	}
	var ev []checks.Evidence
	for _, h := range hits {
		ev = append(ev, checks.Evidence{Label: h.At(), Value: h.What})
	}
	addedHere := false
	for _, f := range cs.Files {
		if f.Path == wp && f.Status != "removed" && f.Status != "modified" && f.Status != "changed" {
			addedHere = true
		}
	}
	if !addedHere {
		fail.add(fmt.Sprintf("%s %s%s; no %s in this PR", first.At(), first.What, more, wp),
			fmt.Sprintf("%s %s%s；本 PR 中没有 %s", first.At(), first.WhatZH, more, wp), ev...)
		return
	}
	reader, err := repo.ReaderFact.Of(ctx, pr)
	var data []byte
	if err == nil {
		data, err = reader.Read(ctx, pr.HeadSHA, wp)
	}
	if err != nil {
		fail.add("could not be verified: waiver "+wp+" could not be read ("+err.Error()+")",
			"无法验证：无法读取豁免文件 "+wp+"（"+checks.Code(err.Error())+"）", ev...)
		return
	}
	w := repo.ParseWaiver(wp, string(data))
	if why, bad := signoff.Unreadable(pr.SignOff); bad {
		fail.add("could not be verified: "+why.EN, "无法验证："+why.ZH, ev...)
		return
	}
	if !waiverLinked(pr.SignOff, cs.Layout, wp) {
		fail.add(fmt.Sprintf("waiver not linked in the sign-off (%s covers %s)", wp, first.At()),
			fmt.Sprintf("签核中未链接豁免文件（%s 对应 %s）", wp, first.At()), ev...)
		return
	}
	var weak []string
	for _, h := range hits {
		if !w.Mentions(h.Path, cs.Layout.Root) {
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
	pass.add(fmt.Sprintf("%s %s%s, covered by waiver %s linked in the sign-off", first.At(), first.What, more, wp),
		fmt.Sprintf("%s %s%s，已由签核中链接的豁免文件 %s 覆盖", first.At(), first.WhatZH, more, wp), ev...)
}

// waiverLinked reports whether the Additional detail section links or
// names the waiver.
func waiverLinked(so checks.SignOff, l repo.Layout, wp string) bool {
	if so.DetailEmpty {
		return false
	}
	rel := strings.TrimPrefix(wp, l.Root)
	for _, link := range so.DetailLinks {
		if strings.Contains(link, wp) || strings.HasSuffix(link, "/"+rel) || strings.Contains(link, "/"+rel+"#") {
			return true
		}
	}
	return strings.Contains(so.Detail, wp) || strings.Contains(so.Detail, rel)
}

// existingWaivers looks for default-branch waivers naming each script with
// a pre-existing patch, to name beside it. A pre-existing patch is never
// this PR's to answer for, waiver or not.
func existingWaivers(ctx context.Context, pr *checks.PR, l repo.Layout, hits []serving.Patching, pass *findings) {
	var waivers []repo.Waiver
	reader, err := repo.ReaderFact.Of(ctx, pr)
	var es []checks.DirEntry
	if err == nil {
		es, err = reader.List(ctx, pr.DefaultSHA, l.WaiverDir)
	}
	if err == nil {
		var paths []string
		for _, e := range es {
			if e.Type != "dir" && strings.HasSuffix(e.Name, ".md") {
				paths = append(paths, e.Path)
			}
		}
		sort.Strings(paths)
		if len(paths) > maxWaivers {
			paths = paths[:maxWaivers]
		}
		ws := make([]repo.Waiver, len(paths))
		reader.ReadEach(ctx, pr.DefaultSHA, paths, func(i int, b []byte, err error) {
			if err == nil {
				ws[i] = repo.ParseWaiver(paths[i], string(b))
			}
		})
		waivers = ws
	}
	for _, h := range hits {
		found := ""
		for _, w := range waivers {
			if w.Text != "" && w.Mentions(h.Path, l.Root) {
				found = w.Path
				break
			}
		}
		if found != "" {
			pass.add(fmt.Sprintf("pre-existing patch at %s (%s) is covered by %s", h.At(), h.What, found),
				fmt.Sprintf("%s 处已有的补丁（%s）由 %s 覆盖", h.At(), h.WhatZH, found),
				checks.Evidence{Label: h.At(), Value: found})
			continue
		}
		// Not this PR's: it was there before, and the PR did not touch the
		// lines. The row names it so a reviewer sees it, and does not blame
		// this PR for it.
		pass.add(fmt.Sprintf("pre-existing patch at %s (%s), not introduced by this PR; no default-branch waiver names %s", h.At(), h.What, h.Path),
			fmt.Sprintf("%s 处已有的补丁（%s）并非本 PR 引入；默认分支上没有提及 %s 的豁免文件", h.At(), h.WhatZH, h.Path),
			checks.Evidence{Label: h.At(), Value: h.What})
	}
}

func allowlisted(list []string, p, root string) bool {
	for _, a := range list {
		if a == p || (root != "" && root+a == p) {
			return true
		}
	}
	return false
}
