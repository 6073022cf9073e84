package inferencex

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/serving"
)

// DraftPrecision is row 13: the draft model or head must run at the
// precision it ships with (RULES.md, Check 13).
var DraftPrecision = &checks.Check{
	Number:   13,
	SignOff:  checks.SignOffJudged,
	Name:     checks.Text{EN: "Draft precision", ZH: "草稿模型精度"},
	Requires: []checks.Requirement{changeset.Fact, changeset.SharedUsersFact},
	Run:      runDraftPrecision,
}

// draftFinding is one red flag in a config's effective settings.
type draftFinding struct {
	review bool
	en, zh string
	ev     checks.Evidence
	order  string
}

func runDraftPrecision(ctx context.Context, pr *checks.PR) checks.Result {
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil || cs == nil {
		return changeset.Unavailable(err)
	}
	var spec []*repo.ConfigEntry
	for _, c := range cs.Affected {
		if c != nil && c.SpecDecode {
			spec = append(spec, c)
		}
	}
	effective := cs.Effective
	var unread, unreadZH []string
	var sharedEv []checks.Evidence
	if len(cs.UnmappedFiles) > 0 {
		// A changed shared helper or launcher affects every spec-decode
		// config that runs it, unchanged files included.
		users, err := changeset.SharedUsersFact.Of(ctx, pr)
		if err != nil {
			return checks.Unverified(checks.T("the configs that run the changed shared files could not be found: "+err.Error(),
				"无法确定哪些配置运行了变更的共享文件："+err.Error()))
		}
		var added []*repo.ConfigEntry
		spec, added, unread, unreadZH = withSharedUsers(cs, users, spec)
		if len(added) > 0 {
			effective = map[string][]*repo.EffectiveFile{}
			for k, fs := range cs.Effective {
				effective[k] = fs
			}
			for _, c := range added {
				effective[c.Key] = users.Effective[c.Key]
				sharedEv = append(sharedEv, checks.Evidence{Label: c.Key, Value: "runs changed shared file " + strings.Join(sharedFilesOf(users, c.Key), ", ")})
			}
		}
	}
	if len(spec) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		// Changed shared files that map to no config may still reach a
		// spec-decode config: their added lines must not enable a named
		// draft-lowering knob.
		if f, ok := scanUnmapped(cs); ok {
			return checks.FailR(checks.T(f.en, f.zh), f.ev)
		}
		if len(unread) > 0 {
			sort.Strings(unread)
			sort.Strings(unreadZH)
			return checks.Unverified(checks.T("whether a spec-decode config runs the changed shared files is unknown: "+strings.Join(unread, "; "),
				"无法确定推测解码配置是否运行了变更的共享文件："+strings.Join(unreadZH, "；")))
		}
		return checks.NAR(checks.T("No affected configuration uses speculative decoding.", "没有受影响的配置使用推测解码。"))
	}

	var fails, reviews []draftFinding
	for _, c := range spec {
		files := effective[c.Key]
		if len(files) == 0 {
			unread = append(unread, c.Key+" (no effective files)")
			unreadZH = append(unreadZH, c.Key+"（没有有效文件）")
		}
		for _, e := range serving.FileErrors(files) {
			unread = append(unread, c.Key+": "+e)
			unreadZH = append(unreadZH, c.Key+"："+checks.Code(e))
		}
		for _, f := range scanDraftSettings(c, serving.AllSettings(files)) {
			if f.review {
				reviews = append(reviews, f)
			} else {
				fails = append(fails, f)
			}
		}
	}
	sort.SliceStable(fails, func(i, j int) bool { return fails[i].order < fails[j].order })
	sort.SliceStable(reviews, func(i, j int) bool { return reviews[i].order < reviews[j].order })
	var ev []checks.Evidence
	for _, f := range append(append([]draftFinding(nil), fails...), reviews...) {
		ev = append(ev, f.ev)
	}
	if len(fails) > 0 {
		return checks.FailR(firstFinding(fails), ev...)
	}
	if why, bad := signoff.Unreadable(pr.SignOff); bad {
		return checks.Unverified(why).WithEvidence(ev...)
	}
	stored, served, ok := signoff.DraftPrecision(pr.SignOff)
	if !ok {
		return checks.FailR(checks.T("Draft precision could not be verified: sign-off does not record draft checkpoint and stored/effective precision",
			"无法验证草稿模型精度：签核未记录草稿检查点及其存储/实际精度"), ev...)
	}
	if len(reviews) > 0 {
		return checks.ReviewR(firstFinding(reviews), ev...)
	}
	if len(unread) > 0 {
		sort.Strings(unread)
		sort.Strings(unreadZH)
		return checks.Unverified(checks.T("effective launch files of spec-decode configs could not be read: "+strings.Join(unread, "; "),
			"推测解码配置的有效启动文件无法读取："+strings.Join(unreadZH, "；")))
	}
	en := "Draft precision per sign-off evidence; no draft-lowering settings in the effective recipe."
	zh := "草稿模型精度以签核证据为准；有效配方中没有降低草稿精度的设置。"
	if stored != "" && served != "" {
		en = fmt.Sprintf("Draft stored %s, served %s (sign-off evidence); no draft-lowering settings.", stored, served)
		zh = fmt.Sprintf("草稿模型存储为 %s，运行为 %s（签核证据）；没有降低草稿精度的设置。", stored, served)
	}
	return checks.PassR(checks.T(en, zh), append(sharedEv, checks.Evidence{Label: "sign-off evidence", Value: checks.Quote(pr.SignOff.Detail, 200)})...)
}

// withSharedUsers adds to spec the spec-decode configs that run a changed
// shared file. unread names the spec-decode configs (or configs whose
// recipe could not be read, so whether they are spec-decode is unknown)
// whose effective files could not all be read: whether they run the shared
// file is unknown.
func withSharedUsers(cs *changeset.Model, users *changeset.SharedUsers, spec []*repo.ConfigEntry) (all, added []*repo.ConfigEntry, unread, unreadZH []string) {
	in := map[string]bool{}
	for _, c := range spec {
		in[c.Key] = true
	}
	for _, c := range cs.Affected {
		in[c.Key] = true // already judged from the change set
	}
	use := map[string]bool{}
	for _, keys := range users.Users {
		for _, k := range keys {
			use[k] = true
		}
	}
	keys := make([]string, 0, len(users.Configs))
	for k := range users.Configs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := users.Configs[k]
		if in[k] {
			continue
		}
		recipeUnread := false
		var bad []string
		for _, f := range users.Effective[k] {
			if f != nil && f.Err != "" {
				bad = append(bad, f.Path)
				recipeUnread = recipeUnread || f.Kind == "recipe"
			}
		}
		switch {
		case use[k] && c.SpecDecode:
			added = append(added, c)
		case len(bad) > 0 && (c.SpecDecode || recipeUnread):
			unread = append(unread, fmt.Sprintf("%s (%s could not be read)", k, strings.Join(bad, ", ")))
			unreadZH = append(unreadZH, fmt.Sprintf("%s（无法读取 %s）", k, strings.Join(bad, ", ")))
		}
	}
	return append(spec, added...), added, unread, unreadZH
}

// sharedFilesOf are the changed shared files config key runs.
func sharedFilesOf(users *changeset.SharedUsers, key string) []string {
	var out []string
	for p, keys := range users.Users {
		for _, k := range keys {
			if k == key {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

func firstFinding(fs []draftFinding) checks.Text {
	return checks.Text{EN: fs[0].en, ZH: fs[0].zh}.AndMore(len(fs) - 1)
}

// loweringQuantRE matches draft quantizations that lower the shipped precision.
var loweringQuantRE = regexp.MustCompile(`^(quark_.*|.*fp8.*|.*fp4.*|mxfp4|nvfp4|w8a8.*|int4|int8|awq.*|gptq.*|modelopt.*)$`)

// precisionTokenRE finds precision markers in checkpoint paths.
var precisionTokenRE = regexp.MustCompile(`(?i)(fp8|fp4|nvfp4|mxfp4|int4|int8|w8a8|w4a16|awq|gptq|quant)`)

func scanDraftSettings(c *repo.ConfigEntry, settings []repo.Setting) []draftFinding {
	var out []draftFinding
	add := func(review bool, s repo.Setting, en, zh string) {
		out = append(out, draftFinding{review: review, en: en, zh: zh, order: fmt.Sprintf("%s\x00%s\x00%08d", c.Key, s.File, s.Line),
			ev: checks.Evidence{Label: c.Key, Value: fmt.Sprintf("%s=%s (%s:%d, role %q)", s.Name, s.Value, s.File, s.Line, s.Role)}})
	}
	for _, s := range settings {
		if s.Kind == "command" {
			continue
		}
		n := serving.KnobName(s.Name)
		if s.Kind == "key" {
			// Dotted recipe paths: the knob is the last segment.
			n = n[strings.LastIndex(n, ".")+1:]
		}
		v := serving.Unquote(s.Value)
		lv := strings.ToLower(v)
		switch {
		case n == "sglang-nvfp4-ckpt-fp8-nextn-moe":
			if serving.Truthy(v) {
				add(false, s, fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s (%s); remove it and verify the draft runs as shipped.", v, s.Where().EN, c.Key),
					fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s（%s）；请删除该设置并确认草稿模型按发布精度运行。", v, s.Where().ZH, c.Key))
			} else if lv != "" && lv != "0" && lv != "false" && lv != "off" && lv != "no" {
				add(true, s, fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s (%s) has an unrecognized value.", v, s.Where().EN, c.Key),
					fmt.Sprintf("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=%s %s（%s）取值无法识别。", v, s.Where().ZH, c.Key))
			}
		case n == "sglang-glm-nextn-moe-ptpc":
			if serving.Truthy(v) {
				add(false, s, fmt.Sprintf("SGLANG_GLM_NEXTN_MOE_PTPC=%s %s (%s) lowers the NextN draft precision; remove it.", v, s.Where().EN, c.Key),
					fmt.Sprintf("SGLANG_GLM_NEXTN_MOE_PTPC=%s %s（%s）降低了 NextN 草稿精度；请删除。", v, s.Where().ZH, c.Key))
			}
		case n == "speculative-draft-model-quantization" || n == "speculative-config.quantization" || n == "speculative-config.dtype":
			judgeQuant(add, c, s, s.Name, lv)
		case n == "speculative-config":
			m := serving.SpecConfig(s.Value)
			for _, sub := range []string{"quantization", "dtype"} {
				if q, ok := m[sub]; ok {
					judgeQuant(add, c, s, "speculative-config "+sub, strings.ToLower(q))
				}
			}
			if p := m["model"]; p != "" {
				judgeDraftPath(add, c, s, p)
			}
		case n == "speculative-draft-model-path":
			judgeDraftPath(add, c, s, v)
		case n == "speculative-draft-model-revision" || n == "speculative-draft-revision":
			add(true, s, fmt.Sprintf("%s pins draft revision %s (%s); confirm it is the shipped draft.", c.Key, checks.Quote(v, 40), s.File),
				fmt.Sprintf("%s 固定了草稿版本 %s（%s）；请确认其为发布版本。", c.Key, checks.Quote(v, 40), s.File))
		case strings.Contains(n, "draft") && (strings.Contains(n, "dtype") || strings.Contains(n, "kv-cache")):
			add(true, s, fmt.Sprintf("%s overrides %s=%s for the draft (%s).", c.Key, s.Name, checks.Quote(v, 40), s.File),
				fmt.Sprintf("%s 为草稿模型覆盖了 %s=%s（%s）。", c.Key, s.Name, checks.Quote(v, 40), s.File))
		case n == "online-quant-config" || n == "quantization-config":
			judgeOnlineQuant(add, c, s, s.Name, serving.ParseOnlineQuant(s.Value))
		case n == "additional-config":
			if q, ok := serving.OnlineQuantIn(s.Value); ok {
				judgeOnlineQuant(add, c, s, s.Name+" online_quant_config", q)
			}
		}
	}
	return out
}

func judgeQuant(add func(bool, repo.Setting, string, string), c *repo.ConfigEntry, s repo.Setting, name, q string) {
	q = strings.TrimSpace(strings.Trim(q, `"'`))
	switch {
	case q == "" || q == "none" || q == "unquant" || q == "null" || q == "<nil>" || q == "auto" && strings.Contains(name, "dtype"):
	case loweringQuantRE.MatchString(q):
		add(false, s, fmt.Sprintf("%s %s %s lowers the draft precision (%s); serve the draft as shipped.", name, q, s.Where().EN, c.Key),
			fmt.Sprintf("%s %s %s 降低了草稿精度（%s）；请按发布精度运行草稿模型。", name, q, s.Where().ZH, c.Key))
	default:
		add(true, s, fmt.Sprintf("%s %s %s (%s) may change the draft precision.", name, checks.Quote(q, 40), s.Where().EN, c.Key),
			fmt.Sprintf("%s %s %s（%s）可能改变草稿精度。", name, checks.Quote(q, 40), s.Where().ZH, c.Key))
	}
}

// judgeOnlineQuant reviews an online quantization config (ATOM's
// online_quant_config, vLLM's quantization-config) unless its exclude list
// demonstrably leaves the draft's modules out: an entry naming them.
func judgeOnlineQuant(add func(bool, repo.Setting, string, string), c *repo.ConfigEntry, s repo.Setting, name string, q serving.OnlineQuant) {
	if _, ok := q.ExcludesDraft(); ok {
		return
	}
	if !q.Parsed {
		add(true, s, fmt.Sprintf("%s sets %s %s, which could not be read to tell whether it leaves the draft unquantized.", c.Key, name, s.Where().EN),
			fmt.Sprintf("%s 设置了 %s（%s），其内容无法读取，无法确认草稿模型未被量化。", c.Key, name, s.Where().ZH))
		return
	}
	add(true, s, fmt.Sprintf("%s sets online quantization %s %s, and no exclude entry names the draft modules (mtp, nextn, eagle, draft); verify the draft is not quantized.", c.Key, name, s.Where().EN),
		fmt.Sprintf("%s 设置了在线量化 %s（%s），其排除列表中没有指向草稿模块（`mtp`、`nextn`、`eagle`、`draft`）的条目；请确认草稿模型未被量化。", c.Key, name, s.Where().ZH))
}

// judgeDraftPath flags a draft checkpoint whose name carries a precision marker the
// target model does not: a re-quantized draft rather than the shipped one.
func judgeDraftPath(add func(bool, repo.Setting, string, string), c *repo.ConfigEntry, s repo.Setting, p string) {
	p = serving.Unquote(p)
	tok := strings.ToLower(precisionTokenRE.FindString(p))
	if tok == "" || strings.Contains(strings.ToLower(c.Model), tok) {
		return
	}
	add(true, s, fmt.Sprintf("%s draft %s looks re-quantized (%s) relative to %s; confirm it is the shipped draft.", c.Key, checks.Quote(p, 60), tok, c.Model),
		fmt.Sprintf("%s 的草稿 %s 似乎经过重新量化（%s），与 %s 不一致；请确认其为发布的草稿。", c.Key, checks.Quote(p, 60), tok, c.Model))
}

var addedKnobRE = regexp.MustCompile(`\b(SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE|SGLANG_GLM_NEXTN_MOE_PTPC)\s*[=:]\s*["']?([A-Za-z0-9]+)`)

// scanUnmapped looks for an enabled named knob in the added lines of
// changed benchmark/runner files that no config maps to.
func scanUnmapped(cs *changeset.Model) (draftFinding, bool) {
	for _, p := range cs.UnmappedFiles {
		for _, l := range cs.AddedLines[p] {
			t := strings.TrimSpace(l.Text)
			if strings.HasPrefix(t, "#") {
				continue
			}
			m := addedKnobRE.FindStringSubmatch(t)
			if m == nil || !serving.Truthy(m[2]) {
				continue
			}
			return draftFinding{
				en: fmt.Sprintf("%s=%s via %s:%d (shared file, configs not mapped); remove it and verify the draft runs as shipped.", m[1], m[2], p, l.Line),
				zh: fmt.Sprintf("%s=%s 来自 %s:%d（共享文件，未映射到配置）；请删除该设置并确认草稿模型按发布精度运行。", m[1], m[2], p, l.Line),
				ev: checks.Evidence{Label: "added line", Value: fmt.Sprintf("%s:%d", p, l.Line)},
			}, true
		}
	}
	return draftFinding{}, false
}
