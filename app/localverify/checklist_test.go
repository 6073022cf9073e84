package localverify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/app/localverify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
)

// A local check has no GitHub: a linked issue cannot be read and a
// commit's signature cannot be verified, so the checklist rows that need
// them say so and never pass.
func TestChecklistLinksAndSignaturesLocally(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	g := gitsourcetest.New(t)
	g.Write(map[string]string{
		".github/CODEOWNERS":               "* @doc-owner\n",
		".github/pull_request_template.md": "- [ ] The issue is linked\n- [ ] Commits are signed\n",
		".github/verdict.yml": "preset: checklist\npreset_settings:\n  items:\n" +
			"    - item: The issue is linked\n      verify: linked\n      state: completed\n" +
			"    - item: Commits are signed\n      verify: dco\n      accept: signature\n",
	})
	g.Commit("base")
	g.Git("checkout", "--quiet", "-b", "pr")
	g.Write(map[string]string{"docs/notes.md": "n\n"})
	g.Commit("change\n\nSigned-off-by: A B <a@b.c>")
	repo, err := gitsource.Open(context.Background(), g.Dir, gitsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	ctx := context.Background()
	ch, err := localverify.Prepare(ctx, repo, localverify.Request{Base: "main", Head: "pr", Number: 9, Body: "Fixes #5",
		Presets: []*checks.Preset{checklist.Preset}})
	if err != nil {
		t.Fatal(err)
	}
	so, err := ch.SynthesizeSignOff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ch.SetSignOff(so.Body, so.Signer)
	out, err := ch.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{5, 7} {
		r := out.Verdict.Rows[slices.IndexFunc(out.Verdict.Rows, func(r checks.Outcome) bool { return r.Number == n })].Result
		if r.Status != checks.Fail || !strings.Contains(r.Reason.EN, "could not be verified") ||
			!strings.Contains(r.Reason.EN, gitsource.Unavailable) || !strings.Contains(r.Reason.ZH, gitsource.UnavailableZH) {
			t.Errorf("Check %d: %s %q / %q", n, r.Status, r.Reason.EN, r.Reason.ZH)
		}
	}
	if !slices.Contains(out.Refused[5], "Issue") {
		t.Errorf("Check 5 refused %v, want the issue read noted", out.Refused[5])
	}
}
