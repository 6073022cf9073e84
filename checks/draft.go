package checks

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// DraftPrecisionCheck is row 13 of the InferenceX preset: the draft model or
// head must run at the precision it ships with.
func DraftPrecisionCheck() Check { return row(13, runDraftPrecision) }

// dpFinding is one red flag in a config's effective settings.
type dpFinding struct {
	review bool
	en, zh string
	ev     Evidence
	order  string
}

func runDraftPrecision(ctx context.Context, pr *PR) Result {
	cs, err := pr.ChangeSet(ctx)
	if err != nil || cs == nil {
		return Unverified(T("change set unavailable: "+specErrText(err), "变更集不可用："+specErrText(err)))
	}
	var spec []*ConfigEntry
	for _, c := range cs.Affected {
		if c != nil && c.SpecDecode {
			spec = append(spec, c)
		}
	}
	if len(spec) == 0 {
		if r, bad := specInputsUnread(pr, cs); bad {
			return r
		}
		// Changed shared files that map to no config may still reach a
		// spec-decode config: their added lines must not enable a named
		// draft-lowering knob.
		if f, ok := dpScanUnmapped(cs); ok {
			return FailR(T(f.en, f.zh), f.ev)
		}
		return NAR(T("No affected configuration uses speculative decoding.", "没有受影响的配置使用推测解码。"))
	}

	var fails, reviews []dpFinding
	var unread []string
	for _, c := range spec {
		files := cs.Effective[c.Key]
		if len(files) == 0 {
			unread = append(unread, c.Key+" (no effective files)")
		}
		for _, e := range sdFileErrors(files) {
			unread = append(unread, c.Key+": "+e)
		}
		for _, f := range dpScan(c, sdAllSettings(files)) {
			if f.review {
				reviews = append(reviews, f)
			} else {
				fails = append(fails, f)
			}
		}
	}
	sort.SliceStable(fails, func(i, j int) bool { return fails[i].order < fails[j].order })
	sort.SliceStable(reviews, func(i, j int) bool { return reviews[i].order < reviews[j].order })
	var ev []Evidence
	for _, f := range append(append([]dpFinding(nil), fails...), reviews...) {
		ev = append(ev, f.ev)
	}
	if len(fails) > 0 {
		return FailR(dpJoin(fails), ev...)
	}
	stored, served, ok := dpEvidence(pr.SignOff)
	if !ok {
		return FailR(T("Draft precision could not be verified: sign-off does not record draft checkpoint and stored/effective precision",
			"无法验证草稿模型精度：签核未记录草稿检查点及其存储/实际精度"), ev...)
	}
	if len(reviews) > 0 {
		return ReviewR(dpJoin(reviews), ev...)
	}
	if len(unread) > 0 {
		sort.Strings(unread)
		return Unverified(T("effective launch files of spec-decode configs could not be read: "+strings.Join(unread, "; "),
			"推测解码配置的有效启动文件无法读取："+strings.Join(unread, "; ")))
	}
	en := "Draft precision per sign-off evidence; no draft-lowering settings in the effective recipe."
	zh := "草稿模型精度以签核证据为准；有效配方中没有降低草稿精度的设置。"
	if stored != "" && served != "" {
		en = fmt.Sprintf("Draft stored %s, served %s (sign-off evidence); no draft-lowering settings.", stored, served)
		zh = fmt.Sprintf("草稿模型存储为 %s，运行为 %s（签核证据）；没有降低草稿精度的设置。", stored, served)
	}
	return PassR(T(en, zh), Evidence{Label: "sign-off evidence", Value: dcQuote(pr.SignOff.Detail, 200)})
}

func dpJoin(fs []dpFinding) Text {
	t := Text{EN: fs[0].en, ZH: fs[0].zh}
	if len(fs) > 1 {
		t.EN += fmt.Sprintf(" (+%d more)", len(fs)-1)
		t.ZH += fmt.Sprintf("（另有 %d 项）", len(fs)-1)
	}
	return t
}

// dpWhere names a setting's source the way the reason prints it: the recipe
// role's env/args block, or the script (and line) that sets it.
func dpWhere(s Setting) string {
	if s.Role != "" {
		block := "args"
		if s.Kind == "env" {
			block = "env"
		}
		return fmt.Sprintf("in %s roles.%s.%s", s.File, s.Role, block)
	}
	if s.Line > 0 {
		return fmt.Sprintf("via %s:%d", s.File, s.Line)
	}
	return "via " + s.File
}

// dpLowering matches draft quantizations that lower the shipped precision.
var dpLowering = regexp.MustCompile(`^(quark_.*|.*fp8.*|.*fp4.*|mxfp4|nvfp4|w8a8.*|int4|int8|awq.*|gptq.*|modelopt.*)$`)

// dpPrecisionTok finds precision markers in checkpoint paths.
var dpPrecisionTok = regexp.MustCompile(`(?i)(fp8|fp4|nvfp4|mxfp4|int4|int8|w8a8|w4a16|awq|gptq|quant)`)

func dpScan(c *ConfigEntry, settings []Setting) []dpFinding {
	var out []dpFinding
	add := func(review bool, s Setting, en, zh string) {
		out = append(out, dpFinding{review: review, en: en, zh: zh, order: fmt.Sprintf("%s\x00%s\x00%08d", c.Key, s.File, s.Line),
			ev: Evidence{Label: c.Key, Value: fmt.Sprintf("%s=%s (%s:%d, role %q)", s.Name, s.Value, s.File, s.Line, s.Role)}})
	}
	for _, s := range settings {
		if s.Kind == "command" {
			continue
		}
		n := sdNorm(s.Name)
		if s.Kind == "key" {
			// Dotted recipe paths: the knob is the last segment.
			n = n[strings.LastIndex(n, ".")+1:]
		}
		v := sdUnquote(s.Value)
		lv := strings.ToLower(v)
		switch {
		case n == "sglang-nvfp4-ckpt-fp8-nextn-moe":
			if sdTruthy(v) {
				add(false, s, fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s (%s); remove it and verify the draft runs as shipped.", v, dpWhere(s), c.Key),
					fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s（%s）；请删除该设置并确认草稿模型按发布精度运行。", v, dpWhere(s), c.Key))
			} else if lv != "" && lv != "0" && lv != "false" && lv != "off" && lv != "no" {
				add(true, s, fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s (%s) has an unrecognized value.", v, dpWhere(s), c.Key),
					fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s（%s）取值无法识别。", v, dpWhere(s), c.Key))
			}
		case n == "sglang-glm-nextn-moe-ptpc":
			if sdTruthy(v) {
				add(false, s, fmt.Sprintf("SGLANG_GLM_NEXTN_MOE_PTPC=%s %s (%s) lowers the NextN draft precision; remove it.", v, dpWhere(s), c.Key),
					fmt.Sprintf("SGLANG_GLM_NEXTN_MOE_PTPC=%s %s（%s）降低了 NextN 草稿精度；请删除。", v, dpWhere(s), c.Key))
			}
		case n == "speculative-draft-model-quantization" || n == "speculative-config.quantization" || n == "speculative-config.dtype":
			dpQuant(add, c, s, s.Name, lv)
		case n == "speculative-config":
			m := sdSpecConfig(s.Value)
			for _, sub := range []string{"quantization", "dtype"} {
				if q, ok := m[sub]; ok {
					dpQuant(add, c, s, "speculative-config "+sub, strings.ToLower(q))
				}
			}
			if p := m["model"]; p != "" {
				dpPath(add, c, s, p)
			}
		case n == "speculative-draft-model-path":
			dpPath(add, c, s, v)
		case n == "speculative-draft-model-revision" || n == "speculative-draft-revision":
			add(true, s, fmt.Sprintf("%s pins draft revision %s (%s); confirm it is the shipped draft.", c.Key, dcQuote(v, 40), s.File),
				fmt.Sprintf("%s 固定了草稿版本 %s（%s）；请确认其为发布版本。", c.Key, dcQuote(v, 40), s.File))
		case strings.Contains(n, "draft") && (strings.Contains(n, "dtype") || strings.Contains(n, "kv-cache")):
			add(true, s, fmt.Sprintf("%s overrides %s=%s for the draft (%s).", c.Key, s.Name, dcQuote(v, 40), s.File),
				fmt.Sprintf("%s 为草稿模型覆盖了 %s=%s（%s）。", c.Key, s.Name, dcQuote(v, 40), s.File))
		case n == "online-quant-config":
			add(true, s, fmt.Sprintf("%s sets %s (%s); verify its exclude_layer list covers the draft modules.", c.Key, s.Name, s.File),
				fmt.Sprintf("%s 设置了 %s（%s）；请确认 exclude_layer 覆盖草稿模块。", c.Key, s.Name, s.File))
		}
	}
	return out
}

func dpQuant(add func(bool, Setting, string, string), c *ConfigEntry, s Setting, name, q string) {
	q = strings.TrimSpace(strings.Trim(q, `"'`))
	switch {
	case q == "" || q == "none" || q == "unquant" || q == "null" || q == "<nil>" || q == "auto" && strings.Contains(name, "dtype"):
	case dpLowering.MatchString(q):
		add(false, s, fmt.Sprintf("%s %s %s lowers the draft precision (%s); serve the draft as shipped.", name, q, dpWhere(s), c.Key),
			fmt.Sprintf("%s %s %s 降低了草稿精度（%s）；请按发布精度运行草稿模型。", name, q, dpWhere(s), c.Key))
	default:
		add(true, s, fmt.Sprintf("%s %s %s (%s) may change the draft precision.", name, dcQuote(q, 40), dpWhere(s), c.Key),
			fmt.Sprintf("%s %s %s（%s）可能改变草稿精度。", name, dcQuote(q, 40), dpWhere(s), c.Key))
	}
}

// dpPath flags a draft checkpoint whose name carries a precision marker the
// target model does not: a re-quantized draft rather than the shipped one.
func dpPath(add func(bool, Setting, string, string), c *ConfigEntry, s Setting, p string) {
	p = sdUnquote(p)
	tok := strings.ToLower(dpPrecisionTok.FindString(p))
	if tok == "" || strings.Contains(strings.ToLower(c.Model), tok) {
		return
	}
	add(true, s, fmt.Sprintf("%s draft %s looks re-quantized (%s) relative to %s; confirm it is the shipped draft.", c.Key, dcQuote(p, 60), tok, c.Model),
		fmt.Sprintf("%s 的草稿 %s 似乎经过重新量化（%s），与 %s 不一致；请确认其为发布的草稿。", c.Key, dcQuote(p, 60), tok, c.Model))
}

var (
	dpDraftWordRE = regexp.MustCompile(`(?i)\b(draft|mtp|eagle3?|dspark|nextn)\b`)
	dpPrecRE      = regexp.MustCompile(`(?i)\b(bf16|fp16|fp8|fp4|nvfp4|mxfp4|int4|int8)\b`)
	dpStoredRE    = regexp.MustCompile(`(?i)\bstored\s*(?:as|in|:|=)?\s*(bf16|fp16|fp8|fp4|nvfp4|mxfp4|int4|int8)\b`)
	dpServedRE    = regexp.MustCompile(`(?i)\b(?:effective|served|serves|runs|running)\s*(?:as|in|at|:|=)?\s*(bf16|fp16|fp8|fp4|nvfp4|mxfp4|int4|int8)\b`)
	dpWordsRE     = regexp.MustCompile(`(?i)\b(stored|effective)\b`)
)

// dpEvidence is the PROPOSED detector of the sign-off's draft precision
// evidence: the additional detail section names the draft (draft, MTP,
// EAGLE, DSpark, NextN) and a precision, stated twice (stored + effective)
// or with the words stored/effective. It also returns the stored and served
// precisions when they are written out.
func dpEvidence(s SignOff) (stored, served string, ok bool) {
	if s.DetailEmpty {
		return "", "", false
	}
	d := s.Detail
	if !dpDraftWordRE.MatchString(d) {
		return "", "", false
	}
	precs := dpPrecRE.FindAllString(d, -1)
	if len(precs) == 0 || len(precs) < 2 && !dpWordsRE.MatchString(d) {
		return "", "", false
	}
	if m := dpStoredRE.FindStringSubmatch(d); m != nil {
		stored = strings.ToUpper(m[1])
	}
	if m := dpServedRE.FindStringSubmatch(d); m != nil {
		served = strings.ToUpper(m[1])
	}
	return stored, served, true
}

var dpAddedKnobRE = regexp.MustCompile(`\b(SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE|SGLANG_GLM_NEXTN_MOE_PTPC)\s*[=:]\s*["']?([A-Za-z0-9]+)`)

// dpScanUnmapped looks for an enabled named knob in the added lines of
// changed benchmark/runner files that no config maps to.
func dpScanUnmapped(cs *ChangeSet) (dpFinding, bool) {
	for _, p := range cs.UnmappedFiles {
		for _, l := range cs.AddedLines[p] {
			t := strings.TrimSpace(l.Text)
			if strings.HasPrefix(t, "#") {
				continue
			}
			m := dpAddedKnobRE.FindStringSubmatch(t)
			if m == nil || !sdTruthy(m[2]) {
				continue
			}
			return dpFinding{
				en: fmt.Sprintf("%s=%s via %s:%d (shared file, configs not mapped); remove it and verify the draft runs as shipped.", m[1], m[2], p, l.Line),
				zh: fmt.Sprintf("%s=%s 来自 %s:%d（共享文件，未映射到配置）；请删除该设置并确认草稿模型按发布精度运行。", m[1], m[2], p, l.Line),
				ev: Evidence{Label: "added line", Value: fmt.Sprintf("%s:%d", p, l.Line)},
			}, true
		}
	}
	return dpFinding{}, false
}
