package checks

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// DeprecatedCheck is row 7 of the InferenceX preset: no deprecated models
// or scenarios (§Check 7), read from MODELS.md on the default branch.
func DeprecatedCheck() Check { return row(7, runDeprecated) }

func runDeprecated(ctx context.Context, pr *PR) Result {
	cs, bad := csChangeSetFor(ctx, pr)
	if bad != nil {
		return *bad
	}
	if ps := csMasterProblems(pr, cs); len(ps) > 0 {
		return csUnreadable(ps)
	}
	if len(cs.Affected) == 0 {
		return NAR(T("PR adds, changes or re-enables no benchmark configuration.", "PR 未新增、更改或重新启用任何基准测试配置。"))
	}
	data, err := csRead(ctx, pr, pr.DefaultSHA, pr.Layout.Models)
	if err != nil {
		return Unverified(T(pr.Layout.Models+" could not be read: "+err.Error(), "无法读取 "+pr.Layout.Models+"："+err.Error()))
	}
	doc, _ := Memo(pr, "models.md", func() (*ModelsDoc, error) { return ParseModels(string(data)), nil })
	day := pr.ReviewDate.UTC().Truncate(24 * time.Hour)
	dayS := day.Format("2006-01-02")
	models := pr.Layout.Models

	var fail, review csFindings
	var active []string
	for _, e := range cs.Affected {
		ev := Evidence{Label: "config", Value: e.Key + " (" + csLoc(e.File, e.Line) + ")"}
		hit := false
		for _, r := range doc.Matrix {
			if !modelsHasPrefix(r.Prefixes, e.ModelPrefix) || !r.Retired || (!r.RetiredOn.IsZero() && day.Before(r.RetiredOn)) {
				continue
			}
			how, howZH := "retired", "退役"
			if r.Fully {
				how, howZH = "fully retired", "完全退役"
			}
			when := ""
			if !r.RetiredOn.IsZero() {
				when = " " + r.RetiredOn.Format("2006-01-02")
			}
			fail.add(fmt.Sprintf("%s is %s (MODELS.md support matrix: retired%s)", e.ModelPrefix, how, when),
				fmt.Sprintf("%s 已%s（MODELS.md 支持矩阵：%s 退役）", e.ModelPrefix, howZH, strings.TrimSpace(when)),
				ev, Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", r.Line, r.Model)})
			hit = true
		}
		if hit {
			continue // retirement is the root issue; scenario rules add nothing
		}
		for _, sc := range entryScenarioNames(e) {
			for _, r := range doc.Matrix {
				for _, d := range r.Deprecated {
					if !deprecRuleApplies(d, e, sc) || (!d.Since.IsZero() && day.Before(d.Since)) {
						continue
					}
					fail.add(fmt.Sprintf("%s %s is deprecated (MODELS.md support matrix: %s)", e.ModelPrefix, deprecLabel(sc, d), strings.TrimSpace(d.Text)),
						fmt.Sprintf("%s %s 已弃用（MODELS.md 支持矩阵：%s）", e.ModelPrefix, deprecLabel(sc, d), strings.TrimSpace(d.Text)),
						ev, Evidence{Label: models, Value: fmt.Sprintf("line %d", d.Line)})
					hit = true
				}
			}
			for _, s := range doc.Scenarios {
				if !s.Deprecated || s.Name != sc || (!s.Since.IsZero() && day.Before(s.Since)) {
					continue
				}
				since := ""
				if !s.Since.IsZero() {
					since = ": since " + s.Since.Format("2006-01-02")
				}
				if s.Exception != "" {
					review.add(fmt.Sprintf("%s %s: MODELS.md Scenarios deprecates %s for all models with exceptions; check whether %s is one", e.ModelPrefix, sc, sc, e.Key),
						fmt.Sprintf("%s %s：MODELS.md 场景表已对所有模型弃用 %s 但列有例外，请确认 %s 是否属于例外", e.ModelPrefix, sc, sc, e.Key),
						ev, Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", s.Line, s.Exception)})
				} else {
					fail.add(fmt.Sprintf("%s %s is deprecated for all models (MODELS.md Scenarios%s)", e.ModelPrefix, sc, since),
						fmt.Sprintf("%s %s 已对所有模型弃用（MODELS.md 场景表%s）", e.ModelPrefix, sc, since),
						ev, Evidence{Label: models, Value: fmt.Sprintf("line %d", s.Line)})
				}
				hit = true
			}
			for _, n := range doc.Notices {
				if !day.After(n.LastDay) {
					continue // allowed until and including its last day
				}
				for _, d := range n.Rules {
					if !deprecRuleApplies(d, e, sc) {
						continue
					}
					last := n.LastDay.Format("2006-01-02")
					fail.add(fmt.Sprintf("%s %s is deprecated (MODELS.md Deprecation Notice %s: last day %s)", e.ModelPrefix, deprecLabel(sc, d), n.Heading, last),
						fmt.Sprintf("%s %s 已弃用（MODELS.md 弃用通知 %s：最后一天 %s）", e.ModelPrefix, deprecLabel(sc, d), n.Heading, last),
						ev, Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", d.Line, d.Text)})
					hit = true
				}
			}
			if !hit {
				active = csAppendUnique(active, e.ModelPrefix+" "+sc)
			}
		}
		for _, p := range doc.Problems {
			if p.Prefixes == nil || modelsHasPrefix(p.Prefixes, e.ModelPrefix) {
				review.add(fmt.Sprintf("MODELS.md line %d could not be parsed (%s)", p.Line, p.Msg),
					fmt.Sprintf("无法解析 MODELS.md 第 %d 行（%s）", p.Line, p.Msg),
					Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", p.Line, p.Msg)})
			}
		}
	}
	switch {
	case !fail.empty():
		t := fail.text()
		return FailR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, fail.ev...)
	case !review.empty():
		t := review.text()
		return ReviewR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, review.ev...)
	}
	verb := "is"
	if len(active) > 1 {
		verb = "are"
	}
	var ev []Evidence
	for _, e := range cs.Affected {
		ev = append(ev, Evidence{Label: "config", Value: e.Key})
	}
	return PassR(T(fmt.Sprintf("%s %s active (review date %s).", strings.Join(active, ", "), verb, dayS),
		fmt.Sprintf("%s 仍在使用中（评审日期 %s）。", strings.Join(active, ", "), dayS)), ev...)
}

// scenarioNames are the MODELS.md scenario names of an entry, sorted.
func entryScenarioNames(e *ConfigEntry) []string {
	var out []string
	for _, sc := range e.Scenarios {
		out = csAppendUnique(out, ScenarioName(sc))
	}
	sort.Strings(out)
	return out
}

func deprecRuleApplies(d DeprecationRule, e *ConfigEntry, sc string) bool {
	if !modelsHasPrefix(d.Prefixes, e.ModelPrefix) {
		return false
	}
	if len(d.Scenarios) > 0 && !csContains(d.Scenarios, sc) {
		return false
	}
	if d.Precision != "" && !strings.EqualFold(d.Precision, e.Precision) {
		return false
	}
	if d.NonSpecOnly && e.SpecDecode {
		return false
	}
	return true
}

func deprecLabel(sc string, d DeprecationRule) string {
	if d.Precision != "" {
		return sc + " " + d.Precision
	}
	return sc
}

func modelsHasPrefix(ps []string, p string) bool {
	return p != "" && csContains(ps, p)
}

func csContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
