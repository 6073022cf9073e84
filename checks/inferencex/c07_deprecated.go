package inferencex

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/modelsmd"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// DeprecatedModels is row 7: no deprecated models or scenarios, read from
// MODELS.md on the default branch (RULES.md, Check 7).
var DeprecatedModels = &checks.Check{
	Number:   7,
	Name:     checks.Text{EN: "Deprecated models", ZH: "已弃用模型"},
	Requires: []checks.Requirement{changeset.Fact, repo.ReaderFact},
	Run:      runDeprecated,
}

func runDeprecated(ctx context.Context, pr *checks.PR) checks.Result {
	cs, bad := changeset.Readable(ctx, pr)
	if bad != nil {
		return *bad
	}
	if len(cs.Affected) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		return checks.NAR(checks.T("PR adds, changes or re-enables no benchmark configuration.", "PR 未新增、更改或重新启用任何基准测试配置。"))
	}
	models := cs.Layout.Models
	reader, err := repo.ReaderFact.Of(ctx, pr)
	var data []byte
	if err == nil {
		data, err = reader.Read(ctx, pr.DefaultSHA, models)
	}
	if err != nil {
		return checks.Unverified(checks.T(models+" could not be read: "+err.Error(), "无法读取 "+models+"："+checks.Code(err.Error())))
	}
	doc := modelsmd.Parse(string(data))
	day := pr.ReviewDate.UTC().Truncate(24 * time.Hour)
	dayS := day.Format("2006-01-02")

	var fail, review findings
	// activeZH quotes MODELS.md's scenario names, which stay in English.
	var active, activeZH []string
	for _, e := range cs.Affected {
		ev := checks.Evidence{Label: "config", Value: e.Key + " (" + repo.Loc(e.File, e.Line) + ")"}
		hit := false
		for _, r := range doc.Matrix {
			if !modelsmd.Covers(r.Prefixes, e.ModelPrefix) || !r.Retired || (!r.RetiredOn.IsZero() && day.Before(r.RetiredOn)) {
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
				ev, checks.Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", r.Line, r.Model)})
			hit = true
		}
		if hit {
			continue // retirement is the root issue; scenario rules add nothing
		}
		for _, sc := range repo.EntryScenarios(e) {
			for _, r := range doc.Matrix {
				for _, d := range r.Deprecated {
					if !d.Applies(e.ModelPrefix, e.Precision, e.SpecDecode && !nonSpecPoints(e, sc, recipesOf(cs, e)), sc) || (!d.Since.IsZero() && day.Before(d.Since)) {
						continue
					}
					fail.add(fmt.Sprintf("%s %s is deprecated (MODELS.md support matrix: %s)", e.ModelPrefix, d.Label(sc), strings.TrimSpace(d.Text)),
						fmt.Sprintf("%s %s 已弃用（MODELS.md 支持矩阵：%s）", e.ModelPrefix, d.Label(sc), strings.TrimSpace(d.Text)),
						ev, checks.Evidence{Label: models, Value: fmt.Sprintf("line %d", d.Line)})
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
						ev, checks.Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", s.Line, s.Exception)})
				} else {
					fail.add(fmt.Sprintf("%s %s is deprecated for all models (MODELS.md Scenarios%s)", e.ModelPrefix, sc, since),
						fmt.Sprintf("%s %s 已对所有模型弃用（MODELS.md 场景表%s）", e.ModelPrefix, sc, since),
						ev, checks.Evidence{Label: models, Value: fmt.Sprintf("line %d", s.Line)})
				}
				hit = true
			}
			for _, n := range doc.Notices {
				if !day.After(n.LastDay) {
					continue // allowed until and including its last day
				}
				for _, d := range n.Rules {
					if !d.Applies(e.ModelPrefix, e.Precision, e.SpecDecode && !nonSpecPoints(e, sc, recipesOf(cs, e)), sc) {
						continue
					}
					last := n.LastDay.Format("2006-01-02")
					fail.add(fmt.Sprintf("%s %s is deprecated (MODELS.md Deprecation Notice %s: last day %s)", e.ModelPrefix, d.Label(sc), n.Heading, last),
						fmt.Sprintf("%s 「%s」已弃用（MODELS.md 弃用通知「%s」：最后一天 %s）", e.ModelPrefix, d.Label(sc), n.Heading, last),
						ev, checks.Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", d.Line, d.Text)})
					hit = true
				}
			}
			if !hit {
				active = appendUnique(active, e.ModelPrefix+" "+sc)
				activeZH = appendUnique(activeZH, e.ModelPrefix+" 「"+sc+"」")
			}
		}
		for _, p := range doc.Problems {
			if p.Prefixes == nil || modelsmd.Covers(p.Prefixes, e.ModelPrefix) {
				review.add(fmt.Sprintf("MODELS.md line %d could not be parsed (%s)", p.Line, p.Msg),
					fmt.Sprintf("无法解析 MODELS.md 第 %d 行（%s）", p.Line, checks.Code(p.Msg)),
					checks.Evidence{Label: models, Value: fmt.Sprintf("line %d: %s", p.Line, p.Msg)})
			}
		}
	}
	// A retirement fails the row on its own: unparsable MODELS.md rows add no
	// evidence to it.
	switch {
	case !fail.empty():
		return checks.FailR(fail.text(), fail.ev...)
	case !review.empty():
		return checks.ReviewR(review.text(), review.ev...)
	}
	verb := "is"
	if len(active) > 1 {
		verb = "are"
	}
	var ev []checks.Evidence
	for _, e := range cs.Affected {
		ev = append(ev, checks.Evidence{Label: "config", Value: e.Key})
	}
	return checks.PassR(checks.T(fmt.Sprintf("%s %s active (review date %s).", strings.Join(active, ", "), verb, dayS),
		fmt.Sprintf("%s 仍在使用中（评审日期 %s）。", strings.Join(activeZH, "、"), dayS)), ev...)
}

// nonSpecPoints reports whether a config runs points of scenario sc
// without speculative decoding: an element that says spec-decoding none,
// one that says nothing where another element of the entry names a
// method, one whose recipes (every one read, none a variant) set no
// speculative decoding whatever the element says, or one whose dry run
// starts its server without a draft. A rule for the non-speculative arm of a model then applies to
// those points, whatever the rest of the entry runs.
func nonSpecPoints(e *repo.ConfigEntry, sc string, recipe recipeLookup) bool {
	for _, p := range recipe.noDraft {
		if p.Scenario == sc {
			return true // its dry run starts a server without a draft
		}
	}
	named := false
	for _, s := range e.Scenarios {
		for _, sp := range s.Search {
			if m := strings.ToLower(strings.TrimSpace(sp.SpecDecoding)); m != "" && m != "none" {
				named = true
			}
		}
	}
	for _, s := range e.Scenarios {
		if repo.ScenarioName(s) != sc {
			continue
		}
		for _, sp := range s.Search {
			switch m := strings.ToLower(strings.TrimSpace(sp.SpecDecoding)); {
			case m == "none", m == "" && named:
				return true
			case draftlessRecipes(sp, recipe):
				return true
			}
		}
	}
	return false
}

// draftlessRecipes reports whether a search-space element runs recipes,
// every one of them read and named without a variant selector, none of
// which sets speculative decoding.
func draftlessRecipes(sp repo.SearchSpace, recipe recipeLookup) bool {
	if recipe.find == nil {
		return false
	}
	refs := repo.RecipeRefs(recipe.layout, sp)
	if len(refs) == 0 {
		return false
	}
	for _, ref := range refs {
		f := recipe.find(ref.Path)
		if ref.Selector != "" || f == nil || f.Err != "" || changeset.RecipeIsSpecDecode(f) {
			return false
		}
	}
	return true
}

// recipeLookup finds a config's recipe files, by the paths RecipeRefs
// gives in its layout.
type recipeLookup struct {
	layout repo.Layout
	find   func(path string) *repo.EffectiveFile
	// noDraft are the config's points whose dry run serves without a draft.
	noDraft []changeset.DryPoint
}

// recipesOf looks among a config's effective files.
func recipesOf(cs *changeset.Model, e *repo.ConfigEntry) recipeLookup {
	return recipeLookup{layout: cs.Layout, noDraft: cs.DryRuns[e.Key].NoDraft, find: func(p string) *repo.EffectiveFile {
		for _, f := range cs.Effective[e.Key] {
			if f.Kind == "recipe" && f.Path == p {
				return f
			}
		}
		return nil
	}}
}
