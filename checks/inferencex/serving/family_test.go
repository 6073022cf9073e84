package serving

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

func TestFamilyOf(t *testing.T) {
	for _, tc := range []struct {
		model, prefix, name string
	}{
		{"Qwen/Qwen3.5-397B-A17B-FP8", "qwen3.5", "Qwen3.5"},
		{"nvidia/DeepSeek-R1-0528-FP4-v2", "dsr1", "DeepSeek-R1"},
		{"deepseek-ai/DeepSeek-V4-Pro", "dsv4", "DeepSeek-V4"},
		{"zai-org/GLM-5-FP8", "glm5", "GLM-5"},
		{"amd/Kimi-K2.5-MXFP4", "kimik2.5", "Kimi-K2.5"},
		{"openai/gpt-oss-120b", "gptoss", "gpt-oss"},
		{"meta-llama/Llama-3.3-70B-Instruct", "llama70b", "Llama-3.3"},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral", "Mixtral"},
		{"", "minimaxm3", "minimaxm3"},
	} {
		f := FamilyOf(&repo.ConfigEntry{Model: tc.model, ModelPrefix: tc.prefix})
		if f.Name != tc.name || !f.Known() {
			t.Errorf("FamilyOf(%q, %q) = %q, want %q", tc.model, tc.prefix, f.Name, tc.name)
		}
	}
	if FamilyOf(&repo.ConfigEntry{}).Known() {
		t.Error("a config without model or prefix has a family")
	}
}

func TestFamilyNamedIn(t *testing.T) {
	fam := func(model, prefix string) Family {
		return FamilyOf(&repo.ConfigEntry{Model: model, ModelPrefix: prefix})
	}
	dsr1 := fam("nvidia/DeepSeek-R1-0528-FP4-v2", "dsr1")
	qwen35 := fam("Qwen/Qwen3.5-397B-A17B-FP8", "qwen3.5")
	glm5 := fam("zai-org/GLM-5-FP8", "glm5")
	for _, tc := range []struct {
		f    Family
		s    string
		want bool
	}{
		{dsr1, "https://recipes.vllm.ai/deepseek-ai/DeepSeek-R1", true},
		{dsr1, "deepseek-ai/DeepSeek-R1-0528", true},
		{dsr1, "DeepSeek R1 on B200", true},
		{dsr1, "docs/cookbook/dsr1.md", true},
		{dsr1, "DeepSeek-V4-Pro", false},
		{dsr1, "DeepSeek-R10", false},
		{qwen35, "docs_new/cookbook/autoregressive/Qwen/Qwen3.5.mdx", true},
		{qwen35, "Qwen 3.5 recipe", true},
		{qwen35, "Qwen/Qwen3-235B-A22B", false},
		{qwen35, "Qwen3.6", false},
		{glm5, "[Docs] GLM5 cookbook", true},
		{glm5, "GLM-5.1", false},
		{glm5, "https://github.com/sgl-project/sglang/pull/5", false},
	} {
		if got := tc.f.NamedIn(tc.s); got != tc.want {
			t.Errorf("%s named in %q = %v, want %v", tc.f.Name, tc.s, got, tc.want)
		}
	}
}

func TestRecipeNames(t *testing.T) {
	glm5 := FamilyOf(&repo.ConfigEntry{Model: "zai-org/GLM-5-FP8", ModelPrefix: "glm5"})
	pr := UpstreamLink{URL: "https://github.com/sgl-project/sglang/pull/7", Kind: "pr", Engine: "sglang"}
	page := UpstreamLink{URL: "https://docs.sglang.io/cookbook/autoregressive", Kind: "page", Engine: "sglang"}
	for _, tc := range []struct {
		name string
		l    UpstreamLink
		f    Fetched
		want bool
	}{
		{"PR title", pr, Fetched{PR: checks.UpstreamPR{Title: "[Cookbook] GLM-5 on MI355X"}}, true},
		{"changed file", pr, Fetched{Paths: []string{"docs_new/cookbook/autoregressive/GLM/GLM-5.mdx"}}, true},
		{"served model", pr, Fetched{Text: "python -m sglang.launch_server --model-path zai-org/GLM-5-FP8 --tp 8\n"}, true},
		{"vllm serve", pr, Fetched{Text: "vllm serve zai-org/GLM-5 --tensor-parallel-size 8\n"}, true},
		{"another model", pr, Fetched{PR: checks.UpstreamPR{Title: "DeepSeek-V4 cookbook"}, Paths: []string{"docs_new/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx"},
			Text: "--model-path deepseek-ai/DeepSeek-V4-Pro\nSee also GLM-5.\n"}, false},
		{"page title", page, Fetched{Page: checks.Page{Body: []byte("<html><title>GLM-5 - SGLang Cookbook</title>")}}, true},
		{"a page's navigation", page, Fetched{Page: checks.Page{Body: []byte("<title>Cookbook</title><a href=\"/cookbook/autoregressive/GLM/GLM-5\">GLM-5</a>")},
			Text: "<a href=\"/cookbook/autoregressive/GLM/GLM-5\">GLM-5</a>"}, false},
	} {
		if got := ForFamily(glm5, RecipeNames(tc.l, tc.f)); got != tc.want {
			t.Errorf("%s: for GLM-5 = %v, want %v (names %q)", tc.name, got, tc.want, RecipeNames(tc.l, tc.f))
		}
	}
}

func FuzzFamily(f *testing.F) {
	f.Add("nvidia/DeepSeek-R1-0528-FP4-v2", "dsr1", "recipes.vllm.ai/deepseek-ai/DeepSeek-R1")
	f.Add("Qwen/Qwen3.5-397B", "qwen3.5", "Qwen3.5.mdx")
	f.Fuzz(func(t *testing.T, model, prefix, s string) {
		fam := FamilyOf(&repo.ConfigEntry{Model: model, ModelPrefix: prefix})
		// A family is always named by its own name.
		if fam.Known() && !fam.NamedIn(fam.Name) {
			t.Fatalf("%q (from %q, %q) is not named by itself", fam.Name, model, prefix)
		}
		_ = fam.NamedIn(s)
		_ = RecipeNames(UpstreamLink{URL: s, Kind: "pr"}, Fetched{Text: s, Page: checks.Page{Body: []byte(s)}})
	})
}
