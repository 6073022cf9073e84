package inferencex_test

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
)

// cfgScenario is one acceptance scenario: it edits the fixture repository and
// names the expected status and reason fragments. Every scenario runs on
// both layouts, and the two results must agree once the layout root is
// removed from the reason.
type cfgScenario struct {
	name   string
	check  *checks.Check
	edit   func(r *inferencextest.Repo)
	status checks.Status
	want   []string
}

func cfgRunScenarios(t *testing.T, scs []cfgScenario) {
	t.Helper()
	for _, sc := range scs {
		t.Run(sc.name, func(t *testing.T) {
			var reasons []string
			for _, name := range []string{"legacy", "e2e"} {
				layout := inferencextest.Layouts()[name]
				r := inferencextest.NewRepo(layout)
				if sc.edit != nil {
					sc.edit(r)
				}
				res, _ := r.RunCheck(t, sc.check)
				want := make([]string, len(sc.want))
				for i, w := range sc.want {
					want[i] = strings.ReplaceAll(w, "{root}", layout.Root)
				}
				t.Logf("%s: %s — %s", name, res.Status, res.Reason.EN)
				var subs []string
				for _, w := range want {
					if exact, ok := strings.CutPrefix(w, "="); ok {
						if res.Reason.EN != exact {
							t.Fatalf("reason = %q, want exactly %q", res.Reason.EN, exact)
						}
						continue
					}
					subs = append(subs, w)
				}
				inferencextest.Expect(t, res, sc.status, subs...)
				reasons = append(reasons, strings.ReplaceAll(res.Reason.EN, layout.Root, ""))
			}
			if reasons[0] != reasons[1] {
				t.Fatalf("layouts disagree:\nlegacy: %s\ne2e:    %s", reasons[0], reasons[1])
			}
		})
	}
}

const cfgVLLMEntry = `kimik3-fp4-%s-vllm:
  image: %s
  model: moonshotai/Kimi-K3
  model-prefix: kimik3
  runner: %s
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, spec-decoding: dspark, conc-list: [1, 4] }
`

func cfgSprintf(format string, a ...string) string {
	for _, x := range a {
		format = strings.Replace(format, "%s", x, 1)
	}
	return format
}

func TestImagesCheck(t *testing.T) {
	addVLLM := func(runner, image string) func(r *inferencextest.Repo) {
		return func(r *inferencextest.Repo) {
			r.AppendEntry("configs/amd-master.yaml", cfgSprintf(cfgVLLMEntry, runner, image, runner))
		}
	}
	cfgRunScenarios(t, []cfgScenario{
		{name: "S5 non-upstream image on established SKU", check: inferencex.UpstreamImages,
			edit:   addVLLM("mi355x", "rocm/vllm-dev:nightly-20261001"),
			status: checks.Fail,
			want:   []string{"=" + "vllm entry kimik3-fp4-mi355x-vllm uses rocm/vllm-dev:nightly-20261001 on established MI355X with no documented exception."}},
		{name: "S5 new hardware passes", check: inferencex.UpstreamImages,
			edit:   addVLLM("mi455x", "rocm/vllm-dev:nightly-20261001"),
			status: checks.Pass, want: []string{"Only open-source engine entries added."}},
		{name: "S5 documented exception needs review", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				addVLLM("mi355x", "rocm/vllm-dev:nightly-20261001")(r)
				r.Detail = "exception: new model architecture not supported upstream yet"
			},
			status: checks.Fail, want: []string{"Needs human review: exception claimed for rocm/vllm-dev:nightly-20261001"}},
		{name: "upstream image, docker.io and digest accepted", check: inferencex.UpstreamImages,
			edit:   addVLLM("mi355x", "docker.io/vllm/vllm-openai-rocm@sha256:0123abcd"),
			status: checks.Pass, want: []string{"vllm/vllm-openai-rocm image; only open-source engine entries added."}},
		{name: "S6 vendor entry without open-source sibling", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/nvidia-master.yaml", `glm5.2-fp4-gb300-dynamo-trt:
  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0
  model: zai-org/GLM-5.2-FP4
  model-prefix: glm5.2
  runner: gb300
  precision: fp4
  framework: dynamo-trt
  multinode: true
  disagg: true
`)
			},
			status: checks.Fail,
			want:   []string{"=" + "New dynamo-trt entry glm5.2-fp4-gb300-dynamo-trt has no open-source engine entry for glm5.2 on gb300."}},
		{name: "S6 only dynamo-sglang added", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/nvidia-master.yaml", `glm5.2-fp4-gb300-dynamo-sglang:
  image: lmsysorg/sglang:v0.5.20-cu130
  model: zai-org/GLM-5.2-FP4
  model-prefix: glm5.2
  runner: gb300
  precision: fp4
  framework: dynamo-sglang
  multinode: true
`)
			},
			status: checks.Pass, want: []string{"Only open-source engine entries added."}},
		{name: "vendor entry preceded on the default branch", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/nvidia-master.yaml", `qwen3.5-fp8-b200-trt:
  image: nvcr.io/nvidia/tensorrt-llm/release:1.2.0
  model: Qwen/Qwen3.5-397B-A17B-FP8
  model-prefix: qwen3.5
  runner: b200-dgxc
  precision: fp8
  framework: trt
`)
			},
			status: checks.Pass, want: []string{"trt entry preceded by qwen3.5-fp8-b200-sglang"}},
		{name: "vendor entry whose sibling lands in the same PR", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/nvidia-master.yaml", `glm5.2-fp4-gb300-dynamo-trt:
  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0
  model-prefix: glm5.2
  runner: gb300
  precision: fp4
  framework: dynamo-trt
glm5.2-fp4-gb300-sglang:
  image: lmsysorg/sglang:v0.5.20-cu130
  model-prefix: glm5.2
  runner: gb300
  precision: fp4
  framework: sglang
`)
			},
			status: checks.Fail, want: []string{"Needs human review: new dynamo-trt entry glm5.2-fp4-gb300-dynamo-trt", "only in this PR (glm5.2-fp4-gb300-sglang)"}},
		{name: "no master entries changed", check: inferencex.UpstreamImages,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x.sh"] += "echo done\n"
			},
			status: checks.NA, want: []string{"PR changes no master-config entries."}},
	})
}

func TestDeprecatedCheck(t *testing.T) {
	onDate := func(d string, f func(r *inferencextest.Repo)) func(r *inferencextest.Repo) {
		return func(r *inferencextest.Repo) {
			r.Date, _ = time.Parse("2006-01-02", d)
			r.Date = r.Date.Add(23 * time.Hour)
			f(r)
		}
	}
	touchDSV4 := func(r *inferencextest.Repo) {
		r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"], "conc-list: [ 64, 128 ]", "conc-list: [ 64, 128, 256 ]", 1)
	}
	cfgRunScenarios(t, []cfgScenario{
		{name: "S7 retired model", check: inferencex.DeprecatedModels,
			edit: func(r *inferencextest.Repo) {
				r.AppendEntry("configs/nvidia-master.yaml", `kimik2.5-fp4-b200-vllm:
  image: vllm/vllm-openai:v0.11.0
  model-prefix: kimik2.5
  runner: b200
  precision: fp4
  framework: vllm
  scenarios:
    fixed-seq-len:
    - { isl: 8192, osl: 1024, search-space: [ { tp: 8, conc-start: 4, conc-end: 64 } ] }
`)
			},
			status: checks.Fail, want: []string{"=kimik2.5 is fully retired (MODELS.md support matrix: retired 2026-08-07)."}},
		{name: "S7 boundary: last day passes", check: inferencex.DeprecatedModels,
			edit: onDate("2026-09-08", touchDSV4), status: checks.Pass,
			want: []string{"=" + "dsv4 Single-turn 8k1k is active (review date 2026-09-08)."}},
		{name: "S7 boundary: the next day fails", check: inferencex.DeprecatedModels,
			edit: onDate("2026-09-09", touchDSV4), status: checks.Fail,
			want: []string{"dsv4 Single-turn 8k1k is deprecated (MODELS.md Deprecation Notice Tuesday, September 8, 2026: last day 2026-09-08)."}},
		{name: "not-yet-enacted table is ignored", check: inferencex.DeprecatedModels,
			edit: onDate("2026-10-05", func(r *inferencextest.Repo) {
				r.AppendEntry("configs/amd-master.yaml", `exm-fp4-mi355x-vllm-agentic:
  image: vllm/vllm-openai-rocm:nightly-0a1b2c3d
  model-prefix: exm
  runner: mi355x
  precision: fp4
  framework: vllm
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, conc-list: [1, 4] }
`)
			}), status: checks.Pass, want: []string{"exm Agentic coding is active (review date 2026-10-05)."}},
		{name: "a point without a draft of a model whose non-spec arm is deprecated", check: inferencex.DeprecatedModels,
			edit: onDate("2026-10-05", func(r *inferencextest.Repo) {
				enactArmRetirement(r)
				r.Head["configs/amd-master.yaml"] = strings.Replace(r.Head["configs/amd-master.yaml"],
					"      - { tp: 8, ep: 1, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8] }\n",
					"      - { tp: 8, ep: 1, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8] }\n"+
						"      - { tp: 8, ep: 1, spec-decoding: none, kv-offloading: none, conc-list: [16] }\n", 1)
			}), status: checks.Fail, want: []string{"exm Agentic coding is deprecated (MODELS.md Deprecation Notice"}},
		{name: "a script that serves its highest concurrency without a draft", check: inferencex.DeprecatedModels,
			edit: onDate("2026-10-05", func(r *inferencextest.Repo) {
				enactArmRetirement(r)
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] = `#!/usr/bin/env bash
if [ "$CONC" -ge 8 ]; then
  vllm serve "$MODEL" --tensor-parallel-size "$TP" &
else
  vllm serve "$MODEL" --tensor-parallel-size "$TP" --speculative-config '{"method":"mtp","num_speculative_tokens":2}' &
fi
`
			}), status: checks.Fail, want: []string{"exm Agentic coding is deprecated (MODELS.md Deprecation Notice"}},
		{name: "every point drafts", check: inferencex.DeprecatedModels,
			edit: onDate("2026-10-05", func(r *inferencextest.Repo) {
				enactArmRetirement(r)
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] = "#!/usr/bin/env bash\n" +
					`vllm serve "$MODEL" --speculative-config '{"method":"mtp","num_speculative_tokens":2}' &
`
			}), status: checks.Pass, want: []string{"exm Agentic coding is active"}},
		{name: "scenario deprecated for all models", check: inferencex.DeprecatedModels,
			edit: func(r *inferencextest.Repo) {
				r.Head["configs/amd-master.yaml"] = strings.Replace(r.Head["configs/amd-master.yaml"], "    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-start: 4, conc-end: 64 }",
					"    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-start: 4, conc-end: 64 }", 1)
			},
			status: checks.Fail, want: []string{"dsr1 Single-turn 1k1k is deprecated", "since 2026-07-17"}},
		{name: "retired precision", check: inferencex.DeprecatedModels,
			edit: func(r *inferencextest.Repo) {
				r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"], "  precision: fp8\n  framework: sglang\n", "  precision: bf16\n  framework: sglang\n", 1)
			},
			status: checks.Fail, want: []string{"qwen3.5 Single-turn 8k1k bf16 is deprecated (MODELS.md support matrix: all bf16 recipes (removed 2026-08-04))."}},
		{name: "unparseable table needs review", check: inferencex.DeprecatedModels,
			edit: func(r *inferencextest.Repo) {
				r.Default = map[string]string{}
				for p, c := range r.Base {
					r.Default[p] = c
				}
				r.Default["MODELS.md"] = strings.Replace(r.Default["MODELS.md"], "| DeepSeek-V4-Pro (`dsv4`) | Single-turn 8k1k | Agentic coding |", "| DeepSeek-V4-Pro (`dsv4`) | the long one | Agentic coding |", 1)
				touchDSV4(r)
			},
			status: checks.Fail, want: []string{"Needs human review: MODELS.md line", "could not be parsed"}},
		{name: "nothing affected", check: inferencex.DeprecatedModels, status: checks.NA,
			want: []string{"PR adds, changes or re-enables no benchmark configuration."}},
	})
}

const cfgSedLine = `sed -i 's/max_num_seqs = 256/max_num_seqs = 512/' /usr/local/lib/python3.12/site-packages/vllm/config/scheduler.py`

func cfgAddSed(r *inferencextest.Repo) {
	r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] = strings.Replace(r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"],
		"export VLLM_ROCM_USE_AITER=1\n", "export VLLM_ROCM_USE_AITER=1\n"+cfgSedLine+"\n", 1)
}

const cfgWaiver = `# Inference-engine patch waiver — PR #2611
## Config covered
- Master config entry: ` + "`exm-fp4-mi355x-vllm-agentic-mtp`" + `
- Patch entrypoint: ` + "`benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh`" + `
## What is patched
| Upstream PR/issue | What it changes |
|---|---|
| vllm #60001 | raise the scheduler's sequence cap |
## Why the unmodified upstream image cannot run this benchmark
- The pinned image caps sequences below the benchmark's concurrency.
## Upstream PR / issue links
- https://github.com/vllm-project/vllm/pull/60001
## Removal plan
Drop the sed once a nightly contains #60001; delete this waiver in that PR.
`

func TestEnginePatchesCheck(t *testing.T) {
	withWaiver := func(text, detail string) func(r *inferencextest.Repo) {
		return func(r *inferencextest.Repo) {
			cfgAddSed(r)
			r.Head["docs/waiver/2611.md"] = text
			r.Detail = detail
		}
	}
	link := func(r *inferencextest.Repo) string {
		return "Waiver: https://github.com/SemiAnalysisAI/InferenceX/blob/main/" + r.Path("docs/waiver/2611.md")
	}
	cfgRunScenarios(t, []cfgScenario{
		{name: "S8 no waiver", check: inferencex.EnginePatches, edit: cfgAddSed, status: checks.Fail,
			want: []string{"=" + "{root}benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh:5 rewrites site-packages/vllm; no {root}docs/waiver/2611.md in this PR."}},
		{name: "S8 waiver complete and linked", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				withWaiver(cfgWaiver, "")(r)
				r.Detail = link(r)
			},
			status: checks.Pass, want: []string{"covered by waiver {root}docs/waiver/2611.md linked in the sign-off"}},
		{name: "S8 waiver not linked", check: inferencex.EnginePatches, edit: withWaiver(cfgWaiver, "tested on mi355x"),
			status: checks.Fail, want: []string{"waiver not linked in the sign-off"}},
		{name: "S8 weak waiver", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				withWaiver(strings.Split(cfgWaiver, "## Removal plan")[0], "")(r)
				r.Detail = link(r)
			},
			status: checks.Fail, want: []string{"Needs human review: waiver may not cover this patch", "lacks removal plan"}},
		{name: "harness installs are fine", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "pip install aiperf==0.3.0 tabulate 'lm_eval[api]==0.4.12'\n"
			},
			status: checks.Pass, want: []string{"=" + "No engine/serving-stack patching."}},
		{name: "serving-stack install needs a waiver", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "pip install --no-deps 'vllm==0.11.1'\n"
			},
			status: checks.Fail, want: []string{"installs serving-stack package vllm==0.11.1; no"}},
		{name: "a force-reinstall through a helper function is what the job runs", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				// The helper is the base's; only the call, with its
				// arguments, is new. Read as text, the helper's line shows
				// no sign of patching; the dry run sees the install.
				lib := "benchmarks/benchmark_lib.sh"
				helper := "\nengine_pip() {\n    python3 -m pip install \"$@\"\n}\n"
				r.Base[lib] += helper
				r.Head[lib] += helper
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "engine_pip --no-deps --force-reinstall \"kvstore-engine==0.3.1\"\n"
			},
			status: checks.Fail, want: []string{"force-reinstalls packages (pip install --force-reinstall)"}},
		{name: "python heredoc rewrite", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += `python3 - <<'PY'
import importlib.util, pathlib
p = pathlib.Path(importlib.util.find_spec("vllm").origin).parent / "config.py"
p.write_text(p.read_text().replace("a", "b"))
PY
`
			},
			status: checks.Fail, want: []string{"rewrites the vllm install located with importlib.util.find_spec from a Python heredoc"}},
		{name: "commented-out patch is not runtime", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "# " + cfgSedLine + "\n"
			},
			status: checks.Pass, want: []string{"No engine/serving-stack patching."}},
		{name: "pre-existing patch without a default-branch waiver", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				cfgAddSed(r)
				r.Base = r.Head
				r.Head = map[string]string{}
				for p, c := range r.Base {
					r.Head[p] = c
				}
				r.AppendChangelog("exm-*")
			},
			// Not this PR's to answer for: named, not blamed.
			status: checks.Pass, want: []string{"pre-existing patch at {root}benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh:5 (rewrites site-packages/vllm), not introduced by this PR; no default-branch waiver names"}},
		{name: "a dry run stopped at its bound is named", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				// What the job runs after the endless wait is unknown: the
				// pass rests on the static reading and says so.
				r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] += "until false; do sleep 5; done\n"
			},
			status: checks.Pass, want: []string{"No engine/serving-stack patching; dry runs incomplete for 1 config(s) (exm-fp4-mi355x-vllm-agentic-mtp: the dry run stopped: ", "for them the static reading decided."}},
		{name: "a changed script whose dry run gives up before its server needs review", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) {
				// A probe the dry run cannot answer (a Python program that
				// inspects the machine) ends it; the install after that,
				// through a helper, is never seen, and static reading does
				// not recognise the helper.
				p := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "\n", "\nSNAP=$(python3 - <<'PY'\nprint('/models/snap')\nPY\n)\n[ -n \"$SNAP\" ] || { echo \"snapshot incomplete\" >&2; exit 1; }\nkv_setup --force-reinstall kvstore-engine\n", 1)
			},
			status: checks.Fail, want: []string{"Needs human review: exm-fp4-mi355x-vllm-agentic-mtp: the dry run ended before starting a server (snapshot incomplete), so what the job runs after that, in files this PR changed, was not seen"}},
		{name: "nothing relevant", check: inferencex.EnginePatches,
			edit: func(r *inferencextest.Repo) { r.Head["README.md"] = "hello\n" }, status: checks.NA,
			want: []string{"PR touches no benchmark scripts, images, configs or workflows."}},
	})
}

func TestArchHacksCheck(t *testing.T) {
	recipe := "benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml"
	cfgRunScenarios(t, []cfgScenario{
		{name: "S18 publish_events_and_metrics false in decode role", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				r.Head[recipe] = strings.Replace(r.Head[recipe], "      disaggregation-mode: decode\n", "      disaggregation-mode: decode\n      publish_events_and_metrics: false\n", 1)
			},
			status: checks.Fail, want: []string{"=" + "publish_events_and_metrics: false in {root}" + recipe + " (decode role)."}},
		{name: "S18 unchanged recipe still scanned", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				r.Base[recipe] = strings.Replace(r.Base[recipe], "      disaggregation-mode: decode\n", "      disaggregation-mode: decode\n      publish-events-and-metrics: \"0\"\n", 1)
				r.Head[recipe] = r.Base[recipe]
				r.AppendChangelog("dsv4-fp4-gb200-*")
			},
			status: checks.Fail, want: []string{"publish_events_and_metrics: 0 in {root}" + recipe + " (decode role)."}},
		{name: "CLI form in a script", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "--speculative-num-steps 3 &", "--speculative-num-steps 3 --publish-events-and-metrics=false &", 1)
			},
			status: checks.Fail, want: []string{"publish_events_and_metrics: false in {root}benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh."}},
		{name: "comment is not runtime", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				r.Head[recipe] = strings.Replace(r.Head[recipe], "      disaggregation-mode: decode\n", "      disaggregation-mode: decode\n      # publish_events_and_metrics: false\n", 1)
			},
			status: checks.Pass, want: []string{"No architecture-override knobs; event publication not disabled."}},
		{name: "hf overrides need review", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "--tp \"$TP\" \\\n", "--tp \"$TP\" --json-model-override-args '{\"num_hidden_layers\": 4}' \\\n", 1)
			},
			status: checks.Fail, want: []string{"Needs human review: architecture override --json-model-override-args {\"num_hidden_layers\": 4} at {root}benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh:4"}},
		{name: "recipe hf-overrides arg", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				r.Head[recipe] = strings.Replace(r.Head[recipe], "      disaggregation-mode: prefill\n", "      disaggregation-mode: prefill\n      hf-overrides: {num_experts_per_tok: 4}\n", 1)
			},
			status: checks.Fail, want: []string{"Needs human review: architecture override hf-overrides {num_experts_per_tok: 4} at {root}" + recipe + ":16."}},
		{name: "unreadable recipe is not called an override", check: inferencex.ArchitectureHacks,
			edit: func(r *inferencextest.Repo) {
				delete(r.Head, recipe)
				r.AppendChangelog("dsv4-fp4-gb200-*")
			},
			status: checks.Fail, want: []string{"Needs human review: {root}" + recipe + " could not be read ("}},
		{name: "nothing relevant", check: inferencex.ArchitectureHacks, status: checks.NA,
			want: []string{"PR changes no benchmark serving configuration, image or launch path."}},
	})
}

func TestChatTemplateCheck(t *testing.T) {
	script := "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"
	cfgRunScenarios(t, []cfgScenario{
		{name: "legacy script uses the chat template", check: inferencex.ChatTemplate,
			edit:   func(r *inferencextest.Repo) { r.AppendChangelog("dsr1-fp4-b200-sglang-mtp") },
			status: checks.Pass, want: []string{"=" + "dsr1-fp4-b200-sglang-mtp benchmark uses --use-chat-template."}},
		{name: "missing chat template", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				r.Head[script] = strings.Replace(r.Head[script], "  --use-chat-template --num-prompts 320", "  --num-prompts 320", 1)
			},
			status: checks.Fail, want: []string{"dsr1_fp4_b200_mtp.sh:7 runs run_benchmark_serving without --use-chat-template (config dsr1-fp4-b200-sglang-mtp)."}},
		{name: "--dsv4 implies the chat template", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				r.Head[script] = strings.Replace(r.Head[script], "--use-chat-template", "--dsv4", 1)
			},
			status: checks.Pass, want: []string{"benchmark uses --use-chat-template"}},
		{name: "agentic replay", check: inferencex.ChatTemplate,
			edit:   func(r *inferencextest.Repo) { r.AppendChangelog("exm-*") },
			status: checks.Pass, want: []string{"exm-fp4-mi355x-vllm-agentic-mtp replays agentic traces through /v1/chat/completions (aiperf)."}},
		{name: "agentic replay without a client setting", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "aiperf profile --endpoint-type chat --url localhost:8000", "aiperf profile --url localhost:8000", 1)
			},
			status: checks.Pass, want: []string{"exm-fp4-mi355x-vllm-agentic-mtp replays agentic traces through /v1/chat/completions (aiperf)."}},
		{name: "agentic replay through raw completions", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "aiperf profile --endpoint-type chat --url localhost:8000",
					"REPLAY=\"aiperf profile --url localhost:8000\"\nREPLAY+=\" --endpoint /v1/completions --endpoint-type completions\"\n$REPLAY", 1)
			},
			status: checks.Fail, want: []string{"exm-fp4-mi355x-vllm-agentic-mtp replays agentic traces through raw completions without a chat template ({root}benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh:8 --endpoint=/v1/completions)."}},
		{name: "agentic replay through raw completions with a client chat template", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "aiperf profile --endpoint-type chat --url localhost:8000",
					"aiperf profile --url localhost:8000 --endpoint-type completions --use-chat-template", 1)
			},
			status: checks.Pass, want: []string{"exm-fp4-mi355x-vllm-agentic-mtp replays agentic traces through /v1/chat/completions (aiperf)."}},
		{name: "a server chat template is not the client's", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
				r.Head[p] = strings.Replace(r.Head[p], "--tensor-parallel-size 8", "--tensor-parallel-size 8 --chat-template /opt/t.jinja", 1)
				r.Head[p] = strings.Replace(r.Head[p], "--endpoint-type chat", "--endpoint-type completions", 1)
			},
			status: checks.Fail, want: []string{"replays agentic traces through raw completions without a chat template"}},
		{name: "srt recipe with spec decode and unknown client", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml"
				r.Head[p] = strings.Replace(r.Head[p], "      disaggregation-mode: decode\n", "      disaggregation-mode: decode\n      speculative-algorithm: EAGLE\n", 1)
			},
			status: checks.Fail, want: []string{"Needs human review: dsv4-fp4-gb200-dynamo-sglang-disagg: the recipe's benchmark client sets no chat endpoint"}},
		{name: "srt recipe with chat template", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml"
				r.Head[p] = strings.Replace(r.Head[p], "      disaggregation-mode: decode\n", "      disaggregation-mode: decode\n      speculative-algorithm: EAGLE\n", 1)
				r.Head[p] += "  use-chat-template: true\n"
			},
			status: checks.Pass, want: []string{"dsv4-fp4-gb200-dynamo-sglang-disagg benchmark uses a chat template"}},
		{name: "srt recipe with raw completions", check: inferencex.ChatTemplate,
			edit: func(r *inferencextest.Repo) {
				p := "benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml"
				r.Head[p] = strings.Replace(r.Head[p], "      disaggregation-mode: decode\n", "      disaggregation-mode: decode\n      speculative-algorithm: EAGLE\n", 1)
				r.Head[p] += "  endpoint: /v1/completions\n"
			},
			status: checks.Fail, want: []string{"dsv4-fp4-gb200-dynamo-sglang-disagg benchmarks raw completions without a chat template"}},
		{name: "no spec decode", check: inferencex.ChatTemplate,
			edit:   func(r *inferencextest.Repo) { r.AppendChangelog("qwen3.5-*") },
			status: checks.NA, want: []string{"PR affects no spec-decode configuration."}},
	})
}

// enactArmRetirement makes the fixture's retirement of ExampleModel's
// non-MTP arm apply (it ships "not yet enacted").
func enactArmRetirement(r *inferencextest.Repo) {
	if r.Default == nil {
		r.Default = map[string]string{}
		for p, c := range r.Base {
			r.Default[p] = c
		}
	}
	for p, c := range r.Default {
		if strings.HasSuffix(p, "MODELS.md") {
			r.Default[p] = strings.Replace(c, "**Status: not yet enacted.** The non-MTP arms still run.\n", "", 1)
		}
	}
}
