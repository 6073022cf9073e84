package inferencex

import (
	"context"
	"errors"
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

// GoldenAcceptance is row 11: agentic spec-decode configs must simulate
// acceptance at the committed golden AL (RULES.md, Check 11).
var GoldenAcceptance = &checks.Check{
	Number:   11,
	Name:     checks.Text{EN: "Golden acceptance", ZH: "黄金接受长度"},
	Requires: []checks.Requirement{GoldenEvaluation},
	Run: func(ctx context.Context, pr *checks.PR) checks.Result {
		g, err := GoldenEvaluation.Of(ctx, pr)
		if err != nil {
			return checks.Unverified(checks.T("golden acceptance could not be evaluated: "+err.Error(), "无法评估黄金接受长度："+checks.Code(err.Error())))
		}
		return g.Row
	},
}

// GoldenOutcome is Check 11's evaluation: its row and the golden values it
// selected, which Check 15 compares the PR description with.
type GoldenOutcome struct {
	Row    checks.Result
	Values []GoldenValue
}

// GoldenValue is the golden AL selected for one config.
type GoldenValue struct {
	Key   string
	Stem  string
	Mode  string
	N     int
	AL    float64
	Model string
}

// Has reports whether v equals one of the selected golden values at two
// decimals.
func (g GoldenOutcome) Has(v float64) bool {
	for _, x := range g.Values {
		if serving.Round2(x.AL) == serving.Round2(v) {
			return true
		}
	}
	return false
}

// GoldenEvaluation is Check 11's evaluation of the PR.
var GoldenEvaluation = checks.NewFact("golden acceptance evaluation", []checks.Requirement{changeset.Fact},
	func(ctx context.Context, pr *checks.PR) (GoldenOutcome, error) { return evaluateGolden(ctx, pr), nil })

// configOutcome is the verdict on one config (or one band of it).
type configOutcome struct {
	fail, review bool
	en, zh       string
	ev           []checks.Evidence
	values       []GoldenValue
}

func evaluateGolden(ctx context.Context, pr *checks.PR) GoldenOutcome {
	row := func(r checks.Result) GoldenOutcome { return GoldenOutcome{Row: r} }
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		return row(changeset.Unavailable(err))
	}
	var hacks, agentic []*repo.ConfigEntry
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
		knobs := serving.SyntheticKnobs(serving.AllSettings(cs.Effective[c.Key]))
		if len(knobs) == 0 {
			continue
		}
		s := knobs[0]
		ev := []checks.Evidence{{Label: "synthetic acceptance", Value: fmt.Sprintf("%s=%s (%s:%d)", s.Name, s.Value, s.File, s.Line)}}
		if why, bad := signoff.Unreadable(pr.SignOff); bad {
			return row(checks.Unverified(why).WithEvidence(ev...))
		}
		if signoff.ClaimsSyntheticException(pr.SignOff) {
			return row(checks.ReviewR(checks.T(
				fmt.Sprintf("%s is not agentic but sets %s in %s; a sanctioned exception is claimed in the sign-off.", c.Key, s.Name, s.File),
				fmt.Sprintf("%s 不是智能体配置，但在 %s 中设置了 %s；签核声明了特许例外。", c.Key, s.File, s.Name)), ev...))
		}
		return row(checks.FailR(checks.T(
			fmt.Sprintf("%s is not agentic but sets %s in %s (benchmark hack: synthetic acceptance is only for agentic spec-decode).", c.Key, s.Name, s.File),
			fmt.Sprintf("%s 不是智能体配置，却在 %s 中设置了 %s（基准测试篡改：模拟接受长度仅用于智能体场景的推测解码）。", c.Key, s.File, s.Name)), ev...))
	}
	if len(agentic) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return row(r)
		}
		return row(checks.NAR(checks.T("No agentic speculative-decoding changes.", "没有智能体场景的推测解码相关变更。")))
	}

	curves := map[string]curveRead{}
	var outs []configOutcome
	for _, c := range agentic {
		outs = append(outs, judgeConfig(ctx, pr, cs, c, curves))
	}
	return combineGolden(outs)
}

// curveRead is one golden file read, memoized per stem.
type curveRead struct {
	curve serving.Curve
	err   error
}

func judgeConfig(ctx context.Context, pr *checks.PR, cs *changeset.Model, c *repo.ConfigEntry, curves map[string]curveRead) configOutcome {
	files := cs.Effective[c.Key]
	settings := serving.AllSettings(files)
	if errs := serving.FileErrors(files); len(errs) > 0 {
		return configOutcome{fail: true,
			en: fmt.Sprintf("Golden AL could not be verified for %s: effective file unreadable (%s).", c.Key, errs[0]),
			zh: fmt.Sprintf("无法验证 %s 的黄金接受长度：有效文件无法读取（%s）。", c.Key, checks.Code(errs[0]))}
	}
	if len(settings) == 0 {
		return configOutcome{fail: true,
			en: "Golden AL could not be verified: no effective launch config was found for " + c.Key + ".",
			zh: "无法验证黄金接受长度：未找到 " + c.Key + " 的有效启动配置。"}
	}
	bands := serving.Bands(c, cs.Layout, files)
	if len(bands) == 1 && bands[0].Variant == "" {
		return judgeBand(ctx, pr, cs, c, bands[0], curves)
	}
	// A recipe with variants serves its points with several setups: every
	// band that runs a draft is held to its own golden value.
	var fails, reviews, passes []configOutcome
	var noDraft []string
	for _, b := range bands {
		if b.NoDraft {
			noDraft = append(noDraft, fmt.Sprintf("%s (%s)", b.Label(), b.NullAt))
			continue
		}
		o := judgeBand(ctx, pr, cs, c, b, curves)
		switch {
		case o.fail:
			fails = append(fails, o)
		case o.review:
			reviews = append(reviews, o)
		default:
			passes = append(passes, o)
		}
	}
	var all []configOutcome
	all = append(append(append(all, fails...), reviews...), passes...)
	out := configOutcome{fail: len(fails) > 0, review: len(fails) == 0 && len(reviews) > 0}
	for _, o := range all {
		out.ev = append(out.ev, o.ev...)
		out.values = append(out.values, o.values...)
	}
	if len(all) == 0 {
		out.en = fmt.Sprintf("%s: no band runs a draft (%s).", c.Key, strings.Join(noDraft, "; "))
		out.zh = fmt.Sprintf("%s：没有任何区段运行草稿模型（%s）。", c.Key, strings.Join(noDraft, "; "))
		return out
	}
	if out.fail || out.review {
		out.en, out.zh = all[0].en, all[0].zh
		return out
	}
	var en, zh []string
	for _, o := range passes {
		en, zh = append(en, strings.TrimSuffix(o.en, ".")), append(zh, strings.TrimSuffix(o.zh, "。"))
	}
	out.en, out.zh = strings.Join(en, "; ")+".", strings.Join(zh, "；")+"。"
	if len(noDraft) > 0 {
		out.en += fmt.Sprintf(" No draft in %s.", strings.Join(noDraft, "; "))
		out.zh += fmt.Sprintf("%s 不使用草稿模型。", strings.Join(noDraft, "；"))
	}
	return out
}

// judgeBand holds one band of a config to its golden value.
func judgeBand(ctx context.Context, pr *checks.PR, cs *changeset.Model, c *repo.ConfigEntry, b serving.Band, curves map[string]curveRead) configOutcome {
	files := cs.Effective[c.Key]
	settings := serving.Throughput(b.Settings)
	who, in := c.Key, ""
	if b.Variant != "" {
		who = c.Key + " (" + b.Label() + ")"
		in = " (" + b.Label() + ")"
	}
	role := serving.GenRole(settings)
	k := serving.ExtractKnobs(serving.Engine(c.Framework), role, settings)
	injected := cs.Layout.Name == "e2e" && serving.ThroughLauncher(c)

	// (a) simulation enabled in the generation role.
	if len(k.Pins) == 0 && !k.Harness && !injected {
		where := files[0].Path
		if k.NumFound {
			where = k.NumSrc.Where()
		}
		return configOutcome{fail: true,
			en: fmt.Sprintf("%s runs real acceptance: no simulated AL in the %s role (%s).", who, role, where),
			zh: fmt.Sprintf("%s 使用真实接受长度运行：%s 角色中没有模拟接受长度（%s）。", who, role, where)}
	}

	method := k.Method
	if method == "" {
		method = serving.ConfigMethod(c)
	}
	stem, err := serving.CurveStem(c.ModelPrefix, method, k.DraftPath, k.DraftSample)
	if err != nil {
		return configOutcome{fail: true,
			en: fmt.Sprintf("%s: golden curve cannot be selected: %v.", who, err),
			zh: fmt.Sprintf("%s：无法选择黄金曲线：%v。", who, err)}
	}
	if !k.NumFound {
		return configOutcome{fail: true,
			en: fmt.Sprintf("%s: num_speculative_tokens not found in the %s role; golden AL cannot be selected.", who, role),
			zh: fmt.Sprintf("%s：%s 角色中未找到 num_speculative_tokens，无法选择黄金接受长度。", who, role)}
	}
	mode := "thinking_on"
	if serving.ThinkingOff(settings) || serving.MasterThinkingOff(c) {
		mode = "thinking_off"
	}
	file := path.Join(cs.Layout.GoldenDir, stem+".yaml")

	rd, ok := curves[stem]
	if !ok {
		data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, file)
		if err == nil {
			rd.curve, rd.err = serving.ParseCurve(data)
			if rd.err != nil {
				rd.err = fmt.Errorf("%s is malformed: %w", file, rd.err)
			}
		} else {
			rd.err = fmt.Errorf("golden curve %s could not be read: %w", file, err)
		}
		curves[stem] = rd
	}
	ev := []checks.Evidence{{Label: "golden curve", Value: file + "@" + checks.Short(pr.DefaultSHA)}}
	var golden float64
	var have bool
	switch {
	case rd.err != nil && errors.Is(rd.err, checks.ErrNotFound):
	case rd.err != nil:
		return configOutcome{fail: true,
			en: fmt.Sprintf("Golden AL could not be verified for %s: %v.", c.Key, rd.err),
			zh: fmt.Sprintf("无法验证 %s 的黄金接受长度：%s。", c.Key, checks.Code(rd.err.Error())), ev: ev}
	default:
		golden, have = rd.curve.Value(mode, k.Num)
	}
	if !have {
		// (c) no committed curve (or no point for this draft length).
		what := fmt.Sprintf("no committed golden curve %s.yaml %s[%d] for %s", stem, mode, k.Num, who)
		if why, bad := signoff.Unreadable(pr.SignOff); bad {
			return configOutcome{fail: true,
				en: fmt.Sprintf("Golden AL could not be verified for %s: %s, and %s.", c.Key, what, why.EN),
				zh: fmt.Sprintf("无法验证 %s 的黄金接受长度：%s 没有已提交的黄金曲线 %s.yaml %s[%d]，且%s。", c.Key, who, stem, mode, k.Num, why.ZH), ev: ev}
		}
		if signoff.StatesALSource(pr.SignOff) {
			return configOutcome{review: true,
				en: what + "; the sign-off states an AL source.",
				zh: fmt.Sprintf("%s 没有已提交的黄金曲线 %s.yaml %s[%d]；签核说明了接受长度来源。", who, stem, mode, k.Num), ev: ev}
		}
		return configOutcome{fail: true,
			en: what + " and the additional detail section does not state the AL source.",
			zh: fmt.Sprintf("%s 没有已提交的黄金曲线 %s.yaml %s[%d]，且补充说明部分未说明接受长度来源。", who, stem, mode, k.Num), ev: ev}
	}
	vals := []GoldenValue{{Key: c.Key, Stem: stem, Mode: mode, N: k.Num, AL: golden, Model: rd.curve.Model}}
	ev = append(ev, checks.Evidence{Label: "golden AL", Value: fmt.Sprintf("%s %s[%d] = %.2f", rd.curve.Model, mode, k.Num, golden)},
		checks.Evidence{Label: "num_speculative_tokens", Value: fmt.Sprintf("%d (%s)", k.Num, k.NumSrc.Where())})

	// (b) every pinned value equals the golden AL at two decimals.
	for _, p := range k.Pins {
		ev = append(ev, checks.Evidence{Label: "pinned", Value: fmt.Sprintf("%s=%s (%s)", p.Knob, p.Src.Value, p.Src.Where())})
		if serving.Round2(p.AL) == serving.Round2(golden) && !isNaN(p.AL) {
			continue
		}
		if isNaN(p.Raw) && strings.Contains(p.Src.Value, "$") {
			return configOutcome{review: true, ev: ev, values: vals,
				en: fmt.Sprintf("%s sets %s from a shell variable (%s); golden %s[%d] is %.2f.", who, p.Knob, checks.Quote(p.Src.Value, 24), mode, k.Num, golden),
				zh: fmt.Sprintf("%s 通过 shell 变量设置 %s（%s）；黄金值 %s[%d] 为 %.2f。", who, p.Knob, checks.Quote(p.Src.Value, 24), mode, k.Num, golden)}
		}
		pinned := formatPin(p.Raw, p.Src.Value)
		en := fmt.Sprintf("%s pins %s %s; golden %s[%d] is %.2f.", who, p.Knob, pinned, mode, k.Num, golden)
		zh := fmt.Sprintf("%s 固定 %s %s；黄金值 %s[%d] 为 %.2f。", who, p.Knob, pinned, mode, k.Num, golden)
		if p.AL != p.Raw && !isNaN(p.AL) {
			en = fmt.Sprintf("%s pins %s %s (AL %.2f); golden %s[%d] is %.2f.", who, p.Knob, pinned, p.AL, mode, k.Num, golden)
			zh = fmt.Sprintf("%s 固定 %s %s（接受长度 %.2f）；黄金值 %s[%d] 为 %.2f。", who, p.Knob, pinned, p.AL, mode, k.Num, golden)
		}
		return configOutcome{fail: true, en: en, zh: zh, ev: ev, values: vals}
	}
	name := fmt.Sprintf("%s %s n=%d %s%s", c.ModelPrefix, serving.MethodLabel(stem, c.ModelPrefix), k.Num, mode, in)
	if len(k.Pins) > 0 {
		// TRT pins accepted draft tokens (AL − 1): say what was pinned.
		if p := k.Pins[0]; p.AL != p.Raw && !isNaN(p.Raw) {
			return configOutcome{values: vals, ev: ev,
				en: fmt.Sprintf("%s pinned %s %.2f (AL %.2f) = golden %s.yaml.", name, p.Knob, p.Raw, golden, stem),
				zh: fmt.Sprintf("%s 固定 %s %.2f（接受长度 %.2f）= 黄金曲线 %s.yaml。", name, p.Knob, p.Raw, golden, stem)}
		}
		return configOutcome{values: vals, ev: ev,
			en: fmt.Sprintf("%s pinned %.2f = golden %s.yaml.", name, golden, stem),
			zh: fmt.Sprintf("%s 固定值 %.2f = 黄金曲线 %s.yaml。", name, golden, stem)}
	}
	via := "SRT launcher"
	if !injected {
		via = "harness (" + k.HarnessSrc.Name + ")"
	}
	return configOutcome{values: vals, ev: ev,
		en: fmt.Sprintf("%s: %s injects golden %.2f from %s.yaml.", name, via, golden, stem),
		zh: fmt.Sprintf("%s：%s 注入黄金曲线 %s.yaml 的 %.2f。", name, via, stem, golden)}
}

func isNaN(f float64) bool { return f != f }

// formatPin prints a pinned value with two decimals, or as written when it is
// not a number.
func formatPin(f float64, raw string) string {
	if isNaN(f) {
		if raw == "" {
			return "(no value)"
		}
		return checks.Quote(raw, 24)
	}
	return fmt.Sprintf("%.2f", f)
}

// combineGolden turns per-config outcomes into one row: the first failure
// (configs are in key order), else review, else all passes joined.
func combineGolden(outs []configOutcome) GoldenOutcome {
	var g GoldenOutcome
	var ev []checks.Evidence
	var fails, reviews, passes []configOutcome
	for _, o := range outs {
		g.Values = append(g.Values, o.values...)
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
	sort.Slice(g.Values, func(i, j int) bool { return g.Values[i].Key < g.Values[j].Key })
	switch {
	case len(fails) > 0:
		g.Row = checks.FailR(firstOutcome(fails), ev...)
	case len(reviews) > 0:
		g.Row = checks.ReviewR(firstOutcome(reviews), ev...)
	default:
		g.Row = checks.PassR(firstOutcome(passes), ev...)
	}
	return g
}

func firstOutcome(os []configOutcome) checks.Text {
	return checks.Text{EN: os[0].en, ZH: os[0].zh}.AndMore(len(os) - 1)
}
