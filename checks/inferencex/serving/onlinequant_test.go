package serving

import "testing"

func TestOnlineQuant(t *testing.T) {
	for _, tc := range []struct {
		name, v  string
		parsed   bool
		excludes bool
	}{
		{"ATOM GLM example, numbered MTP layer", `'{"global_quant_config":"ptpc_fp8","exclude_layer":["lm_head","model.layers.78.*"]}'`, true, false},
		{"ATOM names the MTP block", `{"global_quant_config":"ptpc_fp8","exclude_layer":["lm_head","*mtp*"]}`, true, true},
		{"vLLM ignore regex", `{"linear":{"weight":"mxfp8"},"ignore":["re:.*visual\\..*","re:.*mtp\\..*","lm_head"]}`, true, true},
		{"vLLM without the draft", `{"linear":{"weight":"mxfp8"},"ignore":["lm_head"]}`, true, false},
		{"nested exclude list", `{"moe":{"weight":"fp8","ignore":["model.nextn.*"]}}`, true, true},
		{"a word inside another word is not the draft", `{"ignore":["*mtproto*"]}`, true, false},
		{"not a mapping", `fp8`, false, false},
		{"broken JSON", `{"ignore": [`, false, false},
	} {
		q := ParseOnlineQuant(tc.v)
		_, ex := q.ExcludesDraft()
		if q.Parsed != tc.parsed || ex != tc.excludes {
			t.Errorf("%s: parsed %v excludes %v (%q)", tc.name, q.Parsed, ex, q.Excludes)
		}
	}
	q, ok := OnlineQuantIn(`{"online_quant_config": {"global_quant_config": "ptpc_fp8", "exclude_layer": ["lm_head", "*block_sparse_moe"]}}`)
	if _, ex := q.ExcludesDraft(); !ok || !q.Parsed || ex || len(q.Excludes) != 2 {
		t.Errorf("additional-config: %+v %v", q, ok)
	}
	if _, ok := OnlineQuantIn(`{"kv_cache": "fp8"}`); ok {
		t.Error("an additional-config without online quantization has one")
	}
}

func FuzzParseOnlineQuant(f *testing.F) {
	f.Add(`{"global_quant_config":"ptpc_fp8","exclude_layer":["lm_head","*mtp*"]}`)
	f.Add(`{"online_quant_config": "{\"exclude_layer\": [\"x\"]}"}`)
	f.Fuzz(func(t *testing.T, v string) {
		q := ParseOnlineQuant(v)
		if e, ok := q.ExcludesDraft(); ok && e == "" {
			t.Fatal("an empty entry excludes the draft")
		}
		_, _ = OnlineQuantIn(v)
	})
}
