package checks

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// ArchHacksCheck is row 8 of the InferenceX preset: no architecture-
// changing overrides, and event publication not disabled (§Check 8).
func ArchHacksCheck() Check { return row(8, runArchHacks) }

var (
	// archKnobRE matches architecture overrides in a setting name or value,
	// spelled with '-' or '_'.
	archFlagRE     = regexp.MustCompile(`(?i)^(hf[-_]overrides|json[-_]model[-_]override[-_]args)$`)
	archFieldRE    = regexp.MustCompile(`(?i)\b(num[-_]hidden[-_]layers|num[-_]experts[-_]per[-_]tok|num[-_]experts|index[-_]topk|layers[-_]to[-_]skip|skip[-_]layers|layer[-_]skip)\b`)
	archTextRE     = regexp.MustCompile(`(?i)(--?hf[-_]overrides|hf[-_]overrides\s*:|--?json[-_]model[-_]override[-_]args|json[-_]model[-_]override[-_]args\s*:)`)
	archConfigJSON = regexp.MustCompile(`config\.json`)
	archSedInPlace = regexp.MustCompile(`(^|[\s;&|(])sed\s+(-[A-Za-z]*i|--in-place)`)
	archJQ         = regexp.MustCompile(`(^|[\s;&|(])jq\s`)
	archPublishRE  = regexp.MustCompile(`(?i)publish[-_]events[-_]and[-_]metrics["']?\s*(?:[:=]\s*|\s+)["']?(false|0|no|off)\b`)
)

// falsy is the §Check 8 set of "disabled" spellings.
func archFalsy(v string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

func runArchHacks(ctx context.Context, pr *PR) Result {
	cs, bad := csChangeSetFor(ctx, pr)
	if bad != nil {
		return *bad
	}
	added := csRuntimeAdded(pr, cs, false)
	if len(cs.Affected) == 0 && len(added) == 0 && len(cs.UnmappedFiles) == 0 {
		return NAR(T("PR changes no benchmark serving configuration, image or launch path.", "PR 未更改任何基准测试服务配置、镜像或启动路径。"))
	}
	var fail, review csFindings
	knob := func(what, at string) {
		review.add("architecture override "+what+" at "+at, "架构覆盖："+what+"（位于 "+at+"）", Evidence{Label: at, Value: what})
	}
	disabled := func(s Setting) {
		where := s.File
		if s.Role != "" {
			where += " (" + s.Role + " role)"
		}
		fail.add("publish_events_and_metrics: "+strings.Trim(s.Value, `"'`)+" in "+where,
			"publish_events_and_metrics 在 "+where+" 中被设为 "+strings.Trim(s.Value, `"'`),
			Evidence{Label: csLoc(s.File, s.Line), Value: s.Name + "=" + s.Value})
	}
	for _, f := range csAllEffective(cs) {
		if f.Err != "" {
			review.add(f.Path+" could not be read ("+f.Err+")", "无法读取 "+f.Path+"（"+f.Err+"）", Evidence{Label: f.Path, Value: f.Err})
			continue
		}
		for _, s := range f.Settings {
			n := normName(s.Name)
			base := n[strings.LastIndexByte(n, '.')+1:]
			switch {
			case base == "publish_events_and_metrics" && archFalsy(s.Value):
				disabled(s)
			case archFlagRE.MatchString(base):
				knob(s.Name+" "+s.Value, csLoc(s.File, s.Line))
			case underArchFlag(n):
				// nested key of an override already reported
			case s.Kind != "command" && (archFieldRE.MatchString(s.Name) || archFieldRE.MatchString(s.Value)):
				knob(s.Name+"="+s.Value, csLoc(s.File, s.Line))
			}
		}
		for _, c := range f.Commands {
			text := c.Raw + "\n" + c.Heredoc
			if archConfigJSON.MatchString(text) && (archSedInPlace.MatchString(c.Raw) || archJQ.MatchString(c.Raw)) {
				knob("edits model config.json: "+csFirstLine(c.Raw), csLoc(f.Path, c.Line))
			}
		}
	}
	// Added lines of files the model did not parse (master configs,
	// files of unknown type) are scanned as text.
	covered := map[string]bool{}
	for _, f := range csAllEffective(cs) {
		if f.Err == "" && (f.Kind != "changed" || len(f.Settings) > 0 || len(f.Commands) > 0) {
			covered[f.Path] = true
		}
	}
	for _, a := range added {
		if covered[a.Path] {
			continue
		}
		t := csStripComment(a.Text)
		at := csLoc(a.Path, a.Line)
		if m := archPublishRE.FindStringSubmatch(t); m != nil {
			fail.add("publish_events_and_metrics: "+m[1]+" in "+a.Path, "publish_events_and_metrics 在 "+a.Path+" 中被设为 "+m[1],
				Evidence{Label: at, Value: strings.TrimSpace(t)})
		}
		if m := archTextRE.FindString(t); m != "" {
			knob(strings.TrimSpace(t), at)
		} else if archFieldRE.MatchString(t) && strings.ContainsAny(t, ":=") {
			knob(strings.TrimSpace(t), at)
		}
		if archConfigJSON.MatchString(t) && (archSedInPlace.MatchString(t) || archJQ.MatchString(t)) {
			knob("edits model config.json: "+strings.TrimSpace(t), at)
		}
	}
	for _, p := range csUnscanned(pr, cs, false, covered) {
		review.add(p.Path+" could not be scanned ("+p.Err+")", "无法扫描 "+p.Path+"（"+p.Err+"）", Evidence{Label: p.Path, Value: p.Err})
	}
	switch {
	case !fail.empty():
		t := fail.text()
		return FailR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, append(fail.ev, review.ev...)...)
	case !review.empty():
		t := review.text()
		return ReviewR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, review.ev...)
	}
	return PassR(T("No architecture-override knobs; event publication not disabled.", "无架构覆盖参数；事件发布未被禁用。"),
		Evidence{Label: "scanned", Value: fmt.Sprintf("%d effective files, %d added runtime lines", len(csAllEffective(cs)), len(added))})
}

func csFirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.TrimSpace(s)
}

// stripTrailingComment drops a " # comment" tail outside quotes.
func csStripComment(s string) string {
	return string(yamlStripComment([]byte(s)))
}

// underArchFlag reports whether a dotted setting name lies inside an
// hf-overrides / json-model-override-args mapping.
func underArchFlag(n string) bool {
	parts := strings.Split(n, ".")
	for _, p := range parts[:len(parts)-1] {
		if archFlagRE.MatchString(p) {
			return true
		}
	}
	return false
}
