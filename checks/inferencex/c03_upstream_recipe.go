package inferencex

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/serving"
)

// UpstreamRecipe is row 3: every affected vLLM/SGLang serving config is
// backed by a merged upstream recipe that shows its major serving arguments
// (RULES.md, Check 3).
var UpstreamRecipe = &checks.Check{
	Number:   3,
	SignOff:  checks.SignOffRead,
	Name:     checks.Text{EN: "Upstream recipe", ZH: "上游配方"},
	Requires: []checks.Requirement{changeset.Fact},
	Run:      runUpstreamRecipe,
}

func runUpstreamRecipe(ctx context.Context, pr *checks.PR) checks.Result {
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		return changeset.Unavailable(err)
	}
	s := repo.SettingsParam.Get(pr)
	singleNode := s != nil && s.UpstreamRecipeScope == "single-node"
	var inScope []*repo.ConfigEntry
	multi := 0
	for _, c := range cs.Affected {
		if c == nil {
			continue
		}
		if e := serving.Engine(c.Framework); e != "vllm" && e != "sglang" {
			continue
		}
		if singleNode && (c.MultiNode || c.Disagg || strings.Contains(strings.ToLower(c.Framework), "disagg")) {
			multi++
			continue
		}
		inScope = append(inScope, c)
	}
	if len(inScope) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		if multi > 0 {
			return checks.NAR(checks.T("disaggregated/multi-node submission; the recipe-link requirement applies to single-node recipes only",
				"分离式/多节点提交；配方链接要求仅适用于单节点配方"))
		}
		return checks.NAR(checks.T(fmt.Sprintf("No vLLM/SGLang serving configuration is affected (%d affected configs inspected).", len(cs.Affected)),
			fmt.Sprintf("没有受影响的 vLLM/SGLang 服务配置（已检查 %d 个受影响配置）。", len(cs.Affected))))
	}

	byEngine := map[string][]*repo.ConfigEntry{}
	for _, c := range inScope {
		e := serving.Engine(c.Framework)
		byEngine[e] = append(byEngine[e], c)
	}
	engines := make([]string, 0, len(byEngine))
	for e := range byEngine {
		engines = append(engines, e)
	}
	sort.Strings(engines)

	if why, bad := signoff.Unreadable(pr.SignOff); bad {
		return checks.Unverified(why)
	}
	var links []serving.UpstreamLink
	if !pr.SignOff.DetailEmpty {
		for _, raw := range pr.SignOff.DetailLinks {
			if l, ok := serving.ParseUpstreamLink(raw); ok {
				links = append(links, l)
			}
		}
	}
	var use []serving.UpstreamLink
	for _, e := range engines {
		var mine, other []serving.UpstreamLink
		for _, l := range links {
			if l.Engine == e {
				mine = append(mine, l)
			} else {
				other = append(other, l)
			}
		}
		if len(mine) == 0 {
			c := byEngine[e][0]
			what, whatZH := c.Framework, c.Framework
			switch {
			case c.Disagg || strings.Contains(c.Framework, "disagg"):
				what, whatZH = what+" disagg", whatZH+" 分离式部署"
			case c.MultiNode:
				what, whatZH = what+" multi-node", whatZH+" 多节点"
			}
			en := fmt.Sprintf("No upstream recipe link in the additional detail section (%s requires %s coverage).", what, serving.RecipeHome(e))
			zh := fmt.Sprintf("补充说明部分没有上游配方链接（%s 需要 %s 覆盖）。", whatZH, serving.RecipeHome(e))
			if len(other) > 0 {
				en = fmt.Sprintf("No upstream recipe link in the additional detail section (%s requires %s coverage; linked %s is for another engine).", what, serving.RecipeHome(e), other[0].Name())
				zh = fmt.Sprintf("补充说明部分没有上游配方链接（%s 需要 %s 覆盖；链接的 %s 属于其他引擎）。", whatZH, serving.RecipeHome(e), other[0].Name())
			}
			return checks.FailR(checks.T(en, zh), checks.Evidence{Label: "config", Value: c.Key})
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
				return checks.FailR(checks.T(fmt.Sprintf("Linked %s is a branch or commit link, not a merged PR.", l.URL),
					fmt.Sprintf("链接的 %s 是分支或提交链接，不是已合并的 PR。", l.URL)), checks.Evidence{Label: "link", URL: l.URL})
			case l.NeedsPage && !hasPage:
				return checks.FailR(checks.T(fmt.Sprintf("Linked %s needs a current published docs.sglang.io/cookbook page as well.", l.Name()),
					fmt.Sprintf("链接的 %s 还需要一个当前已发布的 docs.sglang.io/cookbook 页面。", l.Name())), checks.Evidence{Label: "link", URL: l.URL})
			}
		}
		use = append(use, mine...)
	}

	got := serving.FetchRecipes(ctx, pr.Source, use)
	var ev []checks.Evidence
	var merged, mergedZH []string
	for i, l := range use {
		f := got[i]
		ev = append(ev, checks.Evidence{Label: "upstream recipe", URL: l.URL})
		if r, bad := recipeState(l, f); bad {
			r.Evidence = append(r.Evidence, ev...)
			return r
		}
		if l.Kind == "pr" {
			day := f.PR.MergedAt.UTC().Format("2006-01-02")
			merged = append(merged, fmt.Sprintf("%s merged %s", l.Name(), day))
			mergedZH = append(mergedZH, fmt.Sprintf("%s 已于 %s 合并", l.Name(), day))
		} else {
			merged = append(merged, l.Name()+" published")
			mergedZH = append(mergedZH, l.Name()+" 已发布")
		}
	}

	if r, bad := recipeFamilies(engines, byEngine, use, got); bad {
		r.Evidence = append(r.Evidence, ev...)
		return r
	}

	// An SGLang PR counts as a recipe only when it changes the cookbook.
	for i, l := range use {
		if l.Kind != "pr" || !strings.EqualFold(l.Owner+"/"+l.Repo, "sgl-project/sglang") || got[i].TextErr != nil {
			continue
		}
		if !serving.TouchesCookbook(got[i].Paths) {
			return checks.ReviewR(checks.T(fmt.Sprintf("%s changes no cookbook page (docs/cookbook/ or docs_new/); link the SGLang cookbook recipe.", l.Name()),
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
			if got[i].TextErr != nil {
				unread = append(unread, l.Name())
				continue
			}
			text.WriteString(got[i].Text)
			text.WriteByte('\n')
		}
		args, info := serving.MajorArgs(byEngine[e], cs)
		for _, s := range info {
			ev = append(ev, checks.Evidence{Label: "InferenceX-only (informational)", Value: s})
		}
		corpus := serving.NewCorpus(text.String())
		for _, a := range args {
			if corpus.Shows(a) {
				matched = appendUnique(matched, a.Label)
			} else {
				missing = append(missing, a.String())
			}
		}
		if len(args) == 0 {
			var errs []string
			for _, c := range byEngine[e] {
				errs = append(errs, serving.FileErrors(cs.Effective[c.Key])...)
			}
			what := byEngine[e][0].Key
			whatZH := what
			if len(errs) > 0 {
				what += " (" + errs[0] + ")"
				whatZH += "（" + checks.Code(errs[0]) + "）"
			}
			return checks.ReviewR(checks.T(fmt.Sprintf("%s; major serving args of %s could not be extracted to compare.", strings.Join(merged, ", "), what),
				fmt.Sprintf("%s；无法提取 %s 的主要服务参数进行比较。", strings.Join(mergedZH, "，"), whatZH)), ev...)
		}
	}
	head, headZH := strings.Join(merged, ", "), strings.Join(mergedZH, "，")
	if len(unread) > 0 {
		sort.Strings(unread)
		return checks.ReviewR(checks.T(fmt.Sprintf("%s; the recipe text of %s could not be read to compare serving args.", head, strings.Join(unread, ", ")),
			fmt.Sprintf("%s；无法读取 %s 的配方内容以比较服务参数。", headZH, strings.Join(unread, ", "))), ev...)
	}
	if len(missing) > 0 {
		return checks.ReviewR(checks.T(fmt.Sprintf("%s; upstream recipe does not show: %s.", head, strings.Join(missing, ", ")),
			fmt.Sprintf("%s；上游配方未包含：%s。", headZH, codeList(missing))), ev...)
	}
	return checks.PassR(checks.T(fmt.Sprintf("%s; %s match.", head, strings.Join(matched, "/")),
		fmt.Sprintf("%s；%s 一致。", headZH, strings.Join(matched, "/"))), ev...)
}

// recipeState turns a link's merge/publication state into a failing result,
// or reports that it is fine.
func recipeState(l serving.UpstreamLink, f serving.Fetched) (checks.Result, bool) {
	name := l.Name()
	if l.Kind == "page" {
		switch {
		case f.PRErr != nil && !errors.Is(f.PRErr, checks.ErrNotFound):
			return checks.FailR(checks.T(fmt.Sprintf("Upstream merge status could not be verified: fetching %s failed (%s).", l.URL, checks.Quote(f.PRErr.Error(), 120)),
				fmt.Sprintf("无法验证上游合并状态：获取 %s 失败（%s）。", l.URL, checks.Code(checks.Quote(f.PRErr.Error(), 120))))), true
		case f.PRErr != nil || f.Page.StatusCode != 200:
			code := f.Page.StatusCode
			return checks.FailR(checks.T(fmt.Sprintf("Linked %s is not published (HTTP %d).", name, code),
				fmt.Sprintf("链接的 %s 尚未发布（HTTP %d）。", name, code))), true
		}
		return checks.Result{}, false
	}
	p := f.PR
	switch {
	case f.PRErr != nil:
		return checks.FailR(checks.T(fmt.Sprintf("Upstream merge status could not be verified: reading %s failed (%s).", name, checks.Quote(f.PRErr.Error(), 120)),
			fmt.Sprintf("无法验证上游合并状态：读取 %s 失败（%s）。", name, checks.Code(checks.Quote(f.PRErr.Error(), 120))))), true
	case !p.MergedAt.IsZero():
		return checks.Result{}, false
	case p.Draft && p.State != "closed":
		return checks.FailR(checks.T(fmt.Sprintf("Linked %s is a draft, not merged.", name), fmt.Sprintf("链接的 %s 是草稿，尚未合并。", name))), true
	case p.State == "open":
		return checks.FailR(checks.T(fmt.Sprintf("Linked %s is open, not merged.", name), fmt.Sprintf("链接的 %s 仍处于打开状态，尚未合并。", name))), true
	case p.State == "closed":
		return checks.FailR(checks.T(fmt.Sprintf("Linked %s was closed without being merged.", name), fmt.Sprintf("链接的 %s 已关闭但未合并。", name))), true
	}
	return checks.FailR(checks.T(fmt.Sprintf("Linked %s is not merged (state %q).", name, p.State), fmt.Sprintf("链接的 %s 尚未合并（状态 %q）。", name, p.State))), true
}

// recipeFamilies requires every config to have, among its engine's links, a
// recipe for its own model family: a recipe of another model shows nothing
// about how this one is served. A link whose text could not be read may be
// the one, so the row then needs review rather than failing.
func recipeFamilies(engines []string, byEngine map[string][]*repo.ConfigEntry, use []serving.UpstreamLink, got []serving.Fetched) (checks.Result, bool) {
	for _, e := range engines {
		for _, c := range byEngine[e] {
			fam := serving.FamilyOf(c)
			if !fam.Known() {
				return checks.ReviewR(checks.T(fmt.Sprintf("%s names no model or model-prefix, so the linked recipes cannot be matched to its model.", c.Key),
					fmt.Sprintf("%s 没有 model 或 model-prefix，无法确认链接的配方是否针对其模型。", c.Key)), checks.Evidence{Label: "config", Value: c.Key}), true
			}
			var linked, unread []string
			found := false
			for i, l := range use {
				if l.Engine != e {
					continue
				}
				if serving.ForFamily(fam, serving.RecipeNames(l, got[i])) {
					found = true
					break
				}
				linked = append(linked, l.Name())
				if got[i].TextErr != nil {
					unread = append(unread, l.Name())
				}
			}
			switch {
			case found:
			case len(unread) > 0:
				return checks.ReviewR(checks.T(fmt.Sprintf("%s could not be read to tell whether it is a recipe for %s (%s).", strings.Join(unread, ", "), fam.Name, c.Key),
					fmt.Sprintf("无法读取 %s，无法确认其是否为 %s（%s）的配方。", strings.Join(unread, ", "), fam.Name, c.Key)), checks.Evidence{Label: "config", Value: c.Key}), true
			default:
				return checks.FailR(checks.T(fmt.Sprintf("Linked %s is not a recipe for %s (%s serves %s): its link, title, changed files and served models name another model.", strings.Join(linked, ", "), fam.Name, c.Key, c.Model),
					fmt.Sprintf("链接的 %s 不是 %s 的配方（%s 服务 %s）：其链接、标题、修改的文件和所服务的模型指向其他模型。", strings.Join(linked, ", "), fam.Name, c.Key, c.Model)),
					checks.Evidence{Label: "config", Value: c.Key}), true
			}
		}
	}
	return checks.Result{}, false
}

// codeList shows serving args (flag and value, kept as written in both
// languages) as code spans.
func codeList(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = checks.Code(a)
	}
	return strings.Join(out, ", ")
}
