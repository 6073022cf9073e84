// Package serving reads what an affected config's effective settings say
// about how it is served: the speculative-decoding knobs (method, draft
// length, draft model, pinned acceptance) and the golden acceptance curves
// they are held to, signs of engine patching in scripts, and the major
// serving arguments an upstream recipe must show, with the upstream recipe
// links themselves. It reads the change-set model (never the files) and the
// Source only through the calls it is handed.
package serving

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Speculative-decoding knob extraction shared by Checks 11 and 13 reduces
// the engine-specific spellings to one view per config.

// Engine maps a master-config framework to its serving engine family.
func Engine(framework string) string {
	f := strings.ToLower(framework)
	switch {
	case strings.Contains(f, "vllm") || f == "llm-d":
		return "vllm"
	case strings.Contains(f, "sglang"):
		return "sglang"
	case strings.Contains(f, "trt"):
		return "trt"
	case strings.Contains(f, "atom"):
		return "atom"
	}
	return f
}

// KnobName folds the spellings of one knob together: leading dashes dropped,
// lower case, underscores as dashes. `--speculative_num_steps`,
// `speculative-num-steps` and `SPECULATIVE_NUM_STEPS` all become
// `speculative-num-steps`.
func KnobName(name string) string {
	n := strings.TrimLeft(strings.TrimSpace(name), "-")
	return strings.ReplaceAll(strings.ToLower(n), "_", "-")
}

// Truthy reports whether a setting value enables a boolean knob.
func Truthy(v string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`)) {
	case "1", "true", "on", "yes", "y", "enable", "enabled":
		return true
	}
	return false
}

// Falsy reports whether a setting value spells "disabled" (false, 0, no,
// off).
func Falsy(v string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// Unquote strips the quotes a shell or YAML value may carry.
func Unquote(v string) string {
	v = strings.TrimSpace(v)
	for len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = strings.TrimSpace(v[1 : len(v)-1])
	}
	return v
}

// parseFloat parses a finite decimal number.
func parseFloat(v string) (float64, bool) {
	f, err := strconv.ParseFloat(Unquote(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Round2 rounds to hundredths as an integer, so values committed with two
// decimals compare exactly (no float ==).
func Round2(f float64) int64 { return int64(math.Round(f * 100)) }

// GenRole is the generation role of a config: decode when the launch config
// has a decode role, else agg.
func GenRole(settings []repo.Setting) string {
	for _, s := range settings {
		if s.Role == "decode" {
			return "decode"
		}
	}
	return "agg"
}

// inRole keeps the settings that apply to role: the role's own and the
// role-less ones (scripts, shared helpers).
func inRole(settings []repo.Setting, role string) []repo.Setting {
	var out []repo.Setting
	for _, s := range settings {
		if s.Role == role || s.Role == "" {
			out = append(out, s)
		}
	}
	return out
}

// SpecConfig decodes a speculative-config value (JSON or YAML mapping) into
// snake_case keys. Oversized or non-mapping values yield nil.
func SpecConfig(v string) map[string]string {
	v = Unquote(v)
	if v == "" || len(v) > 64<<10 {
		return nil
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(v), &m); err != nil {
		return nil
	}
	out := map[string]string{}
	for k, val := range m {
		out[subKey(k)] = fmt.Sprint(val)
	}
	return out
}

func subKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "-", "_")
}

// KnobSource is one knob value with where it came from.
type KnobSource struct {
	Name    string // knob as written
	Value   string
	Setting repo.Setting
}

func (s KnobSource) Where() string {
	if s.Setting.File == "" {
		return s.Name
	}
	if s.Setting.Line > 0 {
		return fmt.Sprintf("%s:%d", s.Setting.File, s.Setting.Line)
	}
	return s.Setting.File
}

// Knobs is the speculative-decoding view of one role of a config.
type Knobs struct {
	Engine string
	Role   string
	// Method is the raw method (speculative-algorithm, speculative-config
	// method, decoding_type), lower case; empty when unset.
	Method      string
	Num         int
	NumFound    bool
	NumSrc      KnobSource
	DraftPath   string
	DraftSample string
	// Spec is the merged speculative-config / speculative_config mapping.
	Spec map[string]string
	// Pins are simulated acceptance lengths the role pins, already
	// converted to AL (TRT adds the bonus token, ATOM rates are scaled).
	Pins []Pin
	// Harness is set when a harness injects the golden AL itself
	// (legacy SYNTHETIC_ACCEPTANCE=true without an explicit length).
	Harness    bool
	HarnessSrc KnobSource
}

// Pin is one pinned simulated acceptance length.
type Pin struct {
	Knob string  // the knob name as the reason prints it
	Raw  float64 // the value as written
	AL   float64 // the acceptance length it means
	Src  KnobSource
}

// simKnobs are the names (normalized) that pin or enable simulated
// acceptance, used to detect synthetic acceptance on any config.
var simKnobs = map[string]bool{
	"sglang-simulate-acc-len":                    true,
	"tllm-spec-decode-force-num-accepted-tokens": true,
	"spec-decode-acceptance-length":              true,
	"spec-decode-acceptance-rate":                true,
	"synthetic-acceptance":                       true,
	"synthetic-acceptance-length":                true,
}

// ExtractKnobs reads the speculative-decoding knobs of role from settings.
func ExtractKnobs(engine, role string, settings []repo.Setting) Knobs {
	k := Knobs{Engine: engine, Role: role, Spec: map[string]string{}}
	rs := inRole(settings, role)
	by := map[string][]KnobSource{}
	for _, s := range rs {
		n := KnobName(s.Name)
		src := KnobSource{Name: s.Name, Value: Unquote(s.Value), Setting: s}
		by[n] = append(by[n], src)
		switch {
		case n == "speculative-config":
			for sk, sv := range SpecConfig(s.Value) {
				k.Spec[sk] = sv
			}
		case strings.HasPrefix(n, "speculative-config."):
			k.Spec[subKey(strings.TrimPrefix(n, "speculative-config."))] = Unquote(s.Value)
		}
	}
	last := func(n string) (KnobSource, bool) {
		v := by[n]
		if len(v) == 0 {
			return KnobSource{}, false
		}
		return v[len(v)-1], true
	}
	specSrc := func(sub string) KnobSource {
		for _, s := range rs {
			if n := KnobName(s.Name); n == "speculative-config" || n == "speculative-config."+strings.ReplaceAll(sub, "_", "-") {
				return KnobSource{Name: "speculative-config." + sub, Value: k.Spec[sub], Setting: s}
			}
		}
		return KnobSource{Name: "speculative-config." + sub, Value: k.Spec[sub]}
	}

	// Method.
	if s, ok := last("speculative-algorithm"); ok {
		k.Method = strings.ToLower(s.Value)
	} else if m := k.Spec["method"]; m != "" {
		k.Method = strings.ToLower(m)
	} else if m := k.Spec["decoding_type"]; m != "" {
		k.Method = strings.ToLower(m)
	} else if s, ok := last("method"); ok {
		k.Method = strings.ToLower(s.Value)
	}

	// Draft length, per engine, falling back to any known spelling.
	setNum := func(src KnobSource) bool {
		n, err := strconv.Atoi(Unquote(src.Value))
		if err != nil || n < 1 || n > 64 {
			return false
		}
		k.Num, k.NumFound, k.NumSrc = n, true, src
		return true
	}
	tryName := func(n string) bool {
		if s, ok := last(n); ok {
			return setNum(s)
		}
		return false
	}
	trySpec := func(sub string) bool {
		if _, ok := k.Spec[sub]; ok {
			return setNum(specSrc(sub))
		}
		return false
	}
	order := []func() bool{
		func() bool { return trySpec("num_speculative_tokens") },
		func() bool { return strings.Contains(k.Method, "dspark") && tryName("speculative-dspark-block-size") },
		func() bool { return tryName("speculative-num-steps") },
		func() bool { return trySpec("max_draft_len") },
		func() bool { return tryName("max-draft-len") },
		// TRT-LLM's MTPDecodingConfig spells the draft length
		// num_nextn_predict_layers.
		func() bool { return trySpec("num_nextn_predict_layers") },
		func() bool { return tryName("num-nextn-predict-layers") },
		func() bool { return tryName("num-speculative-tokens") },
		func() bool { return tryName("speculative-dspark-block-size") },
	}
	for _, f := range order {
		if f() {
			break
		}
	}

	// Draft model and sampling: the engines' spellings of the draft's path
	// (SGLang's flag, vLLM's speculative-config model, TRT-LLM's
	// speculative_model / speculative_model_dir, ATOM's --draft-model).
	for _, n := range []string{"speculative-draft-model-path"} {
		if s, ok := last(n); ok && k.DraftPath == "" {
			k.DraftPath = s.Value
		}
	}
	for _, sub := range []string{"model", "speculative_model", "speculative_model_dir", "draft_model"} {
		if m := k.Spec[sub]; m != "" && k.DraftPath == "" {
			k.DraftPath = m
		}
	}
	for _, n := range []string{"speculative-model", "speculative-model-dir", "draft-model", "draft-model-path"} {
		if s, ok := last(n); ok && k.DraftPath == "" {
			k.DraftPath = s.Value
		}
	}
	k.DraftPath = expandVars(k.DraftPath, rs)
	if v := k.Spec["draft_sample_method"]; v != "" {
		k.DraftSample = strings.ToLower(v)
	}
	if k.DraftSample == "" {
		// Engine spellings differ (--speculative-dspark-draft-sample-method,
		// draft-sample-method, …): take the first in name order.
		names := make([]string, 0, len(by))
		for n := range by {
			if strings.HasSuffix(n, "draft-sample-method") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		if len(names) > 0 {
			v := by[names[0]]
			k.DraftSample = strings.ToLower(v[len(v)-1].Value)
		}
	}

	// Simulated acceptance.
	if s, ok := last("sglang-simulate-acc-len"); ok {
		k.addPin("SGLANG_SIMULATE_ACC_LEN", s, 0)
	}
	if strings.EqualFold(k.Spec["rejection_sample_method"], "synthetic") {
		if _, ok := k.Spec["synthetic_acceptance_length"]; ok {
			k.addPin("synthetic_acceptance_length", specSrc("synthetic_acceptance_length"), 0)
		} else {
			// Synthetic rejection without a length: vLLM cannot run it as the
			// golden value, so it counts as a pin that matches nothing.
			src := specSrc("rejection_sample_method")
			src.Value = ""
			k.Pins = append(k.Pins, Pin{Knob: "synthetic_acceptance_length", Raw: math.NaN(), AL: math.NaN(), Src: src})
		}
	}
	if s, ok := last("tllm-spec-decode-force-num-accepted-tokens"); ok {
		k.addPin("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", s, 1)
	}
	if s, ok := last("spec-decode-acceptance-length"); ok {
		k.addPin("--spec-decode-acceptance-length", s, 0)
	}
	if s, ok := last("spec-decode-acceptance-rate"); ok {
		if r, ok2 := parseFloat(s.Value); ok2 && k.NumFound {
			k.Pins = append(k.Pins, Pin{Knob: "--spec-decode-acceptance-rate", Raw: r, AL: 1 + r*float64(k.Num), Src: s})
		} else {
			k.Pins = append(k.Pins, Pin{Knob: "--spec-decode-acceptance-rate", Raw: math.NaN(), AL: math.NaN(), Src: s})
		}
	}
	if s, ok := last("synthetic-acceptance"); ok && Truthy(s.Value) {
		if l, ok := last("synthetic-acceptance-length"); ok && l.Value != "" {
			k.addPin("SYNTHETIC_ACCEPTANCE_LENGTH", l, 0)
		} else {
			k.Harness, k.HarnessSrc = true, s
		}
	}
	return k
}

// varUseRE finds shell variable references in a value.
var varUseRE = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// expandVars replaces the shell variables in v with the values the settings
// assign them (the last plain assignment of each); unknown ones stay.
func expandVars(v string, settings []repo.Setting) string {
	if !strings.Contains(v, "$") {
		return v
	}
	return varUseRE.ReplaceAllStringFunc(v, func(ref string) string {
		name := varUseRE.FindStringSubmatch(ref)[1]
		val, ok := "", false
		for _, s := range settings {
			if s.Kind == "env" && s.Name == name && !strings.Contains(s.Value, "$") {
				val, ok = Unquote(s.Value), true
			}
		}
		if !ok {
			return ref
		}
		return val
	})
}

// addPin records a pinned value; offset is added to reach AL (TRT pins the
// accepted draft tokens, AL − 1). An unparsable value is kept as NaN so the
// comparison fails visibly instead of being skipped.
func (k *Knobs) addPin(knob string, s KnobSource, offset float64) {
	f, ok := parseFloat(s.Value)
	if !ok {
		k.Pins = append(k.Pins, Pin{Knob: knob, Raw: math.NaN(), AL: math.NaN(), Src: s})
		return
	}
	k.Pins = append(k.Pins, Pin{Knob: knob, Raw: f, AL: f + offset, Src: s})
}

// SyntheticKnobs lists every setting (any role) that pins or enables
// simulated acceptance, sorted by file and line.
func SyntheticKnobs(settings []repo.Setting) []repo.Setting {
	var out []repo.Setting
	for _, s := range settings {
		n := KnobName(s.Name)
		switch {
		case n == "synthetic-acceptance":
			if Truthy(s.Value) {
				out = append(out, s)
			}
		case simKnobs[n]:
			out = append(out, s)
		case n == "speculative-config":
			if strings.EqualFold(SpecConfig(s.Value)["rejection_sample_method"], "synthetic") {
				out = append(out, s)
			}
		case n == "speculative-config.rejection-sample-method":
			if strings.EqualFold(Unquote(s.Value), "synthetic") {
				out = append(out, s)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// ConfigMethod is the spec-decoding method the master entry declares: the
// first search-space spec-decoding value that is not none, else what the key
// says.
func ConfigMethod(c *repo.ConfigEntry) string {
	for _, sc := range c.Scenarios {
		for _, ss := range sc.Search {
			if m := strings.ToLower(strings.TrimSpace(ss.SpecDecoding)); m != "" && m != "none" {
				return m
			}
		}
	}
	k := strings.ToLower(c.Key)
	switch {
	case strings.Contains(k, "dspark"):
		return "dspark"
	case strings.Contains(k, "eagle"):
		return "eagle3"
	case strings.HasSuffix(k, "-mtp") || strings.Contains(k, "-mtp-"):
		return "mtp"
	}
	return ""
}

// AllSettings flattens the effective files of a config. A script flag whose
// value is a shell variable (--speculative-config "$SPEC_CONFIG") already
// comes once per assignment the reader found in effect, each marked with
// the run its branch belongs to (repo.Setting.Run).
func AllSettings(files []*repo.EffectiveFile) []repo.Setting {
	// A multi-node job's servers run with the environment its dry run
	// gave them: a variable a script exported on the host, which the
	// container was not handed, is not theirs.
	servers := slices.ContainsFunc(files, func(f *repo.EffectiveFile) bool { return f != nil && f.Kind == "trace" && f.Servers })
	var out []repo.Setting
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, s := range f.Settings {
			if servers && s.Kind == "env" && f.Kind != "trace" && f.Kind != "recipe" && f.Kind != "config" {
				continue
			}
			if s.File == "" {
				s.File = f.Path
			}
			out = append(out, s)
		}
	}
	return out
}

// Throughput drops the settings only the eval-only run makes (the branch a
// script takes when EVAL_ONLY is true): the throughput run, whose acceptance
// Check 11 holds to the golden value, never sees them.
func Throughput(settings []repo.Setting) []repo.Setting {
	var out []repo.Setting
	for _, s := range settings {
		if s.Run != repo.RunEvalOnly {
			out = append(out, s)
		}
	}
	return out
}

// FileErrors lists effective files of a config that could not be read.
func FileErrors(files []*repo.EffectiveFile) []string {
	var out []string
	for _, f := range files {
		if f != nil && f.Err != "" {
			// Parser errors often repeat the path; keep the row short.
			out = append(out, f.Path+": "+checks.Quote(strings.TrimPrefix(strings.TrimPrefix(f.Err, "parsing recipe "+f.Path+": "), f.Path+": "), 120))
		}
	}
	sort.Strings(out)
	return out
}

// ThinkingOff reports whether any setting of the config (server or benchmark
// client: thinking is requested through the chat template) turns thinking
// off: a thinking* knob with a false value, or the value thinking_off.
func ThinkingOff(settings []repo.Setting) bool {
	for _, s := range settings {
		v := strings.ToLower(Unquote(s.Value))
		if v == "thinking_off" {
			return true
		}
		if strings.Contains(KnobName(s.Name), "thinking") {
			switch v {
			case "off", "false", "0", "disabled", "no":
				return true
			}
		}
	}
	return false
}
