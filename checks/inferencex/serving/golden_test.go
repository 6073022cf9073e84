package serving

import (
	"strings"
	"testing"
)

func TestParseGoldenAL(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string
		model    string
		mode     string
		n        int
		al       float64
	}{
		{name: "documented shape", in: "# header\nm-fp8:\n  thinking_on:\n    1: 1.85\n    3: 3.02\n  thinking_off:\n    1: 1.81\n",
			model: "m-fp8", mode: "thinking_off", n: 1, al: 1.81},
		{name: "only thinking_on", in: "m:\n  thinking_on:\n    6: 3.77\n", model: "m", mode: "thinking_on", n: 6, al: 3.77},
		{name: "two models", in: "a:\n  thinking_on: {1: 1.5}\nb:\n  thinking_on: {1: 1.5}\n", wantErr: "exactly one top-level key"},
		{name: "empty", in: "", wantErr: "parsing golden AL YAML"},
		{name: "list root", in: "- 1\n", wantErr: "not a mapping"},
		{name: "unknown mode", in: "m:\n  thinking_maybe: {1: 1.5}\n", wantErr: "unknown thinking mode"},
		{name: "non-integer length", in: "m:\n  thinking_on: {one: 1.5}\n", wantErr: "not an integer"},
		{name: "out of range high", in: "m:\n  thinking_on: {1: 2.5}\n", wantErr: "outside [1, 2]"},
		{name: "out of range low", in: "m:\n  thinking_on: {2: 0.5}\n", wantErr: "outside [1, 3]"},
		{name: "not finite", in: "m:\n  thinking_on: {2: .nan}\n", wantErr: "not a finite number"},
		{name: "duplicate length", in: "m:\n  thinking_on:\n    1: 1.5\n    1: 1.6\n", wantErr: "duplicate draft length"},
		{name: "aliases refused", in: "m:\n  thinking_on: &a {1: 1.5}\n  thinking_off: *a\n", wantErr: "anchors or aliases"},
		{name: "two documents", in: "m:\n  thinking_on: {1: 1.5}\n---\nx: 1\n", wantErr: "more than one YAML document"},
		{name: "too large", in: "m:\n" + strings.Repeat("#", maxCurveBytes), wantErr: "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCurve([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Model != tc.model {
				t.Fatalf("model = %q, want %q", c.Model, tc.model)
			}
			if v, ok := c.Value(tc.mode, tc.n); !ok || v != tc.al {
				t.Fatalf("%s[%d] = %v %v, want %v", tc.mode, tc.n, v, ok, tc.al)
			}
		})
	}
}

func TestCurveStem(t *testing.T) {
	tests := []struct {
		prefix, method, draft, sample string
		want, wantErr                 string
	}{
		{prefix: "qwen3.5", method: "EAGLE", want: "qwen3.5_mtp"},
		{prefix: "glm5.2", method: "NEXTN", want: "glm5.2_mtp"},
		{prefix: "dsv4", method: "deepseek_mtp", want: "dsv4_mtp"},
		{prefix: "minimaxm3", method: "EAGLE", want: "minimaxm3_eagle3"},
		{prefix: "minimaxm3", method: "eagle3", draft: "org/MiniMax-M3-Eagle3-GQA", want: "minimaxm3_eagle3_gqa"},
		{prefix: "minimaxm3", method: "eagle3", draft: "org/MiniMax-M3-Eagle3", want: "minimaxm3_eagle3"},
		{prefix: "kimik2.5", method: "eagle3", want: "kimik2.5_eagle3"},
		{prefix: "dsv4", method: "dspark", want: "dsv4-pro-0813-dspark"},
		{prefix: "dsv4dspark", method: "DSPARK", want: "dsv4-pro-0813-dspark"},
		{prefix: "dsv4dsparkprob", method: "dspark", want: "dsv4-pro-0813-dspark"},
		{prefix: "kimik3", method: "dspark", sample: "greedy", want: "kimik3_dspark"},
		{prefix: "kimik3", method: "dspark", sample: "probabilistic", want: "kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method"},
		{prefix: "kimik3", method: "dspark", wantErr: "draft_sample_method"},
		{prefix: "", method: "mtp", wantErr: "model-prefix"},
		{prefix: "x", method: "none", wantErr: "not set"},
		{prefix: "../../etc", method: "mtp", wantErr: "plain file name"},
		{prefix: "a/b", method: "mtp", wantErr: "plain file name"},
	}
	for _, tc := range tests {
		got, err := CurveStem(tc.prefix, tc.method, tc.draft, tc.sample)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("CurveStem(%q,%q) err = %v, want %q", tc.prefix, tc.method, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CurveStem(%q,%q,%q,%q) = %q, %v; want %q", tc.prefix, tc.method, tc.draft, tc.sample, got, err, tc.want)
		}
	}
}

func FuzzParseGoldenAL(f *testing.F) {
	f.Add([]byte("m:\n  thinking_on:\n    1: 1.85\n    2: 2.52\n"))
	f.Add([]byte("a: &x {thinking_on: {1: 1.5}}\nb: *x\n"))
	f.Add([]byte("m:\n  thinking_off: {3: 4}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCurve(data)
		if err != nil {
			return
		}
		if c.Model == "" || len(c.Modes) == 0 {
			t.Fatalf("accepted a curve without model or modes: %#v", c)
		}
		for mode, tbl := range c.Modes {
			for n, v := range tbl {
				if v < 1 || v > float64(n+1) || v != v {
					t.Fatalf("%s[%d] = %v accepted outside [1, n+1]", mode, n, v)
				}
			}
		}
	})
}
