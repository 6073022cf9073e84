package checks

import "testing"

func TestURHas(t *testing.T) {
	tp := func(v string) urArg { a := urMajor[0]; a.value = v; return a }
	q := func(v string) urArg { a := urMajor[6]; a.value = v; return a }
	dpa := urMajor[4]
	tests := []struct {
		text string
		arg  urArg
		want bool
	}{
		{"python -m sglang.launch_server --tp-size=8", tp("8"), true},
		{"vllm serve m \\\n  --tensor_parallel_size 8", tp("8"), true},
		{"Run on TP8 with EP8", tp("8"), true},
		{"tp 8", tp("8"), true},
		{"--tp-size 88", tp("8"), false},
		{"--tp-size 4\nbatch 8", tp("8"), false},
		{"--stp-size 8", tp("8"), false},
		{"--quantization fp8", q("fp8"), true},
		{"--quantization fp8x", q("fp8"), false},
		{"--kv-cache-quantization fp8", q("fp8"), false},
		{"--enable-dp-attention", dpa, true},
		{"enable_dp_attention: true", dpa, true},
		{"--enable-dp-attention-x", dpa, false},
	}
	for _, tc := range tests {
		if got := urHas(newURCorpus(tc.text), tc.arg); got != tc.want {
			t.Errorf("urHas(%q, %s) = %v, want %v", tc.text, tc.arg, got, tc.want)
		}
	}
}

func FuzzParseUpstreamLink(f *testing.F) {
	f.Add("https://github.com/sgl-project/sglang/pull/21873/files")
	f.Add("https://recipes.vllm.ai/Qwen/Qwen3.5")
	f.Add("https://github.com/vllm-project/recipes/pull/-1")
	f.Fuzz(func(t *testing.T, u string) {
		l, ok := ParseUpstreamLink(u)
		if !ok {
			return
		}
		if l.Engine != "vllm" && l.Engine != "sglang" {
			t.Fatalf("engine %q", l.Engine)
		}
		if l.Kind == "pr" && l.Number <= 0 {
			t.Fatalf("pr link without number: %+v", l)
		}
		_ = l.Name()
	})
}

// TestURMajorArgsDisagg: gen 4 compares disaggregated serving args too, so a
// disagg recipe needs upstream text that shows its prefill/decode split.
func TestURMajorArgsDisagg(t *testing.T) {
	e := &ConfigEntry{Key: "dsv4-fp8-h200-dynamo-sglang-agentic-disagg-mtp"}
	cs := &ChangeSet{Effective: map[string][]*EffectiveFile{e.Key: {{Path: "r.yaml", Settings: []Setting{
		{Name: "disaggregation-mode", Value: "prefill", Role: "prefill", Kind: "arg"},
		{Name: "tp-size", Value: "8", Role: "prefill", Kind: "arg"},
		{Name: "disaggregation-mode", Value: "decode", Role: "decode", Kind: "arg"},
		{Name: "disaggregation-transfer-backend", Value: "nixl", Role: "decode", Kind: "arg"},
	}}}}}
	args, _ := urMajorArgs([]*ConfigEntry{e}, cs)
	var got []string
	for _, a := range args {
		got = append(got, a.String())
	}
	want := []string{"TP 8", "disaggregation-mode decode", "disaggregation-mode prefill", "disaggregation-transfer-backend nixl"}
	if len(got) != len(want) {
		t.Fatalf("args %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("args %q, want %q", got, want)
		}
	}
	agg := newURCorpus("python -m sglang.launch_server --tp-size 8")
	pd := newURCorpus("--disaggregation-mode prefill --disaggregation-transfer-backend nixl --tp 8\n--disaggregation-mode decode --disaggregation-transfer-backend nixl --tp 8")
	for _, a := range args[1:] {
		if urHas(agg, a) {
			t.Errorf("aggregated-only recipe text shows %s", a)
		}
		if !urHas(pd, a) {
			t.Errorf("PD recipe text does not show %s", a)
		}
	}
}
