package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
)

// A PR that changes only a shared helper affects every config that runs
// it: Check 13 applies to the spec-decode ones among them.
func TestDraftPrecisionSharedHelper(t *testing.T) {
	const lib = "benchmarks/benchmark_lib.sh"
	tests := []struct {
		name   string
		edit   func(r *inferencextest.Repo)
		status checks.Status
		want   string
	}{
		{name: "helper change, sign-off records the draft",
			edit:   func(r *inferencextest.Repo) { r.Detail = draftEvidence },
			status: checks.Pass, want: "Draft stored BF16, served BF16"},
		{name: "helper change, no draft evidence",
			status: checks.Fail, want: "Draft precision could not be verified: sign-off does not record"},
		{name: "an unchanged knob in the spec-decode script now counts",
			edit: func(r *inferencextest.Repo) {
				const s = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"
				knob := strings.Replace(r.Base[s], "export SGLANG_ENABLE_SPEC_V2=1\n", "export SGLANG_ENABLE_SPEC_V2=1\nexport SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n", 1)
				r.Base[s], r.Head[s] = knob, knob
				r.Detail = draftEvidence
			},
			status: checks.Fail, want: "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 via {root}benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh:4 (dsr1-fp4-b200-sglang-mtp)"},
		{name: "a spec-decode script that cannot be read leaves its use unknown",
			edit: func(r *inferencextest.Repo) {
				const s = "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
				bad := "#!/usr/bin/env bash\necho \"unterminated\n"
				r.Base[s], r.Head[s] = bad, bad
				// The other spec-decode user no longer sources the helper.
				const m = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"
				own := strings.Replace(r.Base[m], "source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n", "", 1)
				r.Base[m], r.Head[m] = own, own
				r.Detail = draftEvidence
			},
			status: checks.Fail, want: "whether a spec-decode config runs the changed shared files is unknown: exm-fp4-mi355x-vllm-agentic-mtp ({root}benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh could not be read)"},
		{name: "a helper no spec-decode config runs",
			edit: func(r *inferencextest.Repo) {
				for _, s := range []string{"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh", "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"} {
					own := strings.Replace(r.Base[s], "source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n", "", 1)
					r.Base[s], r.Head[s] = own, own
				}
			},
			status: checks.NA, want: "No affected configuration uses speculative decoding."},
	}
	for _, tc := range tests {
		for name, layout := range inferencextest.Layouts() {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r := inferencextest.NewRepo(layout)
				r.Head[lib] += "log_start() { echo \"start $(date)\"; }\n"
				if tc.edit != nil {
					tc.edit(r)
				}
				res, _ := r.RunCheck(t, inferencex.DraftPrecision)
				inferencextest.Expect(t, res, tc.status, strings.ReplaceAll(tc.want, "{root}", layout.Root))
			})
		}
	}
}
