package inferencex_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/serving"
)

const sglPatch = `@@ -0,0 +1,12 @@
+# Qwen3.5 on B200
+python -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 \
+  --tp-size 8 --ep-size 8 \
+  --quantization fp8 \
+  --attention-backend trtllm_mha
-  --attention-backend fa3
`

func recipeSource() *checkstest.Source {
	merged := time.Date(2026, 10, 2, 12, 0, 0, 0, time.UTC)
	return &checkstest.Source{
		Upstream: map[string]checks.UpstreamPR{
			"sgl-project/sglang#21873": {Owner: "sgl-project", Repo: "sglang", Number: 21873, State: "closed", Merged: true, MergedAt: merged},
			"vllm-project/recipes#412": {Owner: "vllm-project", Repo: "recipes", Number: 412, State: "open"},
			"vllm-project/recipes#413": {Owner: "vllm-project", Repo: "recipes", Number: 413, State: "closed"},
			"vllm-project/recipes#414": {Owner: "vllm-project", Repo: "recipes", Number: 414, State: "open", Draft: true},
			"sgl-project/sgl-docs#9":   {Owner: "sgl-project", Repo: "sgl-docs", Number: 9, State: "closed", Merged: true, MergedAt: merged},
			"vllm-project/recipes#500": {Owner: "vllm-project", Repo: "recipes", Number: 500, State: "closed", Merged: true, MergedAt: merged},
			"sgl-project/sglang#30000": {Owner: "sgl-project", Repo: "sglang", Number: 30000, State: "closed", Merged: true, MergedAt: merged},
			"sgl-project/sglang#31000": {Owner: "sgl-project", Repo: "sglang", Number: 31000, State: "closed", Merged: true, MergedAt: merged,
				Title: "[Cookbook] DeepSeek V4: B200 FP8 serving recipe"},
			"sgl-project/sglang#31001": {Owner: "sgl-project", Repo: "sglang", Number: 31001, State: "closed", Merged: true, MergedAt: merged},
		},
		UpstreamFiles: map[string][]checks.ChangedFile{
			"sgl-project/sglang#21873": {{Path: "docs/cookbook/qwen3.5.md", Patch: sglPatch}},
			"vllm-project/recipes#500": {{Path: "Qwen/Qwen3.5.md", Patch: "+vllm serve Qwen/Qwen3.5 --tensor-parallel-size 4\n"}},
			"sgl-project/sglang#30000": {{Path: "python/sglang/srt/server_args.py", Patch: sglPatch}},
			// A DeepSeek-V4 cookbook page with the same serving arguments.
			"sgl-project/sglang#31000": {{Path: "docs_new/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx",
				Patch: "@@ -0,0 +1,3 @@\n+python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro \\\n+  --tp-size 8 --ep-size 8 --quantization fp8 --attention-backend trtllm_mha\n"}},
		},
		Pages: map[string]checks.Page{
			"https://docs.sglang.io/cookbook/qwen3.5":         {StatusCode: 200, Body: []byte("<pre>--tp-size 8 --ep-size 8 --quantization fp8 --attention-backend trtllm_mha</pre>")},
			"https://recipes.vllm.ai/deepseek-ai/DeepSeek-R1": {StatusCode: 200, Body: []byte("<title>DeepSeek-R1 | vLLM Recipes</title><nav>Qwen3.5 GLM-5 Kimi-K2.5</nav><pre>vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8</pre>")},
			"https://docs.sglang.io/cookbook/autoregressive":  {StatusCode: 200, Body: []byte("<title>Cookbook</title><nav>GLM-5 DeepSeek-V4</nav><pre>--tp-size 8 --ep-size 8 --quantization fp8 --attention-backend trtllm_mha</pre>")},
		},
	}
}

func recipeEntry(key, framework string, multi, disagg bool) *repo.ConfigEntry {
	e := specEntry(key, "qwen3.5", framework, false, false, repo.SearchSpace{TP: 8})
	e.MultiNode, e.Disagg = multi, disagg
	return e
}

func recipeSettings(file string) []repo.Setting {
	return []repo.Setting{
		specSet(file, "", "flag", "--tp-size", "8", 10),
		specSet(file, "", "flag", "--ep-size", "8", 10),
		specSet(file, "", "flag", "--quantization", "fp8", 11),
		specSet(file, "", "flag", "--attention-backend", "trtllm_mha", 12),
		specSet(file, "", "flag", "--scheduler-recv-interval", "30", 13),
		specSet(file, "benchmark", "env", "TP", "8", 20),
	}
}

func TestUpstreamRecipeCheck(t *testing.T) {
	const script = "benchmarks/single_node/qwen3.5_fp8_b200_sglang.sh"
	sgl := recipeEntry("qwen3.5-fp8-b200-sglang", "sglang", false, false)
	dyn := recipeEntry("qwen3.5-fp8-gb200-dynamo-sglang-disagg", "dynamo-sglang", true, true)
	vll := recipeEntry("qwen3.5-fp8-b200-vllm", "vllm", false, false)
	trt := recipeEntry("qwen3.5-fp8-b200-trt", "trt", false, false)
	family := func(key, model, prefix, framework string) *repo.ConfigEntry {
		e := recipeEntry(key, framework, false, false)
		e.Model, e.ModelPrefix = model, prefix
		return e
	}
	glm := family("glm5-fp8-b200-sglang", "zai-org/GLM-5-FP8", "glm5", "sglang")
	dsv4 := family("dsv4-fp8-b200-sglang", "deepseek-ai/DeepSeek-V4-Pro", "dsv4", "sglang")
	dsr1 := family("dsr1-fp4-b200-vllm", "nvidia/DeepSeek-R1-0528-FP4-v2", "dsr1", "vllm")
	tests := []struct {
		name    string
		scope   string
		entries []*repo.ConfigEntry
		detail  string
		extra   []repo.Setting
		status  checks.Status
		reason  string
	}{
		{name: "vendor framework only", entries: []*repo.ConfigEntry{trt}, status: checks.NA, reason: "No vLLM/SGLang serving configuration is affected (1 affected configs inspected)."},
		{name: "merged and covered", entries: []*repo.ConfigEntry{sgl}, detail: "- Recipe: https://github.com/sgl-project/sglang/pull/21873 (merged)",
			status: checks.Pass, reason: "sgl-project/sglang#21873 merged 2026-10-02; TP/EP/quantization/attention backend match."},
		{name: "default parallel size not required", entries: []*repo.ConfigEntry{sgl}, detail: "- https://github.com/sgl-project/sglang/pull/21873",
			extra:  []repo.Setting{specSet(script, "", "flag", "--dp-size", "1", 16)},
			status: checks.Pass, reason: "TP/EP/quantization/attention backend match."},
		{name: "published cookbook page", entries: []*repo.ConfigEntry{sgl}, detail: "- https://docs.sglang.io/cookbook/qwen3.5",
			status: checks.Pass, reason: "docs.sglang.io/cookbook/qwen3.5 published; TP/EP/quantization/attention backend match."},
		{name: "missing major arg", entries: []*repo.ConfigEntry{sgl}, detail: "- https://github.com/sgl-project/sglang/pull/21873",
			extra:  []repo.Setting{specSet(script, "", "flag", "--kv-cache-dtype", "fp8_e4m3", 14)},
			status: checks.Fail, reason: "Needs human review: sgl-project/sglang#21873 merged 2026-10-02; upstream recipe does not show: kv-cache-dtype fp8_e4m3."},
		{name: "value differs", entries: []*repo.ConfigEntry{sgl}, detail: "- https://github.com/sgl-project/sglang/pull/21873",
			extra:  []repo.Setting{specSet(script, "", "flag", "--attention-backend", "fa3", 15)},
			status: checks.Fail, reason: "upstream recipe does not show: attention backend fa3."},
		{name: "SGLang code PR is not a recipe", entries: []*repo.ConfigEntry{sgl}, detail: "- https://github.com/sgl-project/sglang/pull/30000",
			status: checks.Fail, reason: "Needs human review: sgl-project/sglang#30000 changes no cookbook page"},
		{name: "open PR", entries: []*repo.ConfigEntry{vll}, detail: "- https://github.com/vllm-project/recipes/pull/412",
			status: checks.Fail, reason: "Linked vllm-project/recipes#412 is open, not merged."},
		{name: "closed unmerged", entries: []*repo.ConfigEntry{vll}, detail: "- https://github.com/vllm-project/recipes/pull/413",
			status: checks.Fail, reason: "Linked vllm-project/recipes#413 was closed without being merged."},
		{name: "draft PR", entries: []*repo.ConfigEntry{vll}, detail: "- https://github.com/vllm-project/recipes/pull/414",
			status: checks.Fail, reason: "Linked vllm-project/recipes#414 is a draft, not merged."},
		{name: "unreachable", entries: []*repo.ConfigEntry{vll}, detail: "- https://github.com/vllm-project/recipes/pull/999",
			status: checks.Fail, reason: "Upstream merge status could not be verified"},
		{name: "unpublished page", entries: []*repo.ConfigEntry{vll}, detail: "- https://recipes.vllm.ai/Qwen/missing",
			status: checks.Fail, reason: "Linked recipes.vllm.ai/Qwen/missing is not published (HTTP 404)."},
		{name: "branch link", entries: []*repo.ConfigEntry{vll}, detail: "- https://github.com/vllm-project/recipes/tree/qwen-branch",
			status: checks.Fail, reason: "is a branch or commit link, not a merged PR."},
		{name: "engine mismatch", entries: []*repo.ConfigEntry{vll}, detail: "- https://github.com/sgl-project/sglang/pull/21873",
			status: checks.Fail, reason: "No upstream recipe link in the additional detail section (vllm requires vLLM recipes coverage; linked sgl-project/sglang#21873 is for another engine)."},
		{name: "sgl-docs PR needs a page", entries: []*repo.ConfigEntry{sgl}, detail: "- https://github.com/sgl-project/sgl-docs/pull/9",
			status: checks.Fail, reason: "needs a current published docs.sglang.io/cookbook page as well."},
		{name: "link outside additional detail", entries: []*repo.ConfigEntry{sgl}, detail: "- insert any additional info here",
			status: checks.Fail, reason: "No upstream recipe link in the additional detail section (sglang requires SGLang cookbook coverage)."},
		{name: "S15 all deployments", entries: []*repo.ConfigEntry{dyn}, detail: "- disagg, no recipe update required",
			status: checks.Fail, reason: "No upstream recipe link in the additional detail section (dynamo-sglang disagg requires SGLang cookbook coverage)."},
		{name: "S15 single-node scope", scope: "single-node", entries: []*repo.ConfigEntry{dyn}, detail: "- disagg, no recipe update required",
			status: checks.NA, reason: "disaggregated/multi-node submission; the recipe-link requirement applies to single-node recipes only"},
		{name: "single-node scope still checks single-node part", scope: "single-node", entries: []*repo.ConfigEntry{dyn, vll},
			detail: "- https://github.com/vllm-project/recipes/pull/412", status: checks.Fail, reason: "Linked vllm-project/recipes#412 is open, not merged."},
		{name: "two engines both needed", entries: []*repo.ConfigEntry{sgl, vll}, detail: "- https://github.com/sgl-project/sglang/pull/21873",
			status: checks.Fail, reason: "(vllm requires vLLM recipes coverage"},
		// The recipe must be for the config's model family.
		{name: "recipe of another model", entries: []*repo.ConfigEntry{glm}, detail: "- https://github.com/sgl-project/sglang/pull/31000",
			status: checks.Fail, reason: "Linked sgl-project/sglang#31000 is not a recipe for GLM-5 (glm5-fp8-b200-sglang serves zai-org/GLM-5-FP8): its link, title, changed files and served models name another model."},
		{name: "the same recipe backs its own family", entries: []*repo.ConfigEntry{dsv4}, detail: "- https://github.com/sgl-project/sglang/pull/31000",
			status: checks.Pass, reason: "sgl-project/sglang#31000 merged 2026-10-02; TP/EP/quantization/attention backend match."},
		{name: "one of two configs without a recipe of its family", entries: []*repo.ConfigEntry{dsv4, glm},
			detail: "- https://github.com/sgl-project/sglang/pull/31000\n- https://github.com/sgl-project/sglang/pull/21873",
			status: checks.Fail, reason: "Linked sgl-project/sglang#31000, sgl-project/sglang#21873 is not a recipe for GLM-5 (glm5-fp8-b200-sglang"},
		{name: "quantized checkpoint of the base model", entries: []*repo.ConfigEntry{dsr1}, detail: "- https://recipes.vllm.ai/deepseek-ai/DeepSeek-R1",
			extra: []repo.Setting{}, status: checks.Fail, reason: "Needs human review: recipes.vllm.ai/deepseek-ai/DeepSeek-R1 published; upstream recipe does not show: EP 8, quantization fp8, attention backend trtllm_mha."},
		{name: "a page's navigation names no recipe", entries: []*repo.ConfigEntry{glm}, detail: "- https://docs.sglang.io/cookbook/autoregressive",
			status: checks.Fail, reason: "Linked docs.sglang.io/cookbook/autoregressive is not a recipe for GLM-5"},
		{name: "recipe text unreadable", entries: []*repo.ConfigEntry{glm}, detail: "- https://github.com/sgl-project/sglang/pull/31001",
			status: checks.Fail, reason: "Needs human review: sgl-project/sglang#31001 could not be read to tell whether it is a recipe for GLM-5 (glm5-fp8-b200-sglang)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := &changeset.Model{Affected: tc.entries, Effective: map[string][]*repo.EffectiveFile{}}
			for _, e := range tc.entries {
				s := recipeSettings(script)
				if tc.extra != nil {
					s = append(s, tc.extra...)
				}
				cs.Effective[e.Key] = []*repo.EffectiveFile{{Path: script, Kind: "script", Settings: s}}
			}
			pr := specPR(t, cs, recipeSource(), repo.LegacyLayout(), tc.detail)
			if tc.scope != "" {
				repo.SettingsParam.Get(pr).UpstreamRecipeScope = tc.scope
			}
			r := specRun(t, inferencex.UpstreamRecipe, pr)
			specCheck(t, r, tc.status, tc.reason)
			if r.Status == checks.Pass {
				found := false
				for _, e := range r.Evidence {
					found = found || e.Label == "InferenceX-only (informational)" && e.Value == "--scheduler-recv-interval=30"
				}
				if !found {
					t.Fatalf("InferenceX-only knob not listed: %+v", r.Evidence)
				}
			}
		})
	}
}

func TestParseUpstreamLink(t *testing.T) {
	tests := []struct {
		url, engine, kind, name string
		ok                      bool
	}{
		{"https://github.com/sgl-project/sglang/pull/21873", "sglang", "pr", "sgl-project/sglang#21873", true},
		{"https://github.com/sgl-project/sglang/pull/21873/files", "sglang", "pr", "sgl-project/sglang#21873", true},
		{"https://github.com/vllm-project/recipes/pull/412", "vllm", "pr", "vllm-project/recipes#412", true},
		{"https://github.com/vllm-project/recipes/commit/abc123", "vllm", "ref", "", true},
		{"https://recipes.vllm.ai/Qwen/Qwen3.5", "vllm", "page", "recipes.vllm.ai/Qwen/Qwen3.5", true},
		{"https://docs.sglang.io/cookbook/qwen", "sglang", "page", "docs.sglang.io/cookbook/qwen", true},
		{"https://docs.sglang.io/other", "", "", "", false},
		{"https://github.com/evil/sglang/pull/1", "", "", "", false},
		{"https://github.com/SemiAnalysisAI/InferenceX/actions/runs/1", "", "", "", false},
		{"ftp://recipes.vllm.ai/x", "", "", "", false},
	}
	for _, tc := range tests {
		l, ok := serving.ParseUpstreamLink(tc.url)
		if ok != tc.ok || l.Engine != tc.engine || l.Kind != tc.kind || (tc.name != "" && l.Name() != tc.name) {
			t.Errorf("ParseUpstreamLink(%q) = %+v %v (name %q)", tc.url, l, ok, l.Name())
		}
	}
}

// TestUpstreamRecipeConcurrentReads checks every link is read exactly once.
func TestUpstreamRecipeConcurrentReads(t *testing.T) {
	src := recipeSource()
	sgl := recipeEntry("qwen3.5-fp8-b200-sglang", "sglang", false, false)
	vll := recipeEntry("qwen3.5-fp8-b200-vllm", "vllm", false, false)
	cs := &changeset.Model{Affected: []*repo.ConfigEntry{sgl, vll}, Effective: map[string][]*repo.EffectiveFile{
		sgl.Key: {{Path: "a.sh", Settings: recipeSettings("a.sh")[:1]}},
		vll.Key: {{Path: "b.sh", Settings: []repo.Setting{specSet("b.sh", "", "flag", "--tensor-parallel-size", "4", 1)}}},
	}}
	detail := "- https://github.com/sgl-project/sglang/pull/21873\n- https://github.com/vllm-project/recipes/pull/500"
	pr := specPR(t, cs, src, repo.LegacyLayout(), detail)
	r := specRun(t, inferencex.UpstreamRecipe, pr)
	specCheck(t, r, checks.Pass, "sgl-project/sglang#21873 merged 2026-10-02, vllm-project/recipes#500 merged 2026-10-02; TP match.")
	if got := fmt.Sprint(src.Calls["UpstreamPR"], src.Calls["UpstreamPRFiles"]); got != "2 2" {
		t.Fatalf("upstream calls = %s, want 2 2", got)
	}
}
