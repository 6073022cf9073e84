package inferencex_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

const ciThresholds = `default:
  gsm8k: 0.90
  gpqa_diamond_cot_n_shot: 0.30
models:
  qwen3.5: { gsm8k: 0.94 }
`

const ciKey = "qwen3.5-fp8-mi355x-sglang-agentic-mtp"

func ciMaster(image string) string {
	return ciKey + `:
  image: ` + image + `
  model: Qwen/Qwen3.5-397B-A17B-FP8
  model-prefix: qwen3.5
  runner: mi355x
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 4, ep: 1, spec-decoding: mtp, conc-list: [1, 4, 8] }
`
}

const (
	ciImgA = "lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x"
	ciImgB = "lmsysorg/sglang-rocm:v0.5.22-rocm720-mi35x"
)

func ciAggRow(strict, flexible string, extra string) string {
	return `{"is_multinode": false, "model_prefix": "qwen3.5", "model": "Qwen/Qwen3.5-397B-A17B-FP8", "hw": "MI355X-AMDS",
 "framework": "sglang", "precision": "fp8", "spec_decoding": "mtp", "conc": 8, "task": "gsm8k",
 "em_strict": ` + strict + `, "em_strict_se": 0.004, "em_flexible": ` + flexible + `, "em_flexible_se": 0.005, "n_eff": 1319,
 "score": ` + strict + `, "score_name": "em_strict", "score_se": 0.004` + extra + `}`
}

// ciEvalFixture is a PR whose sweep (run ciRun) is green on the in-PR commit
// ciOld, with the change set affecting ciKey at image headImage.
type ciEvalFixture struct {
	src        *checkstest.Source
	headImage  string
	runImage   string
	arts       []checks.Artifact
	data       map[int64]map[string]string
	thresholds *string
	csErr      error
	evalConcl  string
	// otherConfigs are more affected master entries, after ciKey's.
	otherConfigs string
	// inject, when set, breaks the source before the rows run.
	inject func(*checkstest.Source)
}

func (f ciEvalFixture) run(t *testing.T) checks.Result {
	t.Helper()
	src := &checkstest.Source{CommitsValue: ciCommits(ciOld, ciHead)}
	evalConcl := f.evalConcl
	if evalConcl == "" {
		evalConcl = "success"
	}
	runs := ciGreen(ciRun, "agentic /", "agentic eval /")
	runs[1].Conclusion = evalConcl
	src.Runs = map[string][]checks.CheckRun{ciOld: runs}
	src.RunArtifacts = map[int64][]checks.Artifact{ciRun: f.arts}
	src.ArtifactData = f.data
	th := ciThresholds
	if f.thresholds != nil {
		th = *f.thresholds
	}
	if th != "" {
		src.SetFile(ciDefault, "utils/evals/thresholds.yaml", th)
	}
	runImage := f.runImage
	if runImage == "" {
		runImage = ciImgA
	}
	src.SetFile(ciOld, "configs/amd-master.yaml", ciMaster(runImage))
	pr := ciPR(src)
	if evalConcl != "success" {
		repo.SettingsParam.Get(pr).RequireEvalGroup = false
	}
	headImage := f.headImage
	if headImage == "" {
		headImage = ciImgA
	}
	affected, ps := repo.ParseMasterConfig("configs/amd-master.yaml", []byte(ciMaster(headImage)+f.otherConfigs))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	cs := &changeset.Model{Affected: affected}
	if f.csErr != nil {
		checkstest.FactError(changeset.Fact, f.csErr)(pr)
	} else {
		inferencextest.WithChangeSet(cs)(pr)
	}
	if f.inject != nil {
		f.inject(src)
	}
	return checkstest.Run(t, pr, inferencex.PassingSweep, inferencex.Evals)[2]
}

func ciAggArtifact(body string) ([]checks.Artifact, map[int64]map[string]string) {
	return []checks.Artifact{{ID: 7, Name: "eval_results_all", RunID: ciRun}, {ID: 8, Name: "eval_server_logs_x", RunID: ciRun}},
		map[int64]map[string]string{7: {"agg_eval_all.json": body}}
}

func TestEvalsCheck(t *testing.T) {
	good := "[" + ciAggRow("0.973", "0.975", "") + "]"
	arts, data := ciAggArtifact(good)
	flat := "gsm8k: 0.97\n"
	none := ""
	bad := "default: { gsm8k: high }\n"
	metaOK := `{"infmax_model_prefix": "qwen3.5", "hw": "mi355x-amds", "framework": "sglang", "precision": "fp8", "spec_decoding": "mtp", "conc": 64,
 "eval_concs": [32, 64], "completed_eval_concs": [32, 64], "failed_eval_concs": []}`
	lm := func(v string) string {
		return `{"lm_eval_version": "0.4.12", "results": {"gsm8k": {"exact_match,strict-match": ` + v + `, "exact_match_stderr,strict-match": 0.006,
 "exact_match,flexible-extract": 0.96, "exact_match_stderr,flexible-extract": 0.005, "acc,none": 0.1}},
 "n-samples": {"gsm8k": {"original": 1319, "effective": 1319}}}`
	}
	perArts := []checks.Artifact{{ID: 21, Name: "eval_qwen_fp8_conc64", RunID: ciRun}}
	tests := []struct {
		name string
		f    ciEvalFixture
		want string
		st   checks.Status
		pre  bool
	}{
		{name: "pass on aggregate", f: ciEvalFixture{arts: arts, data: data}, st: checks.Pass,
			want: "qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.973 ± 0.004 (n=1319) ≥ 0.94 in run 30123456789 (lowest of 2 scores); own evals and same image for 1 affected config(s)."},
		{name: "below bar", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("0.921", "0.957", "") + "]"}}},
			st: checks.Fail, want: "Below bar: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.921 ± 0.004 (n=1319) < 0.94 (run 30123456789)."},
		{name: "below bar by rounding only", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("0.9399", "0.957", "") + "]"}}},
			st: checks.Fail, want: "Below bar: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.9399 ± 0.004 (n=1319) < 0.94 (run 30123456789)."},
		{name: "flexible below bar too", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("0.93", "0.92", "") + "]"}}},
			st: checks.Fail, want: "Below bar: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_flexible 0.920 ± 0.005 (n=1319) < 0.94 (run 30123456789). 1 more score(s) below bar."},
		{name: "legacy flat thresholds map is the default", f: ciEvalFixture{arts: arts, data: data, thresholds: &flat},
			st: checks.Pass, want: "qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.973 ± 0.004 (n=1319) ≥ 0.97 in run 30123456789 (lowest of 2 scores); own evals and same image for 1 affected config(s)."},
		{name: "no thresholds file falls back to 0.85", f: ciEvalFixture{arts: arts, data: data, thresholds: &none},
			st: checks.Pass, want: "qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.973 ± 0.004 (n=1319) ≥ 0.85 in run 30123456789 (lowest of 2 scores); own evals and same image for 1 affected config(s)."},
		{name: "malformed thresholds", f: ciEvalFixture{arts: arts, data: data, thresholds: &bad},
			st: checks.Fail, pre: true, want: "could not be verified: utils/evals/thresholds.yaml at defa017: parsing thresholds: malformed: default.gsm8k is not a number"},
		{name: "a failed eval job leaves no qualifying run", f: ciEvalFixture{arts: arts, data: data, evalConcl: "failure"},
			st: checks.Fail, want: "No qualifying in-PR run; eval results cannot be verified."},
		{name: "evals skipped", f: ciEvalFixture{arts: arts, data: data, evalConcl: "skipped"},
			st: checks.Fail, want: "Evals skipped: run 30123456789 executed no eval job."},
		{name: "expired", f: ciEvalFixture{arts: []checks.Artifact{{ID: 7, Name: "eval_results_all", Expired: true}}},
			st: checks.Fail, want: "Eval artifacts expired: eval_results_all of run 30123456789 can no longer be downloaded."},
		{name: "unavailable", f: ciEvalFixture{arts: []checks.Artifact{{ID: 3, Name: "results_bmk"}}},
			st: checks.Fail, want: "Eval artifacts unavailable: run 30123456789 has no eval_results_* or eval_* artifact."},
		{name: "empty", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[]"}}},
			st: checks.Fail, want: "Evals empty: eval_results_all of run 30123456789 holds no eval result rows."},
		{name: "aggregate without its file is empty", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"other.txt": "x"}}},
			st: checks.Fail, want: "Evals empty: eval_results_all of run 30123456789 holds no eval result rows."},
		{name: "infrastructure failure", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("0.97", "0.97", `, "infrastructure_success": false`) + "]"}}},
			st: checks.Fail, want: "Invalid eval result: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k infrastructure_success is false in run 30123456789."},
		{name: "integration error", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("0.97", "0.97", `, "infrastructure_success": true, "integration_error": "server died"`) + "]"}}},
			st: checks.Fail, want: `Invalid eval result: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k integration_error: "server died" in run 30123456789.`},
		{name: "score out of range", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("1.2", "0.97", "") + "]"}}},
			st: checks.Fail, want: "Invalid eval result: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict is not a finite score in [0,1] (1.2) in run 30123456789."},
		{name: "NaN score", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" + ciAggRow("NaN", "0.97", "") + "]"}}},
			st: checks.Fail, want: "Invalid eval result: qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict is not a finite score in [0,1] (\"NaN\") in run 30123456789."},
		{name: "broken aggregate", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[{"}}},
			st: checks.Fail, pre: true, want: "could not be verified: eval artifact eval_results_all of run 30123456789 has an unreadable agg_eval_all.json"},
		{name: "image bumped after the run", f: ciEvalFixture{arts: arts, data: data, headImage: ciImgB},
			st: checks.Fail, want: "Evals used a different image (" + ciImgA + " vs " + ciImgB + ") for " + ciKey + ": run 30123456789 ran commit 0ff1ce0, H is 1a2b3c4."},
		{name: "change set unavailable", f: ciEvalFixture{arts: arts, data: data, csErr: errors.New("listing files: HTTP 500")},
			st: checks.Fail, want: "could not be verified: could not compare images: change-set model unavailable: listing files: HTTP 500"},
		{name: "per-config batched evals complete", f: ciEvalFixture{arts: perArts, data: map[int64]map[string]string{21: {
			"meta_env.json": metaOK, "results_2026-10-01T12-00-00_conc32.json": lm("0.95"), "results_2026-10-01T12-00-00_conc64.json": lm("0.951"), "samples_gsm8k.jsonl": "{}"}}},
			st: checks.Pass, want: "qwen3.5 mi355x-amds sglang fp8 c32 gsm8k exact_match,strict-match 0.950 ± 0.006 (n=1319) ≥ 0.94 in run 30123456789 (lowest of 4 scores); own evals and same image for 1 affected config(s)."},
		{name: "per-config batched evals missing a conc file", f: ciEvalFixture{arts: perArts, data: map[int64]map[string]string{21: {
			"meta_env.json": metaOK, "results_2026-10-01T12-00-00_conc32.json": lm("0.95")}}},
			st: checks.Fail, want: "Batched evals incomplete: concurrency 64 has no _conc64 result file in eval_qwen_fp8_conc64 of run 30123456789 (eval_concs [32 64])."},
		{name: "per-config batched evals with a failed conc", f: ciEvalFixture{arts: perArts, data: map[int64]map[string]string{21: {
			"meta_env.json": strings.Replace(metaOK, `"failed_eval_concs": []`, `"failed_eval_concs": [64]`, 1), "results_2026-10-01T12-00-00_conc32.json": lm("0.95"), "results_2026-10-01T12-00-00_conc64.json": lm("0.95")}}},
			st: checks.Fail, want: "Batched evals incomplete: concurrency 64 failed in eval_qwen_fp8_conc64 of run 30123456789 (eval_concs [32 64])."},
		{name: "aggregate rows, but a per-config batched job missed a concurrency", f: ciEvalFixture{
			arts: append(append([]checks.Artifact{}, arts...), perArts...),
			data: map[int64]map[string]string{7: data[7], 21: {"meta_env.json": metaOK, "results_2026-10-01T12-00-00_conc32.json": lm("0.95")}}},
			st: checks.Fail, want: "Batched evals incomplete: concurrency 64 has no _conc64 result file in eval_qwen_fp8_conc64 of run 30123456789 (eval_concs [32 64])."},
		{name: "aggregate rows with complete per-config batched jobs", f: ciEvalFixture{
			arts: append(append([]checks.Artifact{}, arts...), perArts...),
			data: map[int64]map[string]string{7: data[7], 21: {"meta_env.json": metaOK, "results_a_conc32.json": lm("0.5"), "results_a_conc64.json": lm("0.5")}}},
			st: checks.Pass, want: "qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.973 ± 0.004 (n=1319) ≥ 0.94 in run 30123456789 (lowest of 2 scores); own evals and same image for 1 affected config(s)."},
		// Every affected config needs evals of its own model, hardware,
		// framework, precision and spec-decoding method.
		{name: "another model's evals cover nothing", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" +
			strings.NewReplacer(`"qwen3.5"`, `"dsv4"`, "Qwen/Qwen3.5-397B-A17B-FP8", "deepseek-ai/DeepSeek-V4-Pro").Replace(ciAggRow("0.97", "0.97", "")) + "]"}}},
			st: checks.Fail, want: "Evals do not cover " + ciKey + ": run 30123456789 has no eval row of qwen3.5 mi355x sglang fp8 spec mtp (its rows are of dsv4 mi355x sglang fp8 spec mtp)."},
		{name: "evals without the draft do not cover a spec-decode config", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" +
			strings.Replace(ciAggRow("0.97", "0.97", ""), `"spec_decoding": "mtp"`, `"spec_decoding": "none"`, 1) + "]"}}},
			st: checks.Fail, want: "Evals do not cover " + ciKey + ": run 30123456789 has no eval row of qwen3.5 mi355x sglang fp8 spec mtp (its rows are of qwen3.5 mi355x sglang fp8 spec none)."},
		{name: "evals on another SKU", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" +
			strings.Replace(ciAggRow("0.97", "0.97", ""), `"MI355X-AMDS"`, `"MI300X-AMDS"`, 1) + "]"}}},
			st: checks.Fail, want: "Evals do not cover " + ciKey + ": run 30123456789 has no eval row of qwen3.5 mi355x sglang fp8 spec mtp (its rows are of qwen3.5 mi300x sglang fp8 spec mtp)."},
		{name: "one of two affected configs without evals", f: ciEvalFixture{arts: arts, data: data, otherConfigs: `qwen3.5-fp4-mi355x-sglang:
  image: ` + ciImgA + `
  model: Qwen/Qwen3.5-397B-A17B-MXFP4
  model-prefix: qwen3.5
  runner: mi355x
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - { isl: 8192, osl: 1024, search-space: [ { tp: 4, conc-list: [4, 8] } ] }
`},
			st: checks.Fail, want: "Evals do not cover qwen3.5-fp4-mi355x-sglang: run 30123456789 has no eval row of qwen3.5 mi355x sglang fp4 spec none (its rows are of qwen3.5 mi355x sglang fp8 spec mtp)."},
		{name: "rows that do not say their spec-decoding", f: ciEvalFixture{arts: arts, data: map[int64]map[string]string{7: {"agg_eval_all.json": "[" +
			strings.Replace(ciAggRow("0.97", "0.97", ""), `"spec_decoding": "mtp",`, ``, 1) + "]"}}},
			st: checks.Fail, pre: true, want: "could not be verified: 1 eval row(s) of run 30123456789 match " + ciKey + " but do not record their spec-decoding"},
		{name: "per-config results without lm_eval_version are not results", f: ciEvalFixture{arts: perArts, data: map[int64]map[string]string{21: {
			"meta_env.json": `{"infmax_model_prefix": "qwen3.5"}`, "results_x.json": `{"results": {"gsm8k": {"exact_match,strict-match": 0.99}}}`}}},
			st: checks.Fail, want: "Evals empty: eval_qwen_fp8_conc64 of run 30123456789 holds no eval result rows."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.f.run(t)
			ok := r.Reason.EN == tc.want || (tc.pre && strings.HasPrefix(r.Reason.EN, tc.want))
			if r.Status != tc.st || !ok {
				t.Fatalf("got %s %q\nwant %s %q", r.Status, r.Reason.EN, tc.st, tc.want)
			}
			if r.Reason.ZH == "" || r.Reason.ZH == r.Reason.EN {
				t.Errorf("Chinese reason missing")
			}
		})
	}
}

func TestEvalsWithoutQualifyingRun(t *testing.T) {
	src := &checkstest.Source{CommitsValue: ciCommits(ciHead)}
	r := checkstest.Run(t, ciPR(src), inferencex.PassingSweep, inferencex.Evals)[2]
	if r.Status != checks.Fail || r.Reason.EN != "No qualifying in-PR run; eval results cannot be verified." {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
	if src.Calls["Artifacts"] != 0 {
		t.Errorf("artifacts were read without a qualifying run")
	}
}
