package inferencex

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/serving"
)

// ArchitectureHacks is row 8: no architecture-changing overrides, and event
// publication not disabled (RULES.md, Check 8).
var ArchitectureHacks = &checks.Check{
	Number:   8,
	Name:     checks.Text{EN: "Architecture hacks", ZH: "架构篡改"},
	Requires: []checks.Requirement{changeset.Fact},
	Run:      runArchHacks,
}

// Architecture overrides in a setting name or value, spelled with '-' or
// '_': the override flags themselves, the model fields they change, the same
// in free text, edits of a model's config.json, and event publication turned
// off.
var (
	overrideFlagRE  = regexp.MustCompile(`(?i)^(hf[-_]overrides|json[-_]model[-_]override[-_]args)$`)
	overrideFieldRE = regexp.MustCompile(`(?i)\b(num[-_]hidden[-_]layers|num[-_]experts[-_]per[-_]tok|num[-_]experts|index[-_]topk|layers[-_]to[-_]skip|skip[-_]layers|layer[-_]skip)\b`)
	overrideTextRE  = regexp.MustCompile(`(?i)(--?hf[-_]overrides|hf[-_]overrides\s*:|--?json[-_]model[-_]override[-_]args|json[-_]model[-_]override[-_]args\s*:)`)
	publishOffRE    = regexp.MustCompile(`(?i)publish[-_]events[-_]and[-_]metrics["']?\s*(?:[:=]\s*|\s+)["']?(false|0|no|off)\b`)
)

func runArchHacks(ctx context.Context, pr *checks.PR) checks.Result {
	cs, bad := changeset.Of(ctx, pr)
	if bad != nil {
		return *bad
	}
	added := cs.RuntimeAdded(false)
	if len(cs.Affected) == 0 && len(added) == 0 && len(cs.UnmappedFiles) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		return checks.NAR(checks.T("PR changes no benchmark serving configuration, image or launch path.", "PR 未更改任何基准测试服务配置、镜像或启动路径。"))
	}
	if r, bad := cs.MastersUnread(); bad {
		return r
	}
	var fail, review findings
	knob := func(what, at string) {
		review.add("architecture override "+what+" at "+at, "架构覆盖："+what+"（位于 "+at+"）", checks.Evidence{Label: at, Value: what})
	}
	disabled := func(s repo.Setting) {
		where, whereZH := s.File, s.File
		if s.Role != "" {
			where += " (" + s.Role + " role)"
			whereZH += "（" + checks.Code(s.Role) + " 角色）"
		}
		fail.add("publish_events_and_metrics: "+strings.Trim(s.Value, `"'`)+" in "+where,
			"publish_events_and_metrics 在 "+whereZH+" 中被设为 "+checks.Code(strings.Trim(s.Value, `"'`)),
			checks.Evidence{Label: repo.Loc(s.File, s.Line), Value: s.Name + "=" + s.Value})
	}
	for _, f := range cs.AllEffective() {
		if f.Err != "" {
			review.add(f.Path+" could not be read ("+f.Err+")", "无法读取 "+f.Path+"（"+checks.Code(f.Err)+"）", checks.Evidence{Label: f.Path, Value: f.Err})
			continue
		}
		for _, s := range f.Settings {
			n := repo.SnakeName(s.Name)
			base := n[strings.LastIndexByte(n, '.')+1:]
			switch {
			case base == "publish_events_and_metrics" && serving.Falsy(s.Value):
				disabled(s)
			case overrideFlagRE.MatchString(base):
				knob(s.Name+" "+s.Value, repo.Loc(s.File, s.Line))
			case underOverrideFlag(n):
				// nested key of an override already reported
			case s.Kind != "command" && (overrideFieldRE.MatchString(s.Name) || overrideFieldRE.MatchString(s.Value)):
				knob(s.Name+"="+s.Value, repo.Loc(s.File, s.Line))
			}
		}
		for _, c := range f.Commands {
			if serving.EditsConfigJSON(c) {
				knob("edits model config.json: "+c.FirstLine(), repo.Loc(f.Path, c.Line))
			}
		}
	}
	// Added lines of files the model did not parse (master configs,
	// files of unknown type) are scanned as text.
	covered := map[string]bool{}
	for _, f := range cs.AllEffective() {
		if f.Err == "" && (f.Kind != "changed" || len(f.Settings) > 0 || len(f.Commands) > 0) {
			covered[f.Path] = true
		}
	}
	for _, a := range added {
		// A patch file's lines are the engine's source, not settings of
		// a run (applying it is Check 10's).
		if covered[a.Path] || strings.HasSuffix(a.Path, ".patch") || strings.HasSuffix(a.Path, ".diff") {
			continue
		}
		t := repo.StripComment(a.Text)
		at := repo.Loc(a.Path, a.Line)
		if m := publishOffRE.FindStringSubmatch(t); m != nil {
			fail.add("publish_events_and_metrics: "+m[1]+" in "+a.Path, "publish_events_and_metrics 在 "+a.Path+" 中被设为 "+checks.Code(m[1]),
				checks.Evidence{Label: at, Value: strings.TrimSpace(t)})
		}
		if m := overrideTextRE.FindString(t); m != "" {
			knob(strings.TrimSpace(t), at)
		} else if overrideFieldRE.MatchString(t) && strings.ContainsAny(t, ":=") {
			knob(strings.TrimSpace(t), at)
		}
		if serving.EditsConfigJSON(repo.Command{Raw: t}) {
			knob("edits model config.json: "+strings.TrimSpace(t), at)
		}
	}
	for _, p := range cs.Unscanned(false, covered) {
		review.add(p.Path+" could not be scanned ("+p.Err+")", "无法扫描 "+p.Path+"（"+checks.Code(p.Err)+"）", checks.Evidence{Label: p.Path, Value: p.Err})
	}
	if r, ok := blocking(&fail, &review); ok {
		return r
	}
	return checks.PassR(checks.T("No architecture-override knobs; event publication not disabled.", "无架构覆盖参数；事件发布未被禁用。"),
		checks.Evidence{Label: "scanned", Value: fmt.Sprintf("%d effective files, %d added runtime lines", len(cs.AllEffective()), len(added))})
}

// underOverrideFlag reports whether a dotted setting name lies inside an
// hf-overrides / json-model-override-args mapping.
func underOverrideFlag(n string) bool {
	parts := strings.Split(n, ".")
	for _, p := range parts[:len(parts)-1] {
		if overrideFlagRE.MatchString(p) {
			return true
		}
	}
	return false
}
