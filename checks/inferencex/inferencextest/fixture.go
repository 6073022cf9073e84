// Package inferencextest holds the fixtures the preset's tests share: a small
// benchmark repository written in the InferenceX formats, whose files are
// mapped onto the layout under test so every scenario runs against both
// layouts, and the PR under test built from it with checkstest.
package inferencextest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// The fixture's commits.
const (
	BaseSHA    = "base000000000000000000000000000000000000"
	HeadSHA    = "head000000000000000000000000000000000000"
	DefaultSHA = "dflt000000000000000000000000000000000000"
)

// Repo is the fixture repository. Paths are written legacy-style and mapped
// onto Layout; srt-recipe values inside files are project-relative and stay
// as they are.
type Repo struct {
	Layout repo.Layout
	// Base and Head hold file contents by legacy-style path; the default
	// branch equals the base unless Default is set.
	Base, Head, Default map[string]string
	// Detail is the sign-off's Additional detail section.
	Detail string
	Number int
	Date   time.Time
}

// NewRepo returns the fixture in layout l, with the head equal to the base.
func NewRepo(l repo.Layout) *Repo {
	r := &Repo{Layout: l, Base: map[string]string{}, Number: 2611,
		Date: time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)}
	for p, c := range baseFiles {
		r.Base[p] = c
	}
	r.Head = map[string]string{}
	for p, c := range r.Base {
		r.Head[p] = c
	}
	return r
}

// Path maps a legacy-style path onto the layout.
func (r *Repo) Path(p string) string {
	switch {
	case p == "MODELS.md":
		return r.Layout.Models
	case strings.HasPrefix(p, ".github/"):
		return p
	}
	return r.Layout.Root + p
}

// PR is the pull request from Base to Head, signed off by owner-a with
// Detail, with the preset's default settings and the fixture's layout.
func (r *Repo) PR(t testing.TB) (*checks.PR, *checkstest.Source) {
	t.Helper()
	src := &checkstest.Source{}
	def := r.Default
	if def == nil {
		def = r.Base
	}
	for ref, files := range map[string]map[string]string{BaseSHA: r.Base, HeadSHA: r.Head, DefaultSHA: def} {
		for p, c := range files {
			src.SetFile(ref, r.Path(p), c)
		}
	}
	var paths []string
	seen := map[string]bool{}
	for p := range r.Base {
		seen[p] = true
	}
	for p := range r.Head {
		seen[p] = true
	}
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		old, inBase := r.Base[p]
		nw, inHead := r.Head[p]
		if inBase && inHead && old == nw {
			continue
		}
		cf := checks.ChangedFile{Path: r.Path(p), Status: "modified"}
		switch {
		case !inBase:
			cf.Status = "added"
		case !inHead:
			cf.Status = "removed"
		}
		cf.Patch, cf.Additions, cf.Deletions = Diff(old, nw)
		src.FilesValue = append(src.FilesValue, cf)
	}
	pr := NewPR(src, r.Layout, r.Detail,
		checkstest.Identity("SemiAnalysisAI", "InferenceX", r.Number),
		checkstest.Commits(HeadSHA, BaseSHA, BaseSHA, DefaultSHA),
		func(pr *checks.PR) { pr.ReviewDate = r.Date })
	return pr, src
}

// NewPR is the preset's PR under test: Preset(l), a sign-off by owner-a
// whose Additional detail section is detail, then opts.
func NewPR(src checks.Source, l repo.Layout, detail string, opts ...checkstest.Option) *checks.PR {
	return checkstest.NewPR(src, append([]checkstest.Option{Preset(l), SignedOff(detail)}, opts...)...)
}

// Preset gives the PR the preset's default settings and layout l.
func Preset(l repo.Layout) checkstest.Option {
	return func(pr *checks.PR) {
		s := repo.Defaults()
		repo.SettingsParam.Set(pr, &s)
		repo.LayoutFact.Provide(pr, l, nil)
	}
}

// SignedOff gives the PR a sign-off by owner-a whose Additional detail
// section is detail.
func SignedOff(detail string) checkstest.Option {
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Verified things\n### Additional detail section:\n" + detail + "\nSigned: `owner-a`\n"
	return func(pr *checks.PR) { pr.SignOff = signoff.Parse(body) }
}

// WithChangeSet injects a hand-built change set, so a check is tested on its
// own rule. A change set without a layout gets the PR's, which must be set
// before (NewPR and Preset do).
func WithChangeSet(cs *changeset.Model) checkstest.Option {
	return func(pr *checks.PR) {
		if cs.Layout == (repo.Layout{}) {
			if l, err := repo.LayoutFact.Of(context.Background(), pr); err == nil {
				cs.Layout = l
			}
		}
		changeset.Fact.Provide(pr, cs, nil)
	}
}

// Diff is a line diff rendered as one unified hunk: common leading and
// trailing lines are context, the middle is diffed by LCS (or, when large,
// replaced wholesale), so big generated files stay cheap.
func Diff(old, nw string) (patch string, adds, dels int) {
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

// Layouts are both layouts by name.
func Layouts() map[string]repo.Layout {
	return map[string]repo.Layout{"legacy": repo.LegacyLayout(), "e2e": repo.E2ELayout()}
}

// RunCheck runs a check on a fresh PR of r through the real runner.
func (r *Repo) RunCheck(t testing.TB, c *checks.Check) (checks.Result, *checkstest.Source) {
	t.Helper()
	pr, src := r.PR(t)
	return checkstest.RunOne(t, pr, c), src
}

// Expect fails t unless r has status and a one-line bilingual reason whose
// English text contains every substr.
func Expect(t testing.TB, r checks.Result, status checks.Status, substr ...string) {
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

// baseFiles are the fixture's files at the base, by legacy-style path.
var baseFiles = map[string]string{
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

// AppendEntry appends a master entry to a master file at head.
func (r *Repo) AppendEntry(file, entry string) {
	r.Head[file] = r.Head[file] + "\n" + entry
}

// AppendChangelog appends a changelog entry selecting keys at head.
func (r *Repo) AppendChangelog(keys ...string) {
	var b strings.Builder
	b.WriteString("\n- config-keys:\n")
	for _, k := range keys {
		b.WriteString("    - " + k + "\n")
	}
	b.WriteString("  description:\n    - \"change\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n")
	r.Head["perf-changelog.yaml"] += b.String()
}
