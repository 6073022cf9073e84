package checks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// GoldenALCheck is row 11 of the InferenceX preset: agentic spec-decode
// configs must simulate acceptance at the committed golden AL.
func GoldenALCheck() Check { return row(11, runGoldenAL) }

// galOutcome is the verdict on one config.
type galOutcome struct {
	fail, review bool
	en, zh       string
	ev           []Evidence
	value        *GoldenALValue
}

func runGoldenAL(ctx context.Context, pr *PR) Result {
	cs, err := pr.ChangeSet(ctx)
	if err != nil || cs == nil {
		return Unverified(T("change set unavailable: "+specErrText(err), "变更集不可用："+specErrText(err)))
	}
	var hacks, agentic []*ConfigEntry
	for _, c := range cs.Affected {
		if c == nil || !c.SpecDecode {
			continue
		}
		if c.Agentic {
			agentic = append(agentic, c)
		} else {
			hacks = append(hacks, c)
		}
	}
	// (d) synthetic acceptance on a non-agentic spec-decode config is a
	// benchmark hack wherever it appears.
	for _, c := range hacks {
		knobs := sdSyntheticKnobs(sdAllSettings(cs.Effective[c.Key]))
		if len(knobs) == 0 {
			continue
		}
		s := knobs[0]
		ev := []Evidence{{Label: "synthetic acceptance", Value: fmt.Sprintf("%s=%s (%s:%d)", s.Name, s.Value, s.File, s.Line)}}
		if galExceptionDocumented(pr.SignOff) {
			return ReviewR(T(
				fmt.Sprintf("%s is not agentic but sets %s in %s; a sanctioned exception is claimed in the sign-off.", c.Key, s.Name, s.File),
				fmt.Sprintf("%s 不是 agentic 配置，但在 %s 中设置了 %s；签核声明了特许例外。", c.Key, s.File, s.Name)), ev...)
		}
		return FailR(T(
			fmt.Sprintf("%s is not agentic but sets %s in %s (benchmark hack: synthetic acceptance is only for agentic spec-decode).", c.Key, s.Name, s.File),
			fmt.Sprintf("%s 不是 agentic 配置，却在 %s 中设置了 %s（基准测试篡改：模拟接受长度仅用于 agentic 推测解码）。", c.Key, s.File, s.Name)), ev...)
	}
	if len(agentic) == 0 {
		if r, bad := specInputsUnread(pr, cs); bad {
			return r
		}
		return NAR(T("No agentic speculative-decoding changes.", "没有 agentic 推测解码相关变更。"))
	}

	curves := map[string]galCurveRead{}
	var outs []galOutcome
	for _, c := range agentic {
		outs = append(outs, galConfig(ctx, pr, cs, c, curves))
	}
	return galCombine(outs)
}

// galCurveRead memoizes one golden file read per stem.
type galCurveRead struct {
	curve GoldenCurve
	err   error
}

func galConfig(ctx context.Context, pr *PR, cs *ChangeSet, c *ConfigEntry, curves map[string]galCurveRead) galOutcome {
	files := cs.Effective[c.Key]
	settings := sdAllSettings(files)
	if errs := sdFileErrors(files); len(errs) > 0 {
		return galOutcome{fail: true,
			en: fmt.Sprintf("Golden AL could not be verified for %s: effective file unreadable (%s).", c.Key, errs[0]),
			zh: fmt.Sprintf("无法验证 %s 的黄金接受长度：有效文件无法读取（%s）。", c.Key, errs[0])}
	}
	if len(settings) == 0 {
		return galOutcome{fail: true,
			en: "Golden AL could not be verified: no effective launch config was found for " + c.Key + ".",
			zh: "无法验证黄金接受长度：未找到 " + c.Key + " 的有效启动配置。"}
	}
	role := sdGenRole(settings)
	k := extractSpec(sdEngine(c.Framework), role, settings)
	injected := pr.Layout.Name == "e2e" && galThroughLauncher(c)

	// (a) simulation enabled in the generation role.
	if len(k.Pins) == 0 && !k.Harness && !injected {
		where := files[0].Path
		if k.NumFound {
			where = k.NumSrc.where()
		}
		return galOutcome{fail: true,
			en: fmt.Sprintf("%s runs real acceptance: no simulated AL in the %s role (%s).", c.Key, role, where),
			zh: fmt.Sprintf("%s 使用真实接受长度运行：%s 角色中没有模拟接受长度（%s）。", c.Key, role, where)}
	}

	method := k.Method
	if method == "" {
		method = sdConfigMethod(c)
	}
	stem, err := CurveStem(c.ModelPrefix, method, k.DraftPath, k.DraftSample)
	if err != nil {
		return galOutcome{fail: true,
			en: fmt.Sprintf("%s: golden curve cannot be selected: %v.", c.Key, err),
			zh: fmt.Sprintf("%s：无法选择黄金曲线：%v。", c.Key, err)}
	}
	if !k.NumFound {
		return galOutcome{fail: true,
			en: fmt.Sprintf("%s: num_speculative_tokens not found in the %s role; golden AL cannot be selected.", c.Key, role),
			zh: fmt.Sprintf("%s：%s 角色中未找到 num_speculative_tokens，无法选择黄金接受长度。", c.Key, role)}
	}
	mode := "thinking_on"
	if sdThinkOff(settings) || galMasterThinkOff(c) {
		mode = "thinking_off"
	}
	file := path.Join(pr.Layout.GoldenDir, stem+".yaml")

	rd, ok := curves[stem]
	if !ok {
		data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, file)
		if err == nil {
			rd.curve, rd.err = ParseGoldenAL(data)
			if rd.err != nil {
				rd.err = fmt.Errorf("%s is malformed: %w", file, rd.err)
			}
		} else {
			rd.err = err
		}
		curves[stem] = rd
	}
	ev := []Evidence{{Label: "golden curve", Value: file + "@" + Short(pr.DefaultSHA)}}
	var golden float64
	var have bool
	switch {
	case rd.err != nil && errors.Is(rd.err, ErrNotFound):
	case rd.err != nil:
		return galOutcome{fail: true,
			en: fmt.Sprintf("Golden AL could not be verified for %s: %v.", c.Key, rd.err),
			zh: fmt.Sprintf("无法验证 %s 的黄金接受长度：%v。", c.Key, rd.err), ev: ev}
	default:
		golden, have = rd.curve.Value(mode, k.Num)
	}
	if !have {
		// (c) no committed curve (or no point for this draft length).
		what := fmt.Sprintf("no committed golden curve %s.yaml %s[%d] for %s", stem, mode, k.Num, c.Key)
		if galALSourceStated(pr.SignOff) {
			return galOutcome{review: true,
				en: what + "; the sign-off states an AL source.",
				zh: fmt.Sprintf("%s 没有已提交的黄金曲线 %s.yaml %s[%d]；签核说明了接受长度来源。", c.Key, stem, mode, k.Num), ev: ev}
		}
		return galOutcome{fail: true,
			en: what + " and the additional detail section does not state the AL source.",
			zh: fmt.Sprintf("%s 没有已提交的黄金曲线 %s.yaml %s[%d]，且补充说明部分未说明接受长度来源。", c.Key, stem, mode, k.Num), ev: ev}
	}
	val := &GoldenALValue{Key: c.Key, Stem: stem, Mode: mode, N: k.Num, AL: golden, Model: rd.curve.Model}
	ev = append(ev, Evidence{Label: "golden AL", Value: fmt.Sprintf("%s %s[%d] = %.2f", rd.curve.Model, mode, k.Num, golden)},
		Evidence{Label: "num_speculative_tokens", Value: fmt.Sprintf("%d (%s)", k.Num, k.NumSrc.where())})

	// (b) every pinned value equals the golden AL at two decimals.
	for _, p := range k.Pins {
		ev = append(ev, Evidence{Label: "pinned", Value: fmt.Sprintf("%s=%s (%s)", p.Knob, p.Src.Value, p.Src.where())})
		if sdRound2(p.AL) == sdRound2(golden) && !galIsNaN(p.AL) {
			continue
		}
		if galIsNaN(p.Raw) && strings.Contains(p.Src.Value, "$") {
			return galOutcome{review: true, ev: ev, value: val,
				en: fmt.Sprintf("%s sets %s from a shell variable (%s); golden %s[%d] is %.2f.", c.Key, p.Knob, dcQuote(p.Src.Value, 24), mode, k.Num, golden),
				zh: fmt.Sprintf("%s 通过 shell 变量设置 %s（%s）；黄金值 %s[%d] 为 %.2f。", c.Key, p.Knob, dcQuote(p.Src.Value, 24), mode, k.Num, golden)}
		}
		pinned := galFmt(p.Raw, p.Src.Value)
		en := fmt.Sprintf("%s pins %s %s; golden %s[%d] is %.2f.", c.Key, p.Knob, pinned, mode, k.Num, golden)
		zh := fmt.Sprintf("%s 固定 %s %s；黄金值 %s[%d] 为 %.2f。", c.Key, p.Knob, pinned, mode, k.Num, golden)
		if p.AL != p.Raw && !galIsNaN(p.AL) {
			en = fmt.Sprintf("%s pins %s %s (AL %.2f); golden %s[%d] is %.2f.", c.Key, p.Knob, pinned, p.AL, mode, k.Num, golden)
			zh = fmt.Sprintf("%s 固定 %s %s（接受长度 %.2f）；黄金值 %s[%d] 为 %.2f。", c.Key, p.Knob, pinned, p.AL, mode, k.Num, golden)
		}
		return galOutcome{fail: true, en: en, zh: zh, ev: ev, value: val}
	}
	name := fmt.Sprintf("%s %s n=%d %s", c.ModelPrefix, galMethodLabel(stem, c.ModelPrefix), k.Num, mode)
	if len(k.Pins) > 0 {
		// TRT pins accepted draft tokens (AL − 1): say what was pinned.
		if p := k.Pins[0]; p.AL != p.Raw && !galIsNaN(p.Raw) {
			return galOutcome{value: val, ev: ev,
				en: fmt.Sprintf("%s pinned %s %.2f (AL %.2f) = golden %s.yaml.", name, p.Knob, p.Raw, golden, stem),
				zh: fmt.Sprintf("%s 固定 %s %.2f（接受长度 %.2f）= 黄金曲线 %s.yaml。", name, p.Knob, p.Raw, golden, stem)}
		}
		return galOutcome{value: val, ev: ev,
			en: fmt.Sprintf("%s pinned %.2f = golden %s.yaml.", name, golden, stem),
			zh: fmt.Sprintf("%s 固定值 %.2f = 黄金曲线 %s.yaml。", name, golden, stem)}
	}
	via := "SRT launcher"
	if !injected {
		via = "harness (" + k.HarnessSrc.Name + ")"
	}
	return galOutcome{value: val, ev: ev,
		en: fmt.Sprintf("%s: %s injects golden %.2f from %s.yaml.", name, via, golden, stem),
		zh: fmt.Sprintf("%s：%s 注入黄金曲线 %s.yaml 的 %.2f。", name, via, stem, golden)}
}

func galIsNaN(f float64) bool { return f != f }

// galFmt prints a pinned value with two decimals, or as written when it is
// not a number.
func galFmt(f float64, raw string) string {
	if galIsNaN(f) {
		if raw == "" {
			return "(no value)"
		}
		return dcQuote(raw, 24)
	}
	return fmt.Sprintf("%.2f", f)
}

// galMethodLabel is the method as the PASS reason prints it (MTP, EAGLE3, DSpark).
func galMethodLabel(stem, prefix string) string {
	m := strings.TrimPrefix(stem, strings.ToLower(prefix)+"_")
	switch {
	case strings.Contains(stem, "dspark"):
		return "DSpark"
	case strings.HasPrefix(m, "eagle3"):
		return "EAGLE3"
	}
	return strings.ToUpper(m)
}

// galThroughLauncher reports whether the config runs through the e2e SRT
// launcher (an srt-recipe or CONFIG_FILE recipe), which injects the golden AL
// for agentic spec-decode throughput runs.
func galThroughLauncher(c *ConfigEntry) bool {
	for _, sc := range c.Scenarios {
		for _, ss := range sc.Search {
			if ss.SrtRecipe != "" || len(ss.ConfigFiles) > 0 {
				return true
			}
		}
	}
	return false
}

var (
	galALWordRE     = regexp.MustCompile(`(?i)\bAL\b|acceptance`)
	galExceptionRE  = regexp.MustCompile(`(?i)\bexception\b`)
	galSyntheticsRE = regexp.MustCompile(`(?i)synthetic|simulat|acceptance`)
)

// galALSourceStated is the PROPOSED detector of (c): the additional detail
// section mentions AL/acceptance and carries a URL.
func galALSourceStated(s SignOff) bool {
	return !s.DetailEmpty && galALWordRE.MatchString(s.Detail) && len(s.DetailLinks) > 0
}

func galExceptionDocumented(s SignOff) bool {
	return !s.DetailEmpty && galExceptionRE.MatchString(s.Detail) && galSyntheticsRE.MatchString(s.Detail)
}

// galCombine turns per-config outcomes into one row: the first failure
// (configs are in key order), else review, else all passes joined.
func galCombine(outs []galOutcome) Result {
	var data GoldenALData
	var ev []Evidence
	var fails, reviews, passes []galOutcome
	for _, o := range outs {
		if o.value != nil {
			data.Values = append(data.Values, *o.value)
		}
		ev = append(ev, o.ev...)
		switch {
		case o.fail:
			fails = append(fails, o)
		case o.review:
			reviews = append(reviews, o)
		default:
			passes = append(passes, o)
		}
	}
	sortGoldenValues(data.Values)
	var r Result
	switch {
	case len(fails) > 0:
		r = FailR(galJoin(fails), ev...)
	case len(reviews) > 0:
		r = ReviewR(galJoin(reviews), ev...)
	default:
		r = PassR(galJoin(passes), ev...)
	}
	r.Data = data
	return r
}

func galJoin(os []galOutcome) Text {
	t := Text{EN: os[0].en, ZH: os[0].zh}
	if len(os) > 1 {
		t.EN += fmt.Sprintf(" (+%d more)", len(os)-1)
		t.ZH += fmt.Sprintf("（另有 %d 项）", len(os)-1)
	}
	return t
}

// galMasterThinkOff reports whether the master entry's scenario or search
// space configures thinking off (a thinking* field set to thinking_off or a
// false value).
func galMasterThinkOff(c *ConfigEntry) bool {
	off := func(m map[string]any) bool {
		for k, v := range m {
			if !strings.Contains(strings.ToLower(k), "thinking") {
				continue
			}
			switch strings.ToLower(fmt.Sprint(v)) {
			case "thinking_off", "off", "false", "0", "disabled":
				return true
			}
		}
		return false
	}
	for _, sc := range c.Scenarios {
		if off(sc.Fields) {
			return true
		}
		for _, ss := range sc.Search {
			if off(ss.Fields) {
				return true
			}
		}
	}
	return false
}
