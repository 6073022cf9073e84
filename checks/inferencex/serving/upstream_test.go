package serving

import (
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

func TestURHas(t *testing.T) {
	tp := func(v string) MajorArg { a := majorArgs[0]; a.Value = v; return a }
	q := func(v string) MajorArg { a := majorArgs[6]; a.Value = v; return a }
	dpa := majorArgs[4]
	tests := []struct {
		text string
		arg  MajorArg
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
		if got := NewCorpus(tc.text).Shows(tc.arg); got != tc.want {
			t.Errorf("Shows(%q, %s) = %v, want %v", tc.text, tc.arg, got, tc.want)
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

// TestURMajorArgsDisagg: disaggregated serving args are compared too, so a
// disagg recipe needs upstream text that shows its prefill/decode split.
func TestURMajorArgsDisagg(t *testing.T) {
	e := &repo.ConfigEntry{Key: "dsv4-fp8-h200-dynamo-sglang-agentic-disagg-mtp"}
	cs := &changeset.Model{Effective: map[string][]*repo.EffectiveFile{e.Key: {{Path: "r.yaml", Settings: []repo.Setting{
		{Name: "disaggregation-mode", Value: "prefill", Role: "prefill", Kind: "arg"},
		{Name: "tp-size", Value: "8", Role: "prefill", Kind: "arg"},
		{Name: "disaggregation-mode", Value: "decode", Role: "decode", Kind: "arg"},
		{Name: "disaggregation-transfer-backend", Value: "nixl", Role: "decode", Kind: "arg"},
	}}}}}
	args, _ := MajorArgs([]*repo.ConfigEntry{e}, cs)
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
	agg := NewCorpus("python -m sglang.launch_server --tp-size 8")
	pd := NewCorpus("--disaggregation-mode prefill --disaggregation-transfer-backend nixl --tp 8\n--disaggregation-mode decode --disaggregation-transfer-backend nixl --tp 8")
	for _, a := range args[1:] {
		if agg.Shows(a) {
			t.Errorf("aggregated-only recipe text shows %s", a)
		}
		if !pd.Shows(a) {
			t.Errorf("PD recipe text does not show %s", a)
		}
	}
}
