package sweep

import (
	"math"
	"strings"
	"testing"
)

func TestSanitizePyJSON(t *testing.T) {
	tests := map[string]string{
		`{"a": NaN, "b": -Infinity, "c": Infinity}`: `{"a": "NaN", "b": "-Infinity", "c": "Infinity"}`,
		`{"s": "NaN Infinity \" NaN"}`:              `{"s": "NaN Infinity \" NaN"}`,
		`[1, 2.5e3]`:                                `[1, 2.5e3]`,
	}
	for in, want := range tests {
		if got := string(sanitizePyJSON([]byte(in))); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

func TestParseAggEval(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		metrics []string
		invalid string
		err     bool
	}{
		{"strict and flexible", `[{"model_prefix":"q","task":"gsm8k","em_strict":0.9,"em_strict_se":0.01,"em_flexible":0.91,"score":0.9,"score_name":"em_strict","n_eff":10}]`, []string{"em_strict", "em_flexible"}, "", false},
		{"null flexible is skipped", `[{"task":"gsm8k","em_strict":0.9,"em_flexible":null}]`, []string{"em_strict"}, "", false},
		{"accuracy-only uses score", `[{"task":"mmlu","em_strict":null,"em_flexible":null,"score":0.7,"score_name":"accuracy"}]`, []string{"accuracy"}, "", false},
		{"resolved uses score", `[{"task":"swebench_lite","score":0.6,"score_name":"resolved"}]`, []string{"resolved"}, "", false},
		{"no score", `[{"task":"gsm8k"}]`, nil, "no score", false},
		{"boolean score", `[{"task":"gsm8k","em_strict":true}]`, nil, "em_strict is not a finite score in [0,1] (true)", false},
		{"string score", `[{"task":"gsm8k","em_strict":"0.9"}]`, nil, `em_strict is not a finite score in [0,1] ("0.9")`, false},
		{"negative", `[{"task":"gsm8k","em_strict":-0.1}]`, nil, "em_strict is not a finite score in [0,1] (-0.1)", false},
		{"infra false", `[{"task":"gsm8k","em_strict":0.9,"infrastructure_success":false}]`, []string{"em_strict"}, "infrastructure_success is false", false},
		{"integration error object", `[{"task":"gsm8k","em_strict":0.9,"integration_error":{"code":1}}]`, []string{"em_strict"}, `integration_error: {"code":1}`, false},
		{"integration error null is fine", `[{"task":"gsm8k","em_strict":0.9,"infrastructure_success":true,"integration_error":null}]`, []string{"em_strict"}, "", false},
		{"not an array", `{"task":"gsm8k"}`, nil, "", true},
		{"null row", `[null]`, nil, "", true},
		{"garbage", `[{`, nil, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := ParseAggEval([]byte(tc.in))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v", err)
			}
			if tc.err {
				return
			}
			r := rows[0]
			var names []string
			for _, m := range r.Metrics {
				names = append(names, m.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.metrics, ",") || r.Invalid != tc.invalid {
				t.Errorf("metrics %v invalid %q, want %v %q", names, r.Invalid, tc.metrics, tc.invalid)
			}
		})
	}
}

func TestParseLMEvalResult(t *testing.T) {
	in := `{"lm_eval_version":"0.4.12","results":{"gsm8k":{"exact_match,strict-match":0.95,"exact_match_stderr,strict-match":0.006,
"exact_match,flexible-extract":0.96,"alias":"gsm8k"},"other":{"acc,none":0.5}},"n-samples":{"gsm8k":{"effective":1319}}}`
	rows, ok, err := ParseLMEvalResult([]byte(in))
	if err != nil || !ok || len(rows) != 1 {
		t.Fatalf("rows %v ok %v err %v", rows, ok, err)
	}
	r := rows[0]
	if r.Task != "gsm8k" || r.N != 1319 || len(r.Metrics) != 2 || r.Metrics[1].Name != "exact_match,strict-match" || !r.Metrics[1].HasSE || r.Metrics[0].HasSE {
		t.Errorf("row %+v", r)
	}
	if _, ok, _ := ParseLMEvalResult([]byte(`{"results":{}}`)); ok {
		t.Errorf("a file without lm_eval_version is not a result file")
	}
	if _, ok, _ := ParseLMEvalResult([]byte(`{"result_format":"inferencex-eval-v1","results":{}}`)); !ok {
		t.Errorf("inferencex-eval-v1 is a result file")
	}
}

func TestParseMetaEnv(t *testing.T) {
	m, err := ParseMetaEnv([]byte(`{"infmax_model_prefix":"q","eval_concs":[32,64],"completed_eval_concs":[32],"failed_eval_concs":[]}`))
	if err != nil || !m.Batched || len(m.EvalConcs) != 2 || len(m.Completed) != 1 {
		t.Fatalf("%+v %v", m, err)
	}
	if _, err := ParseMetaEnv([]byte(`{"eval_concs":[1.5]}`)); err == nil {
		t.Errorf("fractional concurrency accepted")
	}
	if m, _ := ParseMetaEnv([]byte(`{"conc":8}`)); m.Batched {
		t.Errorf("unbatched meta marked batched")
	}
}

func TestParseThresholds(t *testing.T) {
	th, err := ParseThresholds([]byte("default:\n  gsm8k: 0.9\nmodels:\n  qwen3.5: { gsm8k: 0.94 }\n"), 0.85)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prefix, task string
		want         float64
		from         string
	}{
		{"qwen3.5", "gsm8k", 0.94, "models.qwen3.5.gsm8k"},
		{"dsr1", "gsm8k", 0.9, "default.gsm8k"},
		{"qwen3.5", "mmlu", 0.85, "fallback"},
	} {
		if v, from := th.For(c.prefix, c.task); v != c.want || from != c.from {
			t.Errorf("%s/%s = %v %s", c.prefix, c.task, v, from)
		}
	}
	// e2e JSON with the same shape, and a legacy flat map.
	if th, err := ParseThresholds([]byte(`{"default": {"gsm8k": 0.9, "tool_call": 0}, "models": {"dsv4": {"gsm8k": 0.91}}}`), 0.85); err != nil || th.Models["dsv4"]["gsm8k"] != 0.91 || th.Default["tool_call"] != 0 {
		t.Errorf("json: %+v %v", th, err)
	}
	if th, err := ParseThresholds([]byte("gsm8k: 0.8\n"), 0.85); err != nil || th.Default["gsm8k"] != 0.8 {
		t.Errorf("flat: %+v %v", th, err)
	}
	for _, bad := range []string{"default: [1]", "default: {gsm8k: 2}", "models: 3", "- a", "a: &a [*a]", "default: {x: .nan}"} {
		if _, err := ParseThresholds([]byte(bad), 0.85); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	bomb := "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	if _, err := ParseThresholds([]byte(bomb), 0.85); err == nil {
		t.Errorf("alias bomb accepted")
	}
}

func TestHardwareKeyAndCurveKey(t *testing.T) {
	tests := []struct {
		r    BenchRow
		want string
	}{
		{BenchRow{ModelPrefix: "dsr1", Scenario: "8k1k", HW: "b200-dgxc", Framework: "sglang", Precision: "FP4", Spec: "mtp"}, "dsr1/8k1k/b200_sglang_mtp/fp4/7/median"},
		{BenchRow{ModelPrefix: "dsr1", Scenario: "1k1k", HW: "B200", Framework: "sglang", Precision: "fp4", Spec: "none"}, "dsr1/1k1k/b200_sglang/fp4/7/median"},
		{BenchRow{ModelPrefix: "dsr1", Scenario: "1k1k", HW: "h200", Framework: "vllm", Precision: "fp8", Spec: "eagle"}, "dsr1/1k1k/h200_vllm_eagle/fp8/7/median"},
		{BenchRow{ModelPrefix: "q", Scenario: "agentic-coding", HW: "cluster:mi355x-amds", Framework: "sglang", Precision: "fp8", Spec: "mtp", Agentic: true}, "q/agentic-coding/mi355x_sglang/fp8/7/p90"},
		{BenchRow{ModelPrefix: "d", Scenario: "agentic-coding", HW: "mi355x", Framework: "atom-disagg", Precision: "fp4", Disagg: true, Agentic: true}, "d/agentic-coding/mi355x_mooncake-atom/fp4/7/p90"},
	}
	for _, tc := range tests {
		if got := tc.r.CurveKey(7); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.r, got, tc.want)
		}
	}
	DisaggHardwareKeys["gb200_sglang"] = true
	defer delete(DisaggHardwareKeys, "gb200_sglang")
	if got := (BenchRow{HW: "gb200", Framework: "sglang", Disagg: true}).HardwareKey(); got != "gb200_sglang-disagg" {
		t.Errorf("known disagg key: %s", got)
	}
	for in, want := range map[[2]string]string{{"8192", "1024"}: "8k1k", {"1024", "8192"}: "1k8k", {"1000", "1024"}: "10001k", {"", "1024"}: ""} {
		if got := seqScenario(in[0], in[1]); got != want {
			t.Errorf("%v: %s, want %s", in, got, want)
		}
	}
}

func TestParseAgenticResult(t *testing.T) {
	in := `{"hw":"mi355x-amds","infmax_model_prefix":"q","framework":"sglang","precision":"fp8","scenario_type":"agentic-coding",
"isOnNormalizedInteractivityFrontier": "true",
"request_metrics":{"latency":{"e2el":{"p90":63.4}},"throughput":{"per_gpu":{"total_tput_tps":4600.0}}}}`
	rows, err := ParseAgenticResult([]byte(in))
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
	p := rows[0].Point
	if !p.OK || p.X != 63.4 || p.Y != 4600 || !p.HasFlag || p.Flag {
		t.Errorf("point %+v (a string \"true\" is not literally true)", p)
	}
	rows, _ = ParseAgenticResult([]byte(`{"request_metrics":{"latency":{"e2el":{"p90":true}},"throughput":{"per_gpu":{"total_tput_tps":1}}}}`))
	if rows[0].Point.OK || rows[0].SeriesComplete() {
		t.Errorf("boolean latency or missing series accepted: %+v", rows[0])
	}
	rows, _ = ParseAggBmk([]byte(`[{"hw":"b200","infmax_model_prefix":"d","framework":"sglang","precision":"fp4","isl":8192,"osl":1024,"median_e2el":Infinity,"tput_per_gpu":5}]`))
	if rows[0].Point.OK || math.IsInf(rows[0].Point.X, 0) {
		t.Errorf("infinite latency accepted: %+v", rows[0].Point)
	}
}

func FuzzParseAggEval(f *testing.F) {
	f.Add([]byte(`[{"model_prefix":"q","task":"gsm8k","em_strict":0.9,"em_strict_se":0.01,"em_flexible":NaN,"n_eff":10,"integration_error":null}]`))
	f.Add([]byte(`[{"score":1e309,"score_name":"accuracy","infrastructure_success":"false"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseAggEval(b)
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Invalid == "" && len(r.Metrics) == 0 {
				t.Fatalf("valid row without metrics: %+v", r)
			}
			for _, m := range r.Metrics {
				if math.IsNaN(m.Value) || m.Value < 0 || m.Value > 1 {
					t.Fatalf("metric out of range accepted: %+v", m)
				}
			}
		}
	})
}

func FuzzParseAgenticResult(f *testing.F) {
	f.Add([]byte(`{"hw":"mi355x-amds","infmax_model_prefix":"q","framework":"sglang","precision":"fp8","request_metrics":{"latency":{"e2el":{"p90":63.4}},"throughput":{"per_gpu":{"total_tput_tps":-Infinity}}}}`))
	f.Add([]byte(`[{"isOnNormalizedInteractivityFrontier":true},{"hw":"\"NaN\""}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseAgenticResult(b)
		if err != nil {
			return
		}
		for _, r := range rows {
			p := r.Point
			if p.OK && (math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0)) {
				t.Fatalf("non-finite point marked OK: %+v", p)
			}
			if r.SeriesComplete() {
				_ = r.CurveKey(1)
			}
		}
		pts := make([]Point, len(rows))
		for i, r := range rows {
			pts[i] = r.Point
		}
		UpperRightFrontier(pts)
	})
}

func FuzzParseThresholds(f *testing.F) {
	f.Add([]byte("default:\n  gsm8k: 0.9\nmodels:\n  q: { gsm8k: 0.94 }\n"))
	f.Add([]byte(`{"default": {"a": 0}, "models": {}}`))
	f.Add([]byte("a: &a [*a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		th, err := ParseThresholds(b, 0.85)
		if err != nil {
			return
		}
		for _, m := range append([]map[string]float64{th.Default}, mapsOf(th.Models)...) {
			for k, v := range m {
				if math.IsNaN(v) || v < 0 || v > 1 {
					t.Fatalf("%s = %v accepted", k, v)
				}
			}
		}
	})
}

func mapsOf(m map[string]map[string]float64) []map[string]float64 {
	var out []map[string]float64
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// FuzzParseEvalFiles covers the per-config eval and fixed-seq benchmark
// parsers: no input panics, and accepted scores are in range.
func FuzzParseEvalFiles(f *testing.F) {
	f.Add([]byte(`{"lm_eval_version":"1","results":{"g":{"exact_match,s":0.5}},"n-samples":{"g":{"effective":3}}}`))
	f.Add([]byte(`{"eval_concs":[1,2],"completed_eval_concs":[1],"failed_eval_concs":[2]}`))
	f.Add([]byte(`[{"isl":8192,"osl":1024,"median_e2el":NaN,"tput_per_gpu":3}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, _, err := ParseLMEvalResult(b)
		if err == nil {
			for _, r := range rows {
				for _, m := range r.Metrics {
					if math.IsNaN(m.Value) || m.Value < 0 || m.Value > 1 {
						t.Fatalf("metric out of range accepted: %+v", m)
					}
				}
			}
		}
		_, _ = ParseMetaEnv(b)
		if bs, err := ParseAggBmk(b); err == nil {
			for _, r := range bs {
				if r.Point.OK && (math.IsNaN(r.Point.X) || math.IsInf(r.Point.Y, 0)) {
					t.Fatalf("non-finite point accepted: %+v", r.Point)
				}
			}
		}
	})
}
