package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

const (
	ownersBase = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	amdMaster  = "inferencex-e2e/configs/amd-master.yaml"
	nvMaster   = "inferencex-e2e/configs/nvidia-master.yaml"
)

// ownersFixture is a CODEOWNERS file in the shape of the e2e layout's.
const ownersFixture = `# default owner (catch-all)
* @SemiAnalysisAI/core

# vendor-owned master configs (last match wins; owners do not accumulate)
inferencex-e2e/configs/amd-master.yaml @amd-owner-a @amd-owner-b
inferencex-e2e/configs/nvidia-master.yaml @nv-owner-a @nv-owner-b @SemiAnalysisAI/core

# model plan-of-record
inferencex-e2e/docs/MODELS.md @nv-owner-a @amd-owner-a @SemiAnalysisAI/core

# generated files have no owner
inferencex-e2e/generated/

# subprojects
operatorx/ @some-user
`

type ownerCase struct {
	name    string
	owners  *string // nil: the fixture; pointer to "" etc. for other files
	signer  string
	files   []checks.ChangedFile
	teams   map[string]checks.Membership
	ghErrs  []checks.CodeownersError
	status  checks.Status
	reason  string // exact English reason, or a prefix when prefix is set
	prefix  bool
	zhWants string // a substring the Chinese reason must contain
}

func changed(paths ...string) []checks.ChangedFile {
	var out []checks.ChangedFile
	for _, p := range paths {
		out = append(out, checks.ChangedFile{Path: p, Status: "modified"})
	}
	return out
}

func runOwnerCase(t *testing.T, tc ownerCase) (checks.Result, *checkstest.Source) {
	t.Helper()
	src := &checkstest.Source{FilesValue: tc.files, Teams: tc.teams}
	if tc.owners == nil {
		src.SetFile(ownersBase, ".github/CODEOWNERS", ownersFixture)
	} else if *tc.owners != "<missing>" {
		src.SetFile(ownersBase, ".github/CODEOWNERS", *tc.owners)
	}
	// CODEOWNERS at the PR head must never be consulted.
	src.SetFile("hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", ".github/CODEOWNERS", "* @"+tc.signer)
	if tc.ghErrs != nil {
		src.OwnersErrs = map[string][]checks.CodeownersError{ownersBase: tc.ghErrs}
	}
	pr := checkstest.NewPR(src, inferencextest.Preset(repo.E2ELayout()),
		checkstest.Identity("SemiAnalysisAI", "InferenceX", 2611),
		func(pr *checks.PR) {
			pr.HeadSHA, pr.BaseTip = "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", ownersBase
			pr.SignOff = checks.SignOff{Author: tc.signer}
		})
	return checkstest.RunOne(t, pr, inferencex.Codeowner), src
}

func ptr(s string) *string { return &s }

func TestCodeownerCheck(t *testing.T) {
	core := "semianalysisai/core/"
	unknown := map[string]checks.Membership{}
	notCore := func(login string) map[string]checks.Membership {
		return map[string]checks.Membership{core + login: checks.NotMember}
	}
	tests := []ownerCase{
		{
			name: "S4 AMD owner signs NVIDIA-only change", signer: "amd-owner-a",
			files: changed(nvMaster), teams: notCore("amd-owner-a"), status: checks.Fail,
			reason:  "@amd-owner-a is not a CODEOWNER of inferencex-e2e/configs/nvidia-master.yaml (owners: @nv-owner-a @nv-owner-b @SemiAnalysisAI/core).",
			zhWants: "不是 inferencex-e2e/configs/nvidia-master.yaml 的 CODEOWNER",
		},
		{
			name: "S4 with unverifiable membership and no direct ownership elsewhere", signer: "amd-owner-a",
			files: changed(nvMaster), teams: unknown, status: checks.Fail,
			reason: "@amd-owner-a is not a CODEOWNER of inferencex-e2e/configs/nvidia-master.yaml (owners: @nv-owner-a @nv-owner-b @SemiAnalysisAI/core). Team membership unverifiable: @SemiAnalysisAI/core.",
		},
		{
			name: "S4 variant both master configs, membership unverifiable", signer: "amd-owner-a",
			files: changed(amdMaster, nvMaster), teams: unknown, status: checks.Pass,
			reason:  "@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule); accepted inferencex-e2e/configs/nvidia-master.yaml with note: team membership unverifiable.",
			zhWants: "团队成员身份无法验证",
		},
		{
			name: "both master configs, confirmed non-member", signer: "amd-owner-a",
			files: changed(amdMaster, nvMaster), teams: notCore("amd-owner-a"), status: checks.Fail,
			reason: "@amd-owner-a is not a CODEOWNER of inferencex-e2e/configs/nvidia-master.yaml (owners: @nv-owner-a @nv-owner-b @SemiAnalysisAI/core).",
		},
		{
			name: "specific path plus default paths", signer: "amd-owner-a",
			files: changed(amdMaster, "README.md", "inferencex-e2e/benchmarks/x.sh"), status: checks.Pass,
			reason:  "@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule); other paths default to core.",
			zhWants: "其他路径默认归核心团队所有",
		},
		{
			name: "signer handle case differs", signer: "AMD-Owner-A",
			files: changed(amdMaster), status: checks.Pass,
			reason: "@AMD-Owner-A owns inferencex-e2e/configs/amd-master.yaml (specific rule).",
		},
		{
			name: "two specific paths", signer: "amd-owner-a",
			files: changed(amdMaster, "inferencex-e2e/docs/MODELS.md"), status: checks.Pass,
			reason: "@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule) and 1 other specific path.",
		},
		{
			name: "specific path through team membership", signer: "core-dev",
			files: changed(nvMaster), teams: map[string]checks.Membership{core + "core-dev": checks.Member}, status: checks.Pass,
			reason: "@core-dev owns inferencex-e2e/configs/nvidia-master.yaml (specific rule, via @SemiAnalysisAI/core).",
		},
		{
			name: "default-path-only PR, signer listed elsewhere", signer: "nv-owner-b",
			files: changed("README.md", "inferencex-e2e/runners/launch.sh"), status: checks.Pass,
			reason:  "@nv-owner-b is a recognized CODEOWNER (listed in .github/CODEOWNERS); all changed paths default to core.",
			zhWants: "是已认可的 CODEOWNER",
		},
		{
			name: "default-path-only PR, core member", signer: "core-dev",
			files: changed("README.md"), teams: map[string]checks.Membership{core + "core-dev": checks.Member}, status: checks.Pass,
			reason: "@core-dev is a recognized CODEOWNER (member of @SemiAnalysisAI/core); all changed paths default to core.",
		},
		{
			name: "default-path-only PR, outsider", signer: "outsider",
			files: changed("README.md"), teams: notCore("outsider"), status: checks.Fail,
			reason: "@outsider is not a recognized CODEOWNER (not listed in .github/CODEOWNERS, not a member of any listed team); default path: README.md.",
		},
		{
			name: "default-path-only PR, membership unverifiable", signer: "outsider",
			files: changed("README.md"), teams: unknown, status: checks.Fail,
			reason: "@outsider is not a recognized CODEOWNER (not listed in .github/CODEOWNERS; team membership unverifiable: @SemiAnalysisAI/core); default path: README.md.",
		},
		{
			name: "rename out of an NVIDIA-owned path needs the NVIDIA owner", signer: "amd-owner-a",
			files:  []checks.ChangedFile{{Path: "inferencex-e2e/configs/old/nv.yaml", PreviousPath: nvMaster, Status: "renamed"}},
			teams:  notCore("amd-owner-a"),
			status: checks.Fail,
			reason: "@amd-owner-a is not a CODEOWNER of inferencex-e2e/configs/nvidia-master.yaml (owners: @nv-owner-a @nv-owner-b @SemiAnalysisAI/core).",
		},
		{
			name: "rename into an owned path", signer: "amd-owner-a",
			files:  []checks.ChangedFile{{Path: amdMaster, PreviousPath: "inferencex-e2e/configs/amd-draft.yaml", Status: "renamed"}},
			status: checks.Pass,
			reason: "@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule); other paths default to core.",
		},
		{
			name: "un-owned path still needs a recognized CODEOWNER", signer: "outsider",
			files: changed("inferencex-e2e/generated/a.json"), teams: notCore("outsider"), status: checks.Fail,
			reason: "@outsider is not a recognized CODEOWNER (not listed in .github/CODEOWNERS, not a member of any listed team); default path: inferencex-e2e/generated/a.json.",
		},
		{
			name: "un-owned and default paths", signer: "amd-owner-b",
			files: changed("inferencex-e2e/generated/a.json", "README.md"), status: checks.Pass,
			reason: "@amd-owner-b is a recognized CODEOWNER (listed in .github/CODEOWNERS); all changed paths default to core or have no owner.",
		},
		{
			name: "missing CODEOWNERS", owners: ptr("<missing>"), signer: "amd-owner-a",
			files: changed(amdMaster), status: checks.Fail, prefix: true,
			reason: "could not be verified: .github/CODEOWNERS@bbbbbbb is unreadable: ",
		},
		{
			name: "blank CODEOWNERS", owners: ptr("\n  \n"), signer: "amd-owner-a",
			files: changed(amdMaster), status: checks.Fail,
			reason: "could not be verified: .github/CODEOWNERS@bbbbbbb is empty",
		},
		{
			name: "CODEOWNERS with only broken lines", owners: ptr("[x] @a\nfoo bar\n"), signer: "amd-owner-a",
			files: changed(amdMaster), status: checks.Fail,
			reason: "could not be verified: .github/CODEOWNERS@bbbbbbb has no usable rules",
		},
		{
			name: "broken line and GitHub errors are noted, good rules still apply", signer: "amd-owner-a",
			owners: ptr("* @SemiAnalysisAI/core\ndocs/[x].md @x\ninferencex-e2e/configs/amd-master.yaml @amd-owner-a @ghost\n"),
			ghErrs: []checks.CodeownersError{{Line: 3, Kind: "Unknown owner", Message: "make sure @ghost exists"}},
			files:  changed(amdMaster), status: checks.Pass,
			reason:  "@amd-owner-a owns inferencex-e2e/configs/amd-master.yaml (specific rule). Note: CODEOWNERS has errors on lines 2, 3.",
			zhWants: "注意：CODEOWNERS 第 2, 3 行有错误。",
		},
		{
			name: "no signer", signer: "", files: changed(amdMaster), status: checks.Fail,
			reason: "could not be verified: the sign-off author is unknown",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := runOwnerCase(t, tc)
			if r.Status != tc.status {
				t.Errorf("status = %s, want %s (reason %q)", r.Status, tc.status, r.Reason.EN)
			}
			if tc.prefix && !strings.HasPrefix(r.Reason.EN, tc.reason) || !tc.prefix && r.Reason.EN != tc.reason {
				t.Errorf("reason\n got %q\nwant %q", r.Reason.EN, tc.reason)
			}
			if tc.zhWants != "" && !strings.Contains(r.Reason.ZH, tc.zhWants) {
				t.Errorf("zh reason %q lacks %q", r.Reason.ZH, tc.zhWants)
			}
			if r.Reason.ZH == r.Reason.EN {
				t.Errorf("zh reason is untranslated: %q", r.Reason.ZH)
			}
		})
	}
}

func TestCodeownerCheckEvidenceAndLookups(t *testing.T) {
	tc := ownerCase{signer: "amd-owner-a", files: changed(amdMaster, nvMaster, "inferencex-e2e/docs/MODELS.md", "README.md")}
	r, src := runOwnerCase(t, tc)
	if r.Status != checks.Pass {
		t.Fatalf("status %s: %s", r.Status, r.Reason.EN)
	}
	if n := src.Calls["TeamMember"]; n != 1 {
		t.Errorf("TeamMember called %d times, want 1 (memoized per team)", n)
	}
	want := map[string]string{
		"CODEOWNERS":                ".github/CODEOWNERS@bbbbbbb",
		"Signer":                    "@amd-owner-a",
		nvMaster:                    "line 6 inferencex-e2e/configs/nvidia-master.yaml: @nv-owner-a @nv-owner-b @SemiAnalysisAI/core — accepted: team membership unverifiable",
		"Default paths":             "1 (catch-all rule)",
		"Team @SemiAnalysisAI/core": "@amd-owner-a: unverifiable",
		"GitHub CODEOWNERS errors":  "none",
	}
	got := map[string]string{}
	for _, e := range r.Evidence {
		got[e.Label] = e.Value
	}
	if u := r.Evidence[0].URL; u != "https://github.com/SemiAnalysisAI/InferenceX/blob/"+ownersBase+"/.github/CODEOWNERS" {
		t.Errorf("CODEOWNERS link = %q", u)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("evidence %q = %q, want %q", k, got[k], v)
		}
	}
	// Determinism: the same evidence gives the same result.
	r2, _ := runOwnerCase(t, tc)
	if r2.Reason != r.Reason || len(r2.Evidence) != len(r.Evidence) {
		t.Errorf("non-deterministic result: %+v vs %+v", r, r2)
	}
}

// A code owner's sign-off on their own PR is no second pair of eyes: it
// fails unless the repository sets allow_self_signoff.
func TestCodeownerSelfSignOff(t *testing.T) {
	for _, tt := range []struct {
		name   string
		author string
		allow  bool
		want   checks.Status
	}{
		{"another code owner's PR", "amd-dev-x", false, checks.Pass},
		{"their own PR", "amd-owner-a", false, checks.Fail},
		{"their own PR, login case differs", "AMD-Owner-A", false, checks.Fail},
		{"their own PR, allowed", "amd-owner-a", true, checks.Pass},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &checkstest.Source{FilesValue: changed(amdMaster)}
			src.SetFile(ownersBase, ".github/CODEOWNERS", ownersFixture)
			pr := checkstest.NewPR(src, inferencextest.Preset(repo.E2ELayout()),
				checkstest.Identity("SemiAnalysisAI", "InferenceX", 2611),
				func(pr *checks.PR) {
					pr.HeadSHA, pr.BaseTip, pr.Author = "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", ownersBase, tt.author
					pr.SignOff = checks.SignOff{Author: "amd-owner-a"}
					repo.SettingsParam.Get(pr).AllowSelfSignOff = tt.allow
				})
			r := checkstest.RunOne(t, pr, inferencex.Codeowner)
			if r.Status != tt.want {
				t.Fatalf("status %s, want %s: %s", r.Status, tt.want, r.Reason.EN)
			}
			if tt.want == checks.Fail && (!strings.Contains(r.Reason.EN, "signed off their own PR") || !strings.Contains(r.Reason.ZH, "签核了自己的 PR")) {
				t.Errorf("reason %+v", r.Reason)
			}
		})
	}
}
