package main

import "testing"

// vLLM upstream-recipe scenarios (INFERENCEX.md Check 3, gen 4) in the
// legacy root layout: a published recipes.vllm.ai page instead of a PR, an
// open vllm-project/recipes PR, an SGLang cookbook linked for a vLLM config,
// and a multi-node dynamo-vllm disagg entry that needs vLLM recipes coverage.

// vllmSingleRows are the rows of vllm-recipe-page (no speculative decoding).
func vllmSingleRows() map[int]legacyRow {
	return map[int]legacyRow{
		0:  {"PASS", []string{"@nv-owner-a owns", "dsr1_fp8_h200_vllm.sh"}},
		1:  {"PASS", []string{"(run 30123456789)"}},
		2:  {"PASS", []string{"gsm8k", "≥ 0.9", "same image"}},
		3:  {"PASS", []string{"recipes.vllm.ai/deepseek-ai/DeepSeek-R1 published", "TP/kv-cache-dtype match"}},
		4:  {"PASS", []string{"@nv-owner-b posted /use 30123456789 (MEMBER)"}},
		5:  {"PASS", []string{"All 17 current template items present"}},
		6:  {"PASS", []string{"vllm/vllm-openai image"}},
		7:  {"PASS", []string{"dsr1 Single-turn 8k1k is active"}},
		9:  {"N/A", []string{"PR affects no spec-decode configuration."}},
		11: {"N/A", []string{"No agentic speculative-decoding changes."}},
		12: {"N/A", nil},
		13: {"N/A", []string{"No affected configuration uses speculative decoding."}},
		14: {"PASS", []string{"dsr1/8k1k/h200_vllm/fp8/30123456789/median: 7/5 frontier points"}},
	}
}

func TestVLLMScenarioRecipePage(t *testing.T) {
	t.Run("published recipes.vllm.ai page", func(t *testing.T) {
		code, v, _ := runLegacyScenario(t, legacyFixture("vllm-recipe-page"))
		if code != exitPass || v.Verdict != "PASS" {
			t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
		}
		assertLegacyRows(t, v, vllmSingleRows())
	})
	// Check 3 fails, so the unchecked "if any criterion above" item is no
	// longer accepted as not applicable (Check 5).
	failing := func(t *testing.T, fixture, reason string) {
		code, v, _ := runLegacyScenario(t, legacyFixture(fixture))
		if code != exitRejected || v.Verdict != "REJECTED" {
			t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
		}
		rows := vllmSingleRows()
		rows[3] = legacyRow{"FAIL", []string{reason}}
		rows[5] = legacyRow{"FAIL", []string{`"if any criterion above"`}}
		assertLegacyRows(t, v, rows)
	}
	t.Run("open vllm-project/recipes PR", func(t *testing.T) {
		failing(t, "vllm-recipe-page-open-pr", "Linked vllm-project/recipes#530 is open, not merged.")
	})
	t.Run("SGLang cookbook for a vLLM config", func(t *testing.T) {
		failing(t, "vllm-recipe-page-sglang", "No upstream recipe link in the additional detail section (vllm requires vLLM recipes coverage; linked docs.sglang.io/cookbook/autoregressive/DeepSeek/DeepSeek-R1 is for another engine).")
	})
}

func TestVLLMScenarioDynamoDisagg(t *testing.T) {
	rows := func() map[int]legacyRow {
		return map[int]legacyRow{
			0:  {"PASS", []string{"@nv-owner-a owns configs/nvidia-master.yaml"}},
			1:  {"PASS", []string{"(run 30123456789)"}},
			2:  {"PASS", []string{"glm5.2 gb300 dynamo-vllm fp4 c256 gsm8k", "≥ 0.9"}},
			3:  {"PASS", []string{"vllm-project/recipes#541 merged 2026-11-13", "TP/EP/kv-cache-dtype/kv-transfer-config match"}},
			6:  {"PASS", []string{"Only open-source engine entries added."}},
			7:  {"PASS", []string{"glm5.2 Single-turn 8k1k is active"}},
			9:  {"N/A", nil},
			11: {"N/A", nil},
			12: {"N/A", nil},
			13: {"N/A", nil},
			14: {"PASS", []string{"glm5.2/8k1k/gb300_dynamo-vllm/fp4/30123456789/median: 5/5 frontier points"}},
		}
	}
	t.Run("merged vllm-project/recipes PR shows the disagg args", func(t *testing.T) {
		code, v, _ := runLegacyScenario(t, legacyFixture("vllm-dynamo-disagg"))
		if code != exitPass || v.Verdict != "PASS" {
			t.Fatalf("got exit %d verdict %s, want PASS", code, v.Verdict)
		}
		assertLegacyRows(t, v, rows())
	})
	t.Run("no recipe link: disagg is no exemption in gen 4", func(t *testing.T) {
		code, v, _ := runLegacyScenario(t, legacyFixture("vllm-dynamo-disagg-nolink"))
		if code != exitRejected || v.Verdict != "REJECTED" {
			t.Fatalf("got exit %d verdict %s, want REJECTED", code, v.Verdict)
		}
		r := rows()
		r[3] = legacyRow{"FAIL", []string{"No upstream recipe link in the additional detail section (dynamo-vllm disagg requires vLLM recipes coverage)."}}
		assertLegacyRows(t, v, r)
	})
}
