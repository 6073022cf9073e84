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
