package serving

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Online quantization (RULES.md, Check 13): ATOM's online_quant_config
// (a flag, or inside vLLM's --additional-config for the ATOM plugin) and
// vLLM's --quantization-config quantize the checkpoint while it loads. A
// draft that lives in the checkpoint (an MTP or NextN head) is quantized
// with it unless the config's exclude list leaves it out.

// OnlineQuant is an online quantization config as a setting gives it.
type OnlineQuant struct {
	// Parsed is false when the value is not a mapping Verdict can read.
	Parsed bool
	// Excludes are the entries of its exclude lists (ATOM exclude_layer,
	// vLLM ignore), at any depth.
	Excludes []string
}

// maxQuantBytes bounds a quantization config value; real ones are a few
// hundred bytes.
const maxQuantBytes = 64 << 10

// ParseOnlineQuant reads a quantization config value (JSON or YAML).
func ParseOnlineQuant(v string) OnlineQuant {
	v = Unquote(v)
	if v == "" || len(v) > maxQuantBytes {
		return OnlineQuant{}
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(v), &m); err != nil || m == nil {
		return OnlineQuant{}
	}
	q := OnlineQuant{Parsed: true}
	collectExcludes(m, &q.Excludes, 0)
	return q
}

// OnlineQuantIn returns the online_quant_config inside a vLLM
// --additional-config value, if it has one.
func OnlineQuantIn(additional string) (OnlineQuant, bool) {
	v := Unquote(additional)
	if v == "" || len(v) > maxQuantBytes {
		return OnlineQuant{}, false
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(v), &m); err != nil {
		return OnlineQuant{}, false
	}
	oq, ok := m["online_quant_config"]
	if !ok || oq == nil {
		return OnlineQuant{}, false
	}
	sub, isMap := oq.(map[string]any)
	if !isMap {
		// The value may itself be a JSON string.
		if s, isStr := oq.(string); isStr {
			return ParseOnlineQuant(s), true
		}
		return OnlineQuant{}, true
	}
	q := OnlineQuant{Parsed: true}
	collectExcludes(sub, &q.Excludes, 0)
	return q, true
}

func collectExcludes(m map[string]any, out *[]string, depth int) {
	if depth > 8 {
		return
	}
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			collectExcludes(x, out, depth+1)
		case []any:
			switch strings.ToLower(k) {
			case "exclude_layer", "exclude_layers", "exclude", "ignore", "ignored_layers", "modules_to_not_convert":
				for _, e := range x {
					if s, ok := e.(string); ok {
						*out = append(*out, s)
					}
				}
			}
		}
	}
}

// draftWords are the words a module pattern names a draft with: the
// speculative methods' own names for the head they add.
var draftWords = map[string]bool{"mtp": true, "nextn": true, "eagle": true, "eagle3": true, "draft": true, "dspark": true, "speculator": true}

// ExcludesDraft returns the first exclude entry that names the draft's
// modules as a word ("re:.*mtp\..*", "*nextn*", "model.mtp"). A numbered
// layer ("model.layers.78.*") may be the draft, but Verdict cannot tell
// without the checkpoint's layer count.
func (q OnlineQuant) ExcludesDraft() (string, bool) {
	for _, e := range q.Excludes {
		for _, w := range words(e, false) {
			if draftWords[w] {
				return e, true
			}
		}
	}
	return "", false
}
