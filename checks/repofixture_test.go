package checks_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

// The test fixture is a small benchmark repository written in the formats of
// INFERENCEX.md §5 (configs, changelog, scripts, srt-slurm recipes,
// MODELS.md, waivers). Paths are written legacy-style and mapped onto the
// layout under test, so every scenario runs against both layouts.

const (
	cfgBase    = "base000000000000000000000000000000000000"
	cfgHead    = "head000000000000000000000000000000000000"
	cfgDefault = "dflt000000000000000000000000000000000000"
)

type cfgRepo struct {
	layout checks.Layout
	// base and head hold file contents by legacy-style path; the default
	// branch equals the base unless def is set.
	base, head, def map[string]string
	detail          string
	number          int
	date            time.Time
}

func cfgNewRepo(layout checks.Layout) *cfgRepo {
	r := &cfgRepo{layout: layout, base: map[string]string{}, number: 2611,
		date: time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)}
	for p, c := range cfgBaseFiles {
		r.base[p] = c
	}
	r.head = map[string]string{}
	for p, c := range r.base {
		r.head[p] = c
	}
	return r
}

// path maps a legacy-style path onto the layout.
func (r *cfgRepo) path(p string) string {
	switch {
	case p == "MODELS.md":
		return r.layout.Models
	case strings.HasPrefix(p, ".github/"):
		return p
	}
	return r.layout.Root + p
}

// text maps legacy-style paths inside file contents (srt-recipe values are
// project-relative and stay as they are; nothing else needs mapping).
func (r *cfgRepo) pr(t testing.TB) (*checks.PR, *checkstest.Source) {
	t.Helper()
	src := &checkstest.Source{}
	def := r.def
	if def == nil {
		def = r.base
	}
	for ref, files := range map[string]map[string]string{cfgBase: r.base, cfgHead: r.head, cfgDefault: def} {
		for p, c := range files {
			src.SetFile(ref, r.path(p), c)
		}
	}
	var paths []string
	seen := map[string]bool{}
	for p := range r.base {
		seen[p] = true
	}
	for p := range r.head {
		seen[p] = true
	}
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		old, inBase := r.base[p]
		nw, inHead := r.head[p]
		if inBase && inHead && old == nw {
			continue
		}
		cf := checks.ChangedFile{Path: r.path(p), Status: "modified"}
		switch {
		case !inBase:
			cf.Status = "added"
		case !inHead:
			cf.Status = "removed"
		}
		cf.Patch, cf.Additions, cf.Deletions = cfgDiff(old, nw)
		src.ChangedFiles = append(src.ChangedFiles, cf)
	}
	settings := checks.Defaults()
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Verified things\n### Additional detail section:\n" + r.detail + "\nSigned: `owner-a`\n"
	pr := &checks.PR{
		Owner: "SemiAnalysisAI", Repo: "InferenceX", Number: r.number,
		HeadSHA: cfgHead, BaseSHA: cfgBase, BaseTip: cfgBase, DefaultSHA: cfgDefault,
		SignOff: checks.ParseSignOff(body), ReviewDate: r.date,
		Settings: &settings, Layout: r.layout, Source: src,
	}
	return pr, src
}

// cfgDiff is a line diff rendered as one unified hunk: common leading and
// trailing lines are context, the middle is diffed by LCS (or, when large,
// replaced wholesale), so big generated files stay cheap.
func cfgDiff(old, nw string) (patch string, adds, dels int) {
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	a, b := split(old), split(nw)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var sb strings.Builder
	fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", min(1, len(a)), len(a), min(1, len(b)), len(b))
	for _, l := range a[:pre] {
		sb.WriteString(" " + l + "\n")
	}
	n, m := len(ma), len(mb)
	if n*m > 4_000_000 {
		for _, l := range ma {
			sb.WriteString("-" + l + "\n")
		}
		for _, l := range mb {
			sb.WriteString("+" + l + "\n")
		}
		adds, dels = m, n
	} else {
		lcs := make([][]int, n+1)
		for i := range lcs {
			lcs[i] = make([]int, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				sb.WriteString(" " + ma[i] + "\n")
				i++
				j++
			case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
				sb.WriteString("+" + mb[j] + "\n")
				adds++
				j++
			default:
				sb.WriteString("-" + ma[i] + "\n")
				dels++
				i++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		sb.WriteString(" " + l + "\n")
	}
	return sb.String(), adds, dels
}

func cfgLayouts() map[string]checks.Layout {
	return map[string]checks.Layout{"legacy": checks.LegacyLayout(), "e2e": checks.E2ELayout()}
}

// cfgRunCheck runs a check on a fresh PR and finalizes it.
func cfgRunCheck(t testing.TB, r *cfgRepo, c checks.Check) (checks.Result, *checkstest.Source) {
	t.Helper()
	pr, src := r.pr(t)
	res := c.Finalize(c.Run(context.Background(), pr))
	return res, src
}

func cfgExpect(t *testing.T, r checks.Result, status checks.Status, substr ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %s, want %s; reason %q", r.Status, status, r.Reason.EN)
	}
	for _, s := range substr {
		if !strings.Contains(r.Reason.EN, s) {
			t.Fatalf("reason %q does not contain %q", r.Reason.EN, s)
		}
	}
	if r.Reason.ZH == "" || strings.Contains(r.Reason.EN, "\n") {
		t.Fatalf("bad reason %+v", r.Reason)
	}
}

var cfgBaseFiles = map[string]string{
	"configs/amd-master.yaml": `# AMD single-node configs
dsr1-fp4-mi355x-sglang:
  image: lmsysorg/sglang:v0.5.12-rocm700-mi35x
  model: amd/DeepSeek-R1-0528-MXFP4
  model-prefix: dsr1
  runner: mi355x
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }

exm-fp4-mi355x-vllm-agentic-mtp:
  image: vllm/vllm-openai-rocm:nightly-0a1b2c3d
  model: example/ExampleModel-FP4
  model-prefix: exm
  runner: cluster:mi355x-amds
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - { tp: 8, ep: 1, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8] }
`,
	"configs/nvidia-master.yaml": `dsr1-fp4-b200-sglang-mtp:
  image: lmsysorg/sglang:v0.5.12-cu130
  model: nvidia/DeepSeek-R1-0528-FP4
  model-prefix: dsr1
  runner: b200
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 1, spec-decoding: mtp, conc-start: 4, conc-end: 128 }

dsv4-fp4-gb200-dynamo-sglang-disagg:
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: gb200
  precision: fp4
  framework: dynamo-sglang
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - spec-decoding: "none"
        conc-list: [ 64, 128 ]
        prefill:
          num-worker: 1
          tp: 4
          additional-settings:
          - "CONFIG_FILE=recipes/sglang/dsv4/disagg.yaml"
        decode:
          num-worker: 1
          tp: 8
          additional-settings:
          - "CONFIG_FILE=recipes/sglang/dsv4/disagg.yaml"

qwen3.5-fp8-b200-sglang:
  image: lmsysorg/sglang:v0.5.16-cu130
  model: Qwen/Qwen3.5-397B-A17B-FP8
  model-prefix: qwen3.5
  runner: b200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
`,
	"configs/deprecated/amd-old-master.yaml": `oldm-fp8-mi300x-vllm:
  image: vllm/vllm-openai-rocm:v0.9
  model: old/OldModel
  model-prefix: oldm
  runner: mi300x
  precision: fp8
  framework: vllm
`,
	"perf-changelog.yaml": `- config-keys:
    - dsr1-fp4-mi355x-sglang
  description:
    - "Bump image"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2001

- config-keys:
    - dsv4*
  description:
    - "Add DeepSeek-V4 disagg"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2002
`,
	"benchmarks/benchmark_lib.sh": `#!/usr/bin/env bash
# Shared helpers.
run_benchmark_serving() {
  python3 utils/bench_serving.py "$@"
}
`,
	"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh": `#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
export SGLANG_ENABLE_SPEC_V2=1
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" \
  --speculative-algorithm EAGLE --speculative-num-steps 3 &

run_benchmark_serving --model "$MODEL" --port 8000 \
  --use-chat-template --num-prompts 320
`,
	"benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x.sh": `#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" &
run_benchmark_serving --model "$MODEL" --port 8000
`,
	"benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_b200.sh": `#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" &
run_benchmark_serving --model "$MODEL" --port 8000
`,
	"benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh": `#!/usr/bin/env bash
# ExampleModel agentic MTP on MI355X.
source "$(dirname "$0")/../../benchmark_lib.sh"
export VLLM_ROCM_USE_AITER=1
vllm serve "$MODEL" --tensor-parallel-size 8 \
  --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}' &
aiperf profile --endpoint-type chat --url localhost:8000
`,
	"benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml": `name: "dsv4-disagg"
model:
  path: "deepseek-v4-pro"
  container: "dynamo-sglang"
  precision: "fp4"
backend:
  type: sglang
  prefill_environment:
    SGLANG_DISAGG_TRANSFER_BACKEND: nixl
  decode_environment:
    SGLANG_DISAGG_TRANSFER_BACKEND: nixl
  sglang_config:
    prefill:
      tp-size: 4
      disaggregation-mode: prefill
    decode:
      tp-size: 8
      disaggregation-mode: decode
benchmark:
  type: sa-bench
  isl: 8192
  osl: 1024
`,
	"runners/launch_b200-dgxc.sh": `#!/usr/bin/env bash
docker run --rm --gpus all "$IMAGE" bash "benchmarks/single_node/fixed_seq_len/${SCRIPT}"
`,
	"MODELS.md": `# Models

## Deprecation Notice

We retire scenarios to free cluster time.

### Tuesday, September 8, 2026

**Tuesday, September 8, 2026** is the last day for the listed scenarios.

Retirements:

| Model | Deprecated | Remains |
|---|---|---|
| DeepSeek-V4-Pro (` + "`dsv4`" + `) | Single-turn 8k1k | Agentic coding |

Spec-decode A/B retirements:

| Model | Deprecated arm | Published arm |
|---|---|---|
| ExampleModel (` + "`exm`" + `) | Agentic coding, non-MTP | Agentic coding, MTP |

**Status: not yet enacted.** The non-MTP arms still run.

## Scenarios

| Scenario | ISL/OSL | Status |
|---|---|---|
| Agentic coding | trace replay | Active. |
| Single-turn 8k1k | 8192 / 1024 | Active. |
| Single-turn 1k1k | 1024 / 1024 | **Deprecated for all models** since 2026-07-17 (#2263). |

## Model support matrix

| Model architecture class | Prefix | Date added | Active scenarios | Deprecated scenarios |
|---|---|---|---|---|
| ExampleModel | ` + "`exm`" + ` | 2026-06-12 | Agentic coding | Single-turn 8k1k (removed 2026-11-06) |
| DeepSeek-V4-Pro | ` + "`dsv4`" + ` | 2026-04-24 | Single-turn 8k1k, Agentic coding | Single-turn 1k1k |
| Kimi-K2.5 | ` + "`kimik2.5`" + ` | 2026-02-17 | None (fully retired 2026-08-07, #2527) | Single-turn 1k1k, Single-turn 8k1k (removed 2026-08-07) |
| DeepSeek-R1-0528 | ` + "`dsr1`" + ` | 2025-08-13 | Single-turn 8k1k | Single-turn 1k1k |
| Qwen3.5 | ` + "`qwen3.5`" + ` | 2026-02-16 | Single-turn 8k1k | all bf16 recipes (removed 2026-08-04) |
`,
}

// cfgAppendEntry appends a master entry to a master file at head.
func (r *cfgRepo) cfgAppendEntry(file, entry string) {
	r.head[file] = r.head[file] + "\n" + entry
}

// cfgAppendChangelog appends a changelog entry at head.
func (r *cfgRepo) cfgAppendChangelog(keys ...string) {
	var b strings.Builder
	b.WriteString("\n- config-keys:\n")
	for _, k := range keys {
		b.WriteString("    - " + k + "\n")
	}
	b.WriteString("  description:\n    - \"change\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n")
	r.head["perf-changelog.yaml"] += b.String()
}
