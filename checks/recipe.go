package checks

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// UpstreamRecipeCheck is row 3 of the InferenceX preset: every affected
// vLLM/SGLang serving config is backed by a merged upstream recipe that
// shows its major serving arguments.
func UpstreamRecipeCheck() Check { return row(3, runUpstreamRecipe) }

// urFetched is what was read for one link.
type urFetched struct {
	pr      UpstreamPR
	prErr   error
	text    string
	textErr error
	page    Page
	paths   []string // files the upstream PR changes
}

func runUpstreamRecipe(ctx context.Context, pr *PR) Result {
	cs, err := pr.ChangeSet(ctx)
	if err != nil || cs == nil {
		return Unverified(T("change set unavailable: "+specErrText(err), "变更集不可用："+specErrText(err)))
	}
	singleNode := pr.Settings != nil && pr.Settings.UpstreamRecipeScope == "single-node"
	var inScope []*ConfigEntry
	multi := 0
	for _, c := range cs.Affected {
		if c == nil {
			continue
		}
		if e := sdEngine(c.Framework); e != "vllm" && e != "sglang" {
			continue
		}
		if singleNode && (c.MultiNode || c.Disagg || strings.Contains(strings.ToLower(c.Framework), "disagg")) {
			multi++
			continue
		}
		inScope = append(inScope, c)
	}
	if len(inScope) == 0 {
		if r, bad := specInputsUnread(pr, cs); bad {
			return r
		}
		if multi > 0 {
			return NAR(T("disaggregated/multi-node submission; the recipe-link requirement applies to single-node recipes only",
				"分离式/多节点提交；配方链接要求仅适用于单节点配方"))
		}
		return NAR(T(fmt.Sprintf("No vLLM/SGLang serving configuration is affected (%d affected configs inspected).", len(cs.Affected)),
			fmt.Sprintf("没有受影响的 vLLM/SGLang 服务配置（已检查 %d 个受影响配置）。", len(cs.Affected))))
	}

	byEngine := map[string][]*ConfigEntry{}
	for _, c := range inScope {
		e := sdEngine(c.Framework)
		byEngine[e] = append(byEngine[e], c)
	}
	engines := make([]string, 0, len(byEngine))
	for e := range byEngine {
		engines = append(engines, e)
	}
	sort.Strings(engines)

	var links []UpstreamLink
	if !pr.SignOff.DetailEmpty {
		for _, raw := range pr.SignOff.DetailLinks {
			if l, ok := ParseUpstreamLink(raw); ok {
				links = append(links, l)
			}
		}
	}
	var use []UpstreamLink
	for _, e := range engines {
		var mine, other []UpstreamLink
		for _, l := range links {
			if l.Engine == e {
				mine = append(mine, l)
			} else {
				other = append(other, l)
			}
		}
		if len(mine) == 0 {
			c := byEngine[e][0]
			what := c.Framework
			switch {
			case c.Disagg || strings.Contains(c.Framework, "disagg"):
				what += " disagg"
			case c.MultiNode:
				what += " multi-node"
			}
			en := fmt.Sprintf("No upstream recipe link in the additional detail section (%s requires %s coverage).", what, upEngineLabel(e))
			zh := fmt.Sprintf("补充说明部分没有上游配方链接（%s 需要 %s 覆盖）。", what, upEngineLabel(e))
			if len(other) > 0 {
				en = fmt.Sprintf("No upstream recipe link in the additional detail section (%s requires %s coverage; linked %s is for another engine).", what, upEngineLabel(e), other[0].Name())
				zh = fmt.Sprintf("补充说明部分没有上游配方链接（%s 需要 %s 覆盖；链接的 %s 属于其他引擎）。", what, upEngineLabel(e), other[0].Name())
			}
			return FailR(T(en, zh), Evidence{Label: "config", Value: c.Key})
		}
		hasPage := false
		for _, l := range mine {
			if l.Kind == "page" {
				hasPage = true
			}
		}
		for _, l := range mine {
			switch {
			case l.Kind == "ref":
				return FailR(T(fmt.Sprintf("Linked %s is a branch or commit link, not a merged PR.", l.URL),
					fmt.Sprintf("链接的 %s 是分支或提交链接，不是已合并的 PR。", l.URL)), Evidence{Label: "link", URL: l.URL})
			case l.NeedsPage && !hasPage:
				return FailR(T(fmt.Sprintf("Linked %s needs a current published docs.sglang.io/cookbook page as well.", l.Name()),
					fmt.Sprintf("链接的 %s 还需要一个当前已发布的 docs.sglang.io/cookbook 页面。", l.Name())), Evidence{Label: "link", URL: l.URL})
			}
		}
		use = append(use, mine...)
	}

	got := urFetch(ctx, pr.Source, use)
	var ev []Evidence
	var merged []string
	for i, l := range use {
		f := got[i]
		ev = append(ev, Evidence{Label: "upstream recipe", URL: l.URL})
		if r, bad := urState(l, f); bad {
			r.Evidence = append(r.Evidence, ev...)
			return r
		}
		if l.Kind == "pr" {
			merged = append(merged, fmt.Sprintf("%s merged %s", l.Name(), f.pr.MergedAt.UTC().Format("2006-01-02")))
		} else {
			merged = append(merged, l.Name()+" published")
		}
	}

	// An SGLang PR counts as a recipe only when it changes the cookbook.
	for i, l := range use {
		if l.Kind != "pr" || !strings.EqualFold(l.Owner+"/"+l.Repo, "sgl-project/sglang") || got[i].textErr != nil {
			continue
		}
		if !urTouchesCookbook(got[i].paths) {
			return ReviewR(T(fmt.Sprintf("%s changes no cookbook page (docs/cookbook/ or docs_new/); link the SGLang cookbook recipe.", l.Name()),
				fmt.Sprintf("%s 没有修改任何 cookbook 页面（docs/cookbook/ 或 docs_new/）；请链接 SGLang cookbook 配方。", l.Name())), ev...)
		}
	}

	// Coverage per engine: every major serving argument of its configs must
	// appear in the linked recipes' text.
	var matched []string
	var missing []string
	var unread []string
	for _, e := range engines {
		var text strings.Builder
		for i, l := range use {
			if l.Engine != e {
				continue
			}
			if got[i].textErr != nil {
				unread = append(unread, l.Name())
				continue
			}
			text.WriteString(got[i].text)
			text.WriteByte('\n')
		}
		args, info := urMajorArgs(byEngine[e], cs)
		for _, s := range info {
			ev = append(ev, Evidence{Label: "InferenceX-only (informational)", Value: s})
		}
		corpus := newURCorpus(text.String())
		for _, a := range args {
			if urHas(corpus, a) {
				matched = urAppendUnique(matched, a.label)
			} else {
				missing = append(missing, a.String())
			}
		}
		if len(args) == 0 {
			var errs []string
			for _, c := range byEngine[e] {
				errs = append(errs, sdFileErrors(cs.Effective[c.Key])...)
			}
			what := byEngine[e][0].Key
			if len(errs) > 0 {
				what += " (" + errs[0] + ")"
			}
			return ReviewR(T(fmt.Sprintf("%s; major serving args of %s could not be extracted to compare.", strings.Join(merged, ", "), what),
				fmt.Sprintf("%s；无法提取 %s 的主要服务参数进行比较。", strings.Join(merged, ", "), what)), ev...)
		}
	}
	head := strings.Join(merged, ", ")
	if len(unread) > 0 {
		sort.Strings(unread)
		return ReviewR(T(fmt.Sprintf("%s; the recipe text of %s could not be read to compare serving args.", head, strings.Join(unread, ", ")),
			fmt.Sprintf("%s；无法读取 %s 的配方内容以比较服务参数。", head, strings.Join(unread, ", "))), ev...)
	}
	if len(missing) > 0 {
		return ReviewR(T(fmt.Sprintf("%s; upstream recipe does not show: %s.", head, strings.Join(missing, ", ")),
			fmt.Sprintf("%s；上游配方未包含：%s。", head, strings.Join(missing, ", "))), ev...)
	}
	return PassR(T(fmt.Sprintf("%s; %s match.", head, strings.Join(matched, "/")),
		fmt.Sprintf("%s；%s 一致。", head, strings.Join(matched, "/"))), ev...)
}

// urFetch reads every link's merge state and text concurrently.
func urFetch(ctx context.Context, src Source, links []UpstreamLink) []urFetched {
	out := make([]urFetched, len(links))
	var wg sync.WaitGroup
	for i, l := range links {
		wg.Add(1)
		go func(i int, l UpstreamLink) {
			defer wg.Done()
			f := &out[i]
			if l.Kind == "pr" {
				f.pr, f.prErr = src.UpstreamPR(ctx, l.Owner, l.Repo, l.Number)
				files, err := src.UpstreamPRFiles(ctx, l.Owner, l.Repo, l.Number)
				if err != nil {
					f.textErr = err
					return
				}
				var b strings.Builder
				for _, cf := range files {
					f.paths = append(f.paths, cf.Path)
					b.WriteString(cf.Path)
					b.WriteByte('\n')
					for _, line := range strings.Split(cf.Patch, "\n") {
						if !strings.HasPrefix(line, "-") {
							b.WriteString(strings.TrimPrefix(line, "+"))
							b.WriteByte('\n')
						}
					}
				}
				f.text = b.String()
				return
			}
			f.page, f.prErr = src.FetchPage(ctx, l.URL)
			if f.prErr == nil && f.page.StatusCode == 200 {
				f.text = string(f.page.Body)
			} else {
				f.textErr = errors.New("page not fetched")
			}
		}(i, l)
	}
	wg.Wait()
	return out
}

// urState turns a link's merge/publication state into a failing result, or
// reports that it is fine.
func urState(l UpstreamLink, f urFetched) (Result, bool) {
	name := l.Name()
	if l.Kind == "page" {
		switch {
		case f.prErr != nil && !errors.Is(f.prErr, ErrNotFound):
			return FailR(T(fmt.Sprintf("Upstream merge status could not be verified: fetching %s failed (%s).", l.URL, dcQuote(f.prErr.Error(), 120)),
				fmt.Sprintf("无法验证上游合并状态：获取 %s 失败（%s）。", l.URL, dcQuote(f.prErr.Error(), 120)))), true
		case f.prErr != nil || f.page.StatusCode != 200:
			code := f.page.StatusCode
			return FailR(T(fmt.Sprintf("Linked %s is not published (HTTP %d).", name, code),
				fmt.Sprintf("链接的 %s 尚未发布（HTTP %d）。", name, code))), true
		}
		return Result{}, false
	}
	p := f.pr
	switch {
	case f.prErr != nil:
		return FailR(T(fmt.Sprintf("Upstream merge status could not be verified: reading %s failed (%s).", name, dcQuote(f.prErr.Error(), 120)),
			fmt.Sprintf("无法验证上游合并状态：读取 %s 失败（%s）。", name, dcQuote(f.prErr.Error(), 120)))), true
	case !p.MergedAt.IsZero():
		return Result{}, false
	case p.Draft && p.State != "closed":
		return FailR(T(fmt.Sprintf("Linked %s is a draft, not merged.", name), fmt.Sprintf("链接的 %s 是草稿，尚未合并。", name))), true
	case p.State == "open":
		return FailR(T(fmt.Sprintf("Linked %s is open, not merged.", name), fmt.Sprintf("链接的 %s 仍处于打开状态，尚未合并。", name))), true
	case p.State == "closed":
		return FailR(T(fmt.Sprintf("Linked %s was closed without being merged.", name), fmt.Sprintf("链接的 %s 已关闭但未合并。", name))), true
	}
	return FailR(T(fmt.Sprintf("Linked %s is not merged (state %q).", name, p.State), fmt.Sprintf("链接的 %s 尚未合并（状态 %q）。", name, p.State))), true
}

func urAppendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func urTouchesCookbook(paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, "docs/cookbook/") || strings.HasPrefix(p, "docs_new/") {
			return true
		}
	}
	return false
}
