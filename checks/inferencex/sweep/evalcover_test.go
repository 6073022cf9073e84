package sweep

import (
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestCover(t *testing.T) {
	cfg := &repo.ConfigEntry{Key: "dsr1-fp8-mi355x-sglang-mtp", ModelPrefix: "dsr1", Runner: "cluster:mi355x-amds", Framework: "sglang", Precision: "fp8",
		Scenarios: []repo.Scenario{{Type: "fixed-seq-len", Search: []repo.SearchSpace{{TP: 8, SpecDecoding: "MTP"}, {TP: 4}}}}}
	row := EvalRow{ModelPrefix: "dsr1", HW: "MI355X-AMDS", Framework: "SGLang", Precision: "FP8", SpecDecoding: "mtp", Task: "gsm8k"}
	with := func(f func(*EvalRow)) EvalRow { r := row; f(&r); return r }
	for _, tc := range []struct {
		name    string
		row     EvalRow
		covered bool
		unknown int
	}{
		{"own row", row, true, 0},
		{"the config's other arm", with(func(r *EvalRow) { r.SpecDecoding = "none" }), true, 0},
		{"another model", with(func(r *EvalRow) { r.ModelPrefix = "dsv4" }), false, 0},
		{"another SKU", with(func(r *EvalRow) { r.HW = "mi300x" }), false, 0},
		{"another framework", with(func(r *EvalRow) { r.Framework = "vllm" }), false, 0},
		{"another precision", with(func(r *EvalRow) { r.Precision = "fp4" }), false, 0},
		{"another draft method", with(func(r *EvalRow) { r.SpecDecoding = "eagle3" }), false, 0},
		{"spec-decoding not said", with(func(r *EvalRow) { r.SpecDecoding = "" }), false, 1},
		{"no prefix on either side", with(func(r *EvalRow) { r.ModelPrefix = "" }), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Cover([]EvalRow{tc.row}, cfg)
			if c.Covered() != tc.covered || c.UnknownSpec != tc.unknown {
				t.Fatalf("covered %v unknown %d, want %v %d", c.Covered(), c.UnknownSpec, tc.covered, tc.unknown)
			}
		})
	}
	if got := (Coverage{Config: cfg}).Identity(); got != "dsr1 mi355x sglang fp8 spec mtp/none" {
		t.Errorf("identity %q", got)
	}
	if got := SpecMethods(&repo.ConfigEntry{}); len(got) != 1 || got[0] != "none" {
		t.Errorf("methods of a config without search spaces = %q", got)
	}
}

func TestEvalRowsSpecDecoding(t *testing.T) {
	rows, err := ParseAggEval([]byte(`[{"model_prefix":"a","spec_decoding":"MTP","task":"t","em_strict":0.9},
 {"model_prefix":"a","spec_decoding":"unknown","task":"t","em_strict":0.9}, {"model_prefix":"a","task":"t","em_strict":0.9}]`))
	if err != nil || len(rows) != 3 || rows[0].SpecDecoding != "mtp" || rows[1].SpecDecoding != "" || rows[2].SpecDecoding != "" {
		t.Fatalf("%+v %v", rows, err)
	}
	m, err := ParseMetaEnv([]byte(`{"infmax_model_prefix":"a","spec_decoding":"eagle3"}`))
	if err != nil || m.SpecDecoding != "eagle3" {
		t.Fatalf("%+v %v", m, err)
	}
}
