package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
)

// Bad input must never pass by default: a changed file whose patch GitHub
// omits, and a master config at H that does not parse.

// badDropPatch removes the patch of path like GitHub does for huge diffs.
func badDropPatch(files []checks.ChangedFile, path string) {
	for i := range files {
		if files[i].Path == path {
			files[i].Patch, files[i].PatchMissing = "", true
		}
	}
}

func TestNoPatchAddedFileIsReadAtHead(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			r.Head["runners/prepare_engine.sh"] = "#!/usr/bin/env bash\nset -e\ncd /sgl-workspace/sglang\ngit apply /workspace/fix.patch\n"
			pr, src := r.PR(t)
			badDropPatch(src.FilesValue, r.Path("runners/prepare_engine.sh"))
			c := inferencex.EnginePatches
			res := checkstest.RunOne(t, pr, c)
			inferencextest.Expect(t, res, checks.Fail, r.Path("runners/prepare_engine.sh")+":4 applies a patch (git apply)", "in this PR")
			if strings.Contains(res.Reason.EN, "pre-existing") {
				t.Errorf("an added file's patching is called pre-existing: %q", res.Reason.EN)
			}
		})
	}
}

func TestNoPatchModifiedFileIsNotScannedAsEmpty(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			r.Base["runners/hooks.py"] = "import os\n"
			r.Head["runners/hooks.py"] = "import os\nos.system(\"cd /sgl-workspace/sglang && git apply /workspace/fix.patch\")\n"
			for _, c := range []*checks.Check{inferencex.EnginePatches, inferencex.ArchitectureHacks} {
				pr, src := r.PR(t)
				badDropPatch(src.FilesValue, r.Path("runners/hooks.py"))
				res := checkstest.RunOne(t, pr, c)
				if res.Status == checks.Pass {
					t.Fatalf("Check %d passed on a file it could not scan: %q", c.Number, res.Reason.EN)
				}
				inferencextest.Expect(t, res, checks.Fail, "Needs human review", r.Path("runners/hooks.py")+" could not be scanned", "no patch")
			}
			// With the patch, the same change is found (the review above is
			// only about the missing patch).
			c := inferencex.EnginePatches
			res, _ := r.RunCheck(t, c)
			inferencextest.Expect(t, res, checks.Fail, "git apply")
		})
	}
}

func TestDescriptionNamesUnreadableMasterConfig(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			r.Head["configs/amd-master.yaml"] = strings.Replace(r.Base["configs/amd-master.yaml"],
				"image: lmsysorg/sglang:v0.5.12-rocm700-mi35x", "image: lmsysorg/sglang:v0.5.13-rocm700-mi35x\n  image: lmsysorg/sglang:v0.5.13-rocm700-mi35x", 1)
			pr, _ := r.PR(t)
			pr.Body = "Bumps dsr1-fp4-mi355x-sglang to lmsysorg/sglang:v0.5.13-rocm700-mi35x.\n"
			c := inferencex.Description
			res := checkstest.RunOne(t, pr, c)
			if res.Status == checks.Pass {
				t.Fatalf("Check 15 passed with an unreadable master config: %q", res.Reason.EN)
			}
			if !strings.Contains(res.Reason.EN, r.Path("configs/amd-master.yaml")+" unreadable") {
				t.Errorf("reason %q does not name the unreadable master config", res.Reason.EN)
			}
		})
	}
}
