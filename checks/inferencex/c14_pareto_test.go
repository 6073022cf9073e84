package inferencex_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// ciAgentic is one AgentX result file (one point).
func ciAgentic(prefix, hw, fw, prec, spec, image string, disagg bool, x, y string) string {
	return fmt.Sprintf(`{"hw": %q, "conc": 8, "image": %q, "infmax_model_prefix": %q, "framework": %q, "precision": %q,
 "spec_decoding": %q, "disagg": %t, "scenario_type": "agentic-coding", "is_multinode": false, "tp": 4, "ep": 1,
 "request_metrics": {"latency": {"e2el": {"p50": 1.0, "p90": %s}},
   "throughput": {"per_gpu": {"total_tput_tps": %s}}}}`, hw, image, prefix, fw, prec, spec, disagg, x, y)
}

// ciFixed is one agg_bmk.json row.
func ciFixed(prefix, hw, fw, prec, spec string, isl, osl int, x, y string) string {
	return fmt.Sprintf(`{"hw": %q, "infmax_model_prefix": %q, "framework": %q, "precision": %q, "spec_decoding": %q,
 "image": "lmsysorg/sglang:v0.5.20-cu130", "disagg": false, "isl": %d, "osl": %d, "conc": 64, "tput_per_gpu": %s, "median_e2el": %s}`,
		hw, prefix, fw, prec, spec, isl, osl, y, x)
}

type ciParetoFixture struct {
	arts     []checks.Artifact
	data     map[int64]map[string]string
	affected []*repo.ConfigEntry
	files    []checks.ChangedFile
	unmapped []string
	problems []repo.InputProblem // of the change set, in the legacy layout
	csErr    error
	noSweep  bool
	comments []checks.Comment
	perms    map[string]checks.Permission
	// inject, when set, breaks the source before the rows run.
	inject func(*checkstest.Source)
}

func (f ciParetoFixture) run(t *testing.T) (checks.Result, *checkstest.Source) {
	t.Helper()
	src := &checkstest.Source{CommitsValue: ciCommits(ciHead), CommentsValue: f.comments, Perms: f.perms}
	if !f.noSweep {
		src.Runs = map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")}
	}
	src.RunArtifacts = map[int64][]checks.Artifact{ciRun: f.arts}
	src.ArtifactData = f.data
	pr := ciPR(src)
	files := f.files
	if files == nil {
		files = []checks.ChangedFile{{Path: "configs/amd-master.yaml", Status: "modified"}}
	}
	cs := &changeset.Model{Files: files, Affected: f.affected, UnmappedFiles: f.unmapped, Problems: f.problems}
	if f.problems != nil {
		cs.Layout = repo.LegacyLayout()
	}
	if f.csErr != nil {
		checkstest.FactError(changeset.Fact, f.csErr)(pr)
	} else {
		inferencextest.WithChangeSet(cs)(pr)
	}
	if f.inject != nil {
		f.inject(src)
	}
	return checkstest.Run(t, pr, inferencex.PassingSweep, inferencex.ParetoCoverage)[14], src
}

// ciAgenticArt puts one point per file into a bmk_agentic_* artifact, with
// multi-node style _conc<N> names.
func ciAgenticArt(id int64, name string, rows ...string) (checks.Artifact, map[string]string) {
	files := map[string]string{}
	for i, r := range rows {
		files[fmt.Sprintf("%s_conc%d.json", strings.TrimPrefix(name, "bmk_agentic_"), i+1)] = r
	}
	return checks.Artifact{ID: id, Name: name, RunID: ciRun}, files
}

func ciCurve(n int, prefix, hw, fw, prec, spec, image string, disagg bool, xs, ys []string) []string {
	var out []string
	for i := range n {
		out = append(out, ciAgentic(prefix, hw, fw, prec, spec, image, disagg, xs[i], ys[i]))
	}
	return out
}

var (
	ciXs = []string{"10", "20", "30", "40", "50", "60", "70"}
	ciYs = []string{"100", "200", "300", "400", "500", "600", "700"}
)

func ciQwenCfg() *repo.ConfigEntry {
	return &repo.ConfigEntry{Key: "qwen3.5-fp8-mi355x-sglang-agentic-mtp", ModelPrefix: "qwen3.5", Precision: "fp8",
		Framework: "sglang", Runner: "cluster:mi355x-amds", SKU: "mi355x", Agentic: true,
		Scenarios: []repo.Scenario{{Type: "agentic-coding", Search: []repo.SearchSpace{{TP: 4, SpecDecoding: "mtp"}}}}}
}

func ciDsv4Cfg() *repo.ConfigEntry {
	return &repo.ConfigEntry{Key: "dsv4-fp4-gb300-dynamo-vllm-agentic", ModelPrefix: "dsv4", Precision: "fp4",
		Framework: "dynamo-vllm", Runner: "gb300", SKU: "gb300", Agentic: true}
}

const ciHint = " To record an admin bypass, an admin comments: `/verdict bypass 14 1a2b3c4 <reason>`"

func TestParetoCheck(t *testing.T) {
	qwen7, qwenData := ciAgenticArt(11, "bmk_agentic_qwen", ciCurve(7, "qwen3.5", "mi355x-amds", "sglang", "fp8", "mtp", "img:a", false, ciXs, ciYs)...)
	dsv3, dsvData := ciAgenticArt(12, "bmk_agentic_dsv4", ciCurve(3, "dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:b", false, ciXs, ciYs)...)
	var fixedRows []string
	for i := range 7 {
		fixedRows = append(fixedRows, ciFixed("dsr1", "b200-dgxc", "sglang", "fp4", "mtp", 8192, 1024, ciXs[i], ciYs[i]))
	}
	// The worked example of RULES.md, Check 14, P1..P11.
	worked := [][2]string{{"1.5", "300"}, {"2.0", "520"}, {"2.0", "480"}, {"2.5", "450"}, {"3.0", "520"}, {"3.0", "520"},
		{"4.0", "900"}, {"5.0", "880"}, {"6.0", "1250"}, {"0", "100"}, {"7.0", "NaN"}}
	var workedRows []string
	for _, p := range worked {
		workedRows = append(workedRows, ciAgentic("exm", "b300-nv", "vllm", "fp4", "none", "img", false, p[0], p[1]))
	}
	exmCfg := &repo.ConfigEntry{Key: "exm-fp4-b300-vllm-agentic", ModelPrefix: "exm", Precision: "fp4", Framework: "vllm", SKU: "b300", Agentic: true}
	// Aggregated and disaggregated configs of one series pool into one curve.
	pool := []string{
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "mtp", "img:agg", false, "14.0", "3700"),
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "mtp", "img:agg", false, "18.0", "2600"),
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:disagg", true, "21.0", "25000"),
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:disagg", true, "36.0", "80000"),
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:disagg", true, "45.0", "110000"),
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:disagg", true, "55.0", "120000"),
		ciAgentic("dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:disagg", true, "85.0", "125000"),
	}
	poolAgg, poolAggData := ciAgenticArt(31, "bmk_agentic_dsv4_agg", pool[:2]...)
	poolDis, poolDisData := ciAgenticArt(32, "bmk_agentic_dsv4_disagg", pool[2:]...)

	admin := checks.Permission{Permission: "admin", RoleName: "admin"}
	perms := map[string]checks.Permission{"boss": admin, "maint": {Permission: "maintain", RoleName: "maintain"},
		"custom": {Permission: "admin", RoleName: "repo-superuser"}}
	comment := func(id int64, who, body string) checks.Comment {
		return checks.Comment{ID: id, Author: who, Body: body, URL: fmt.Sprintf("https://github.com/o/r/pull/2600#issuecomment-%d", id)}
	}
	dsvWarn := "dsv4/agentic-coding/gb300_dynamo-vllm/fp4/30123456789/p90: 3/5 frontier points; "

	tests := []struct {
		name string
		f    ciParetoFixture
		st   checks.Status
		want string
	}{
		{name: "AgentX curve passes", st: checks.Pass,
			f:    ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: qwenData}, affected: []*repo.ConfigEntry{ciQwenCfg()}},
			want: "qwen3.5/agentic-coding/mi355x_sglang/fp8/30123456789/p90: 7/5 frontier points (bmk_agentic_* of run 30123456789)."},
		{name: "S1 fixed-seq MTP curve passes", st: checks.Pass,
			f: ciParetoFixture{arts: []checks.Artifact{{ID: 5, Name: "results_bmk"}}, data: map[int64]map[string]string{5: {"agg_bmk.json": "[" + strings.Join(fixedRows, ",") + "]"}},
				affected: []*repo.ConfigEntry{{Key: "dsr1-fp4-b200-sglang-mtp", ModelPrefix: "dsr1", Precision: "fp4", Framework: "sglang", SKU: "b200"}}},
			want: "dsr1/8k1k/b200_sglang_mtp/fp4/30123456789/median: 7/5 frontier points (results_bmk of run 30123456789)."},
		{name: "worked example: 5 frontier points but 2 invalid", st: checks.Warn,
			f: func() ciParetoFixture {
				a, d := ciAgenticArt(21, "bmk_agentic_exm", workedRows...)
				return ciParetoFixture{arts: []checks.Artifact{a}, data: map[int64]map[string]string{21: d}, affected: []*repo.ConfigEntry{exmCfg}}
			}(),
			want: "exm/agentic-coding/b300_vllm/fp4/30123456789/p90: 5/5 frontier points; 2 invalid measurements; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "worked example without the invalid points passes", st: checks.Pass,
			f: func() ciParetoFixture {
				a, d := ciAgenticArt(21, "bmk_agentic_exm", workedRows[:9]...)
				return ciParetoFixture{arts: []checks.Artifact{a}, data: map[int64]map[string]string{21: d}, affected: []*repo.ConfigEntry{exmCfg}}
			}(),
			want: "exm/agentic-coding/b300_vllm/fp4/30123456789/p90: 5/5 frontier points (bmk_agentic_* of run 30123456789)."},
		{name: "worked example without P9 is 4/5", st: checks.Warn,
			f: func() ciParetoFixture {
				a, d := ciAgenticArt(21, "bmk_agentic_exm", workedRows[:8]...)
				return ciParetoFixture{arts: []checks.Artifact{a}, data: map[int64]map[string]string{21: d}, affected: []*repo.ConfigEntry{exmCfg}}
			}(),
			want: "exm/agentic-coding/b300_vllm/fp4/30123456789/p90: 4/5 frontier points; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "series pooling: agg and disagg configs, two images, one curve", st: checks.Pass,
			f: ciParetoFixture{arts: []checks.Artifact{poolAgg, poolDis}, data: map[int64]map[string]string{31: poolAggData, 32: poolDisData},
				affected: []*repo.ConfigEntry{ciDsv4Cfg()}},
			want: "dsv4/agentic-coding/gb300_dynamo-vllm/fp4/30123456789/p90: 6/5 frontier points (bmk_agentic_* of run 30123456789)."},
		{name: "3-point curve without bypass", st: checks.Warn,
			f:    ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()}},
			want: dsvWarn + "admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "3-point curve with a valid admin bypass", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(1, "boss", "Reviewed.\n/verdict bypass 14 1a2b3c4 tight GPU budget\nthanks")}},
			want: dsvWarn + "admin bypass verified (@boss, https://github.com/o/r/pull/2600#issuecomment-1); evidence: run 30123456789 artifacts."},
		{name: "3-point curve with the spec's /pareto-bypass", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(2, "boss", "/pareto-bypass 1A2B3C4D tight GPU budget")}},
			want: dsvWarn + "admin bypass verified (@boss, https://github.com/o/r/pull/2600#issuecomment-2); evidence: run 30123456789 artifacts."},
		{name: "bypass by a maintain user is not verified", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(3, "maint", "/verdict bypass 14 1a2b3c4 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified: @maint is not an admin (permission `maintain`); evidence: run 30123456789 artifacts." + ciHint},
		{name: "bypass by a custom admin-like role is not verified", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(3, "custom", "/verdict bypass 14 1a2b3c4 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified: @custom has `admin` permission, but the role is `repo-superuser`, not `admin`; evidence: run 30123456789 artifacts." + ciHint},
		{name: "bypass naming another commit is not verified", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(4, "boss", "/verdict bypass 14 0ff1ce0 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified: @boss named commit 0ff1ce0, not the assessed head 1a2b3c4; evidence: run 30123456789 artifacts." + ciHint},
		{name: "bypass of another check is not a Check 14 bypass", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(4, "boss", "/verdict bypass 4 1a2b3c4 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "quoted bypass line is not a command", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(4, "boss", "> /verdict bypass 14 1a2b3c4 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified: the bypass by @boss is quoted, in code or in an HTML comment, so it is not a command; evidence: run 30123456789 artifacts." + ciHint},
		{name: "mid-line bypass says so", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(4, "boss", "ok: /verdict bypass 14 1a2b3c4 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified: the bypass by @boss is not on a line of its own, so it is not a command; evidence: run 30123456789 artifacts." + ciHint},
		{name: "fenced pareto-bypass says so", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(4, "boss", "```\n/pareto-bypass 1a2b3c4 budget\n```")}},
			want: dsvWarn + "admin bypass not verified: the bypass by @boss is quoted, in code or in an HTML comment, so it is not a command; evidence: run 30123456789 artifacts." + ciHint},
		{name: "several refusals: the newest in the row", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(3, "maint", "/verdict bypass 14 1a2b3c4 tight GPU budget"), comment(4, "boss", "/verdict bypass 14 0ff1ce0 tight GPU budget")}},
			want: dsvWarn + "admin bypass not verified: @boss named commit 0ff1ce0, not the assessed head 1a2b3c4 (1 more listed below); evidence: run 30123456789 artifacts." + ciHint},
		{name: "free-text admin claim", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{dsv3}, data: map[int64]map[string]string{12: dsvData}, affected: []*repo.ConfigEntry{ciDsv4Cfg()},
				perms: perms, comments: []checks.Comment{comment(5, "boss", "Granting an admin exception for this curve.")}},
			want: dsvWarn + "admin bypass claimed by @boss, not machine-verifiable; evidence: run 30123456789 artifacts." + ciHint},
		{name: "no qualifying run", st: checks.Warn,
			f:    ciParetoFixture{noSweep: true, affected: []*repo.ConfigEntry{ciDsv4Cfg()}},
			want: "unverifiable: no qualifying in-PR run (Check 1); admin bypass not verified." + ciHint},
		{name: "expired artifacts", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{{ID: 11, Name: "bmk_agentic_qwen", Expired: true}, {ID: 5, Name: "results_bmk"}},
				data: map[int64]map[string]string{5: {"agg_bmk.json": "[]"}}, affected: []*repo.ConfigEntry{ciQwenCfg()}},
			want: "unverifiable: artifacts of run 30123456789 expired (bmk_agentic_qwen); admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "no benchmark artifacts", st: checks.Warn,
			f:    ciParetoFixture{arts: []checks.Artifact{{ID: 7, Name: "eval_results_all"}}, affected: []*repo.ConfigEntry{ciQwenCfg()}},
			want: "unverifiable: run 30123456789 has no results_bmk or bmk_agentic_* artifact; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "broken artifact file", st: checks.Warn,
			f:    ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: {"x.json": "{"}}, affected: []*repo.ConfigEntry{ciQwenCfg()}},
			want: "unverifiable: artifact bmk_agentic_qwen of run 30123456789 is unreadable: x.json: parsing agentic result: malformed: unexpected EOF; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "affected config without points", st: checks.Warn,
			f:    ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: qwenData}, affected: []*repo.ConfigEntry{ciQwenCfg(), ciDsv4Cfg()}},
			want: "dsv4-fp4-gb300-dynamo-vllm-agentic: unverifiable: no benchmark points in run 30123456789; 1 other curve(s) pass; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "docs-only PR is N/A", st: checks.NA,
			f:    ciParetoFixture{files: []checks.ChangedFile{{Path: "docs/README.md"}}, noSweep: true},
			want: "No change in this PR can affect a benchmark curve."},
		{name: "a changed master config that could not be read is not N/A", st: checks.Warn,
			f: ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: qwenData},
				problems: []repo.InputProblem{{Path: "configs/amd-master.yaml", Err: "HTTP 500"}}},
			want: "affected curves unverifiable: configs/amd-master.yaml: HTTP 500; 1 other curve(s) pass; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
		{name: "a changed runner script is not N/A", st: checks.Warn,
			f:    ciParetoFixture{files: []checks.ChangedFile{{Path: "runners/launch_mi355x.sh"}}, noSweep: true},
			want: "unverifiable: no qualifying in-PR run (Check 1); admin bypass not verified." + ciHint},
		{name: "change set unavailable never passes", st: checks.Warn,
			f:    ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: qwenData}, csErr: errors.New("HTTP 500")},
			want: "affected curves unverifiable: change-set model unavailable (HTTP 500); 1 other curve(s) pass; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := tc.f.run(t)
			if r.Status != tc.st || r.Reason.EN != tc.want {
				t.Fatalf("got %s %q\nwant %s %q", r.Status, r.Reason.EN, tc.st, tc.want)
			}
			if words := checkstest.EnglishInChinese(r.Reason.ZH); strings.Contains(tc.name, "bypass") && len(words) > 0 {
				t.Errorf("Chinese reason leaves %q untranslated: %s", words, r.Reason.ZH)
			}
			if r.Reason.ZH == "" || r.Reason.ZH == r.Reason.EN {
				t.Errorf("Chinese reason missing")
			}
		})
	}
}

// Curves never pool percentiles, scenarios or different series: a 1k1k and
// an 8k1k curve, and an MTP and a non-MTP fixed-seq curve, are separate.
func TestParetoSeriesAreNotPooled(t *testing.T) {
	var rows []string
	for i := range 3 {
		rows = append(rows,
			ciFixed("dsr1", "b200-dgxc", "sglang", "fp4", "mtp", 8192, 1024, ciXs[i], ciYs[i]),
			ciFixed("dsr1", "b200-dgxc", "sglang", "fp4", "mtp", 1024, 1024, ciXs[i], ciYs[i]),
			ciFixed("dsr1", "b200-dgxc", "sglang", "fp4", "none", 8192, 1024, ciXs[i], ciYs[i]))
	}
	f := ciParetoFixture{arts: []checks.Artifact{{ID: 5, Name: "results_bmk"}}, data: map[int64]map[string]string{5: {"agg_bmk.json": "[" + strings.Join(rows, ",") + "]"}},
		affected: []*repo.ConfigEntry{{Key: "dsr1-fp4-b200-sglang-mtp", ModelPrefix: "dsr1", Precision: "fp4", Framework: "sglang", SKU: "b200"}}}
	r, _ := f.run(t)
	want := "dsr1/1k1k/b200_sglang_mtp/fp4/30123456789/median: 3/5 frontier points; dsr1/8k1k/b200_sglang/fp4/30123456789/median: 3/5 frontier points; dsr1/8k1k/b200_sglang_mtp/fp4/30123456789/median: 3/5 frontier points; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint
	if r.Status != checks.Warn || r.Reason.EN != want {
		t.Fatalf("got %s %q\nwant %q", r.Status, r.Reason.EN, want)
	}
}

// Permissions are looked up only for authors of bypass candidates, once each.
func TestParetoPassDoesNotReadBypass(t *testing.T) {
	qwen7, qwenData := ciAgenticArt(11, "bmk_agentic_qwen", ciCurve(7, "qwen3.5", "mi355x-amds", "sglang", "fp8", "mtp", "img:a", false, ciXs, ciYs)...)
	f := ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: qwenData}, affected: []*repo.ConfigEntry{ciQwenCfg()},
		comments: []checks.Comment{{Author: "x", Body: "/verdict bypass 14 1a2b3c4 r"}}}
	r, src := f.run(t)
	if r.Status != checks.Pass || src.Calls["Permission"] != 0 || src.Calls["Comments"] != 0 {
		t.Fatalf("got %s, calls %v", r.Status, src.Calls)
	}
}

// Same evidence, same rows, byte for byte: artifacts listed and files
// returned in different orders change nothing.
func TestParetoAndEvalsDeterministic(t *testing.T) {
	build := func(reverse bool) (checks.Result, checks.Result) {
		a1, d1 := ciAgenticArt(11, "bmk_agentic_qwen", ciCurve(7, "qwen3.5", "mi355x-amds", "sglang", "fp8", "mtp", "img:a", false, ciXs, ciYs)...)
		a2, d2 := ciAgenticArt(12, "bmk_agentic_dsv4", ciCurve(3, "dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:b", false, ciXs, ciYs)...)
		e1 := checks.Artifact{ID: 7, Name: "eval_results_dsv4"}
		e2 := checks.Artifact{ID: 8, Name: "eval_results_qwen3.5"}
		arts := []checks.Artifact{a1, a2, e1, e2}
		if reverse {
			arts = []checks.Artifact{e2, a2, e1, a1}
		}
		src := &checkstest.Source{CommitsValue: ciCommits(ciHead),
			Runs:         map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")},
			RunArtifacts: map[int64][]checks.Artifact{ciRun: arts},
			ArtifactData: map[int64]map[string]string{11: d1, 12: d2,
				7: {"agg_eval_dsv4.json": `[{"model_prefix":"dsv4","hw":"GB300-NV","framework":"dynamo-vllm","precision":"fp4","spec_decoding":"none","task":"gsm8k","em_strict":0.95,"n_eff":9}]`},
				8: {"agg_eval_qwen3.5.json": "[" + ciAggRow("0.96", "0.97", "") + "]"}},
		}
		src.SetFile(ciDefault, "utils/evals/thresholds.yaml", ciThresholds)
		dsv := ciDsv4Cfg()
		src.SetFile(ciHead, "configs/amd-master.yaml", ciMaster(ciImgA)+strings.ReplaceAll(strings.ReplaceAll(ciMaster("img:b"), ciKey, dsv.Key), "qwen3.5", "dsv4"))
		qwen := ciQwenCfg()
		qwen.Image, dsv.Image = ciImgA, "img:b"
		pr := ciPR(src)
		cs := &changeset.Model{Files: []checks.ChangedFile{{Path: "configs/amd-master.yaml"}}, Affected: []*repo.ConfigEntry{qwen, dsv}}
		inferencextest.WithChangeSet(cs)(pr)
		rows := checkstest.Run(t, pr, inferencex.PassingSweep, inferencex.Evals, inferencex.ParetoCoverage)
		return rows[2], rows[14]
	}
	e1, p1 := build(false)
	e2, p2 := build(true)
	if fmt.Sprint(e1) != fmt.Sprint(e2) || fmt.Sprint(p1) != fmt.Sprint(p2) {
		t.Fatalf("order changed the rows:\n%v\n%v\n%v\n%v", e1, e2, p1, p2)
	}
	if p1.Status != checks.Warn || !strings.HasPrefix(p1.Reason.EN, "dsv4/agentic-coding/gb300_dynamo-vllm/fp4/30123456789/p90: 3/5 frontier points; 1 other curve(s) pass;") {
		t.Errorf("pareto row %q", p1.Reason.EN)
	}
	if e1.Status != checks.Pass || !strings.HasPrefix(e1.Reason.EN, "qwen3.5 mi355x-amds sglang fp8 c8 gsm8k em_strict 0.960 ± 0.004 (n=1319) ≥ 0.94 in run 30123456789 (lowest of 3 scores); own evals and same image for 2 affected config(s).") {
		t.Errorf("evals row %s %q", e1.Status, e1.Reason.EN)
	}
}

// A curve of a config the PR does not affect is not assessed; with a changed
// file that maps to no config, every curve is.
func TestParetoScopesToAffectedSeries(t *testing.T) {
	qwen7, qwenData := ciAgenticArt(11, "bmk_agentic_qwen", ciCurve(7, "qwen3.5", "mi355x-amds", "sglang", "fp8", "mtp", "img:a", false, ciXs, ciYs)...)
	dsv3, dsvData := ciAgenticArt(12, "bmk_agentic_dsv4", ciCurve(3, "dsv4", "gb300-nv", "dynamo-vllm", "fp4", "none", "img:b", false, ciXs, ciYs)...)
	f := ciParetoFixture{arts: []checks.Artifact{qwen7, dsv3}, data: map[int64]map[string]string{11: qwenData, 12: dsvData},
		affected: []*repo.ConfigEntry{ciQwenCfg()}}
	r, _ := f.run(t)
	if want := "qwen3.5/agentic-coding/mi355x_sglang/fp8/30123456789/p90: 7/5 frontier points (bmk_agentic_* of run 30123456789)."; r.Status != checks.Pass || r.Reason.EN != want {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
	f.unmapped = []string{"benchmarks/single_node/odd_script.sh"}
	r, _ = f.run(t)
	if want := "dsv4/agentic-coding/gb300_dynamo-vllm/fp4/30123456789/p90: 3/5 frontier points; 1 other curve(s) pass; admin bypass not verified; evidence: run 30123456789 artifacts." + ciHint; r.Status != checks.Warn || r.Reason.EN != want {
		t.Fatalf("got %s %q", r.Status, r.Reason.EN)
	}
}
