package checks

import (
	"math"
	"strings"
	"testing"
)

func TestExtractSpec(t *testing.T) {
	s := func(role, name, value string) Setting {
		return Setting{Name: name, Value: value, Role: role, File: "f", Line: 1}
	}
	tests := []struct {
		name     string
		settings []Setting
		role     string
		method   string
		num      int
		pins     []float64
		harness  bool
	}{
		{"sglang", []Setting{s("agg", "speculative-algorithm", "EAGLE"), s("agg", "speculative-num-steps", "3"), s("agg", "SGLANG_SIMULATE_ACC_LEN", "'3.39'")},
			"agg", "eagle", 3, []float64{3.39}, false},
		{"sglang dspark uses block size", []Setting{s("agg", "--speculative-algorithm", "DSPARK"), s("agg", "--speculative-num-steps", "3"), s("agg", "--speculative-dspark-block-size", "6")},
			"agg", "dspark", 6, nil, false},
		{"vllm flattened speculative-config", []Setting{s("decode", "speculative-config.method", "mtp"), s("decode", "speculative-config.num_speculative_tokens", "2"),
			s("decode", "speculative-config.rejection_sample_method", "synthetic"), s("decode", "speculative-config.synthetic_acceptance_length", "2.5")},
			"decode", "mtp", 2, []float64{2.5}, false},
		{"trt adds the bonus token", []Setting{s("", "speculative_config", "{decoding_type: MTP, max_draft_len: 3}"), s("", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", "2.39")},
			"agg", "mtp", 3, []float64{3.39}, false},
		{"trt mtp num_nextn_predict_layers", []Setting{s("", "speculative_config", "{decoding_type: MTP, num_nextn_predict_layers: 3}"), s("", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", "2.39")},
			"agg", "mtp", 3, []float64{3.39}, false},
		{"trt mtp heredoc num_nextn_predict_layers", []Setting{s("", "decoding_type", "MTP"), s("", "num_nextn_predict_layers", "3"), s("", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", "2.39")},
			"agg", "", 3, []float64{3.39}, false},
		{"atom rate scales by n", []Setting{s("", "--num-speculative-tokens", "3"), s("", "--spec-decode-acceptance-rate", "0.8")},
			"agg", "", 3, []float64{3.4}, false},
		{"legacy harness", []Setting{s("", "SYNTHETIC_ACCEPTANCE", "true"), s("", "--speculative-num-steps", "2")},
			"agg", "", 2, nil, true},
		{"other role ignored", []Setting{s("prefill", "SGLANG_SIMULATE_ACC_LEN", "3"), s("decode", "speculative-num-steps", "1")},
			"decode", "", 1, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := extractSpec("", tc.role, tc.settings)
			if k.Method != tc.method || k.Num != tc.num || k.Harness != tc.harness || len(k.Pins) != len(tc.pins) {
				t.Fatalf("got %+v", k)
			}
			for i, p := range tc.pins {
				if math.Abs(k.Pins[i].AL-p) > 1e-9 {
					t.Fatalf("pin %d = %v, want %v", i, k.Pins[i].AL, p)
				}
			}
		})
	}
}

func FuzzSpecConfig(f *testing.F) {
	f.Add(`{"method": "mtp", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}`)
	f.Add("a: &x [*x]")
	f.Fuzz(func(t *testing.T, v string) {
		k := extractSpec("vllm", "agg", []Setting{{Name: "speculative-config", Value: v, Role: "agg"}})
		if k.NumFound && (k.Num < 1 || k.Num > 64) {
			t.Fatalf("draft length %d accepted", k.Num)
		}
	})
}

// A legacy vLLM script builds --speculative-config in a shell variable,
// without synthetic acceptance for EVAL_ONLY runs and with it for the
// throughput runs: the knobs of both assignments are read, in either order,
// and the synthetic pin is found (also by the non-agentic hack scan).
func TestSpecConfigFromShellVariable(t *testing.T) {
	const evalBranch = `SPEC_CONFIG='{"method":"mtp","num_speculative_tokens":3}'`
	const simBranch = `SPEC_CONFIG='{"method":"mtp","num_speculative_tokens":3,"rejection_sample_method":"synthetic","synthetic_acceptance_length":3.39}'`
	for _, order := range [][2]string{{evalBranch, simBranch}, {simBranch, evalBranch}} {
		script := "#!/usr/bin/env bash\nif [[ \"${EVAL_ONLY:-false}\" == \"true\" ]]; then\n  " + order[0] + "\nelse\n  " + order[1] +
			"\nfi\n\nvllm serve \"$MODEL\" \\\n  --tensor-parallel-size \"$TP\" \\\n  --speculative-config \"$SPEC_CONFIG\" \\\n  --port 8000\n"
		_, settings, err := ParseScript("a.sh", []byte(script))
		if err != nil {
			t.Fatal(err)
		}
		all := sdAllSettings([]*EffectiveFile{{Path: "a.sh", Kind: "script", Settings: settings}})
		k := extractSpec("vllm", "agg", all)
		if k.Method != "mtp" || k.Num != 3 || len(k.Pins) != 1 || math.Abs(k.Pins[0].AL-3.39) > 1e-9 {
			t.Fatalf("order %q: got %+v", order[0], k)
		}
		if got := sdSyntheticKnobs(all); len(got) != 1 || got[0].Line != strings.Count(script[:strings.Index(script, simBranch)], "\n")+1 {
			t.Fatalf("synthetic knobs: %+v", got)
		}
		// --tp "$TP" has no assignment in the file: kept as written.
		found := false
		for _, s := range all {
			if s.Name == "--tensor-parallel-size" && s.Value == "$TP" {
				found = true
			}
		}
		if !found {
			t.Fatalf("unassigned variable flag not kept: %+v", all)
		}
	}
}
