package serving

import (
	"math"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestExtractSpec(t *testing.T) {
	s := func(role, name, value string) repo.Setting {
		return repo.Setting{Name: name, Value: value, Role: role, File: "f", Line: 1}
	}
	tests := []struct {
		name     string
		settings []repo.Setting
		role     string
		method   string
		num      int
		pins     []float64
		harness  bool
	}{
		{"sglang", []repo.Setting{s("agg", "speculative-algorithm", "EAGLE"), s("agg", "speculative-num-steps", "3"), s("agg", "SGLANG_SIMULATE_ACC_LEN", "'3.39'")},
			"agg", "eagle", 3, []float64{3.39}, false},
		{"sglang dspark uses block size", []repo.Setting{s("agg", "--speculative-algorithm", "DSPARK"), s("agg", "--speculative-num-steps", "3"), s("agg", "--speculative-dspark-block-size", "6")},
			"agg", "dspark", 6, nil, false},
		{"vllm flattened speculative-config", []repo.Setting{s("decode", "speculative-config.method", "mtp"), s("decode", "speculative-config.num_speculative_tokens", "2"),
			s("decode", "speculative-config.rejection_sample_method", "synthetic"), s("decode", "speculative-config.synthetic_acceptance_length", "2.5")},
			"decode", "mtp", 2, []float64{2.5}, false},
		{"trt adds the bonus token", []repo.Setting{s("", "speculative_config", "{decoding_type: MTP, max_draft_len: 3}"), s("", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", "2.39")},
			"agg", "mtp", 3, []float64{3.39}, false},
		{"trt mtp num_nextn_predict_layers", []repo.Setting{s("", "speculative_config", "{decoding_type: MTP, num_nextn_predict_layers: 3}"), s("", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", "2.39")},
			"agg", "mtp", 3, []float64{3.39}, false},
		{"trt mtp heredoc num_nextn_predict_layers", []repo.Setting{s("", "decoding_type", "MTP"), s("", "num_nextn_predict_layers", "3"), s("", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", "2.39")},
			"agg", "", 3, []float64{3.39}, false},
		{"atom rate scales by n", []repo.Setting{s("", "--num-speculative-tokens", "3"), s("", "--spec-decode-acceptance-rate", "0.8")},
			"agg", "", 3, []float64{3.4}, false},
		{"legacy harness", []repo.Setting{s("", "SYNTHETIC_ACCEPTANCE", "true"), s("", "--speculative-num-steps", "2")},
			"agg", "", 2, nil, true},
		{"other role ignored", []repo.Setting{s("prefill", "SGLANG_SIMULATE_ACC_LEN", "3"), s("decode", "speculative-num-steps", "1")},
			"decode", "", 1, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := ExtractKnobs("", tc.role, tc.settings)
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
		k := ExtractKnobs("vllm", "agg", []repo.Setting{{Name: "speculative-config", Value: v, Role: "agg"}})
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
		f := &repo.EffectiveFile{Path: "a.sh", Kind: "script"}
		if f.Read([]byte(script)); f.Err != "" {
			t.Fatal(f.Err)
		}
		all := AllSettings([]*repo.EffectiveFile{f})
		k := ExtractKnobs("vllm", "agg", all)
		if k.Method != "mtp" || k.Num != 3 || len(k.Pins) != 1 || math.Abs(k.Pins[0].AL-3.39) > 1e-9 {
			t.Fatalf("order %q: got %+v", order[0], k)
		}
		if got := SyntheticKnobs(all); len(got) != 1 || got[0].Line != strings.Count(script[:strings.Index(script, simBranch)], "\n")+1 {
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

// A multi-node dry run that reached its servers speaks for their
// environment: a variable a script exported on the host is not theirs;
// the master config's and recipes' settings stay.
func TestAllSettingsWithServersDryRun(t *testing.T) {
	host := &repo.EffectiveFile{Path: "benchmarks/multi_node/m.sh", Kind: "script", Settings: []repo.Setting{
		{Name: "SGLANG_SIMULATE_ACC_LEN", Value: "2.5", Kind: "env"}, {Name: "--tp", Value: "8", Kind: "flag"}}}
	master := &repo.EffectiveFile{Path: "configs/amd-master.yaml", Kind: "config", Settings: []repo.Setting{{Name: "SYNTHETIC_ACCEPTANCE", Value: "true", Kind: "env"}}}
	dry := &repo.EffectiveFile{Path: "(dry run of x)", Kind: "trace", Settings: []repo.Setting{{Name: "SGLANG_MORI_NUM", Value: "1", Kind: "env", Role: "decode"}}}
	names := func(ss []repo.Setting) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(AllSettings([]*repo.EffectiveFile{host, master, dry})); strings.Join(got, ",") != "SGLANG_SIMULATE_ACC_LEN,--tp,SYNTHETIC_ACCEPTANCE,SGLANG_MORI_NUM" {
		t.Errorf("single-node reading: %q", got)
	}
	dry.Servers = true
	if got := names(AllSettings([]*repo.EffectiveFile{host, master, dry})); strings.Join(got, ",") != "--tp,SYNTHETIC_ACCEPTANCE,SGLANG_MORI_NUM" {
		t.Errorf("with the servers' dry run: %q", got)
	}
}
