package localverify_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/app/localverify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// An InferenceX checklist template (legacy layout) and a CODEOWNERS file
// with a catch-all, a specific rule and a directory rule.
const (
	infxTemplate = "# Checklist\n\n## Template\n```\nAs a PR reviewer and CODEOWNER, I have reviewed this and have:\n" +
		"- [ ] Confirmed the configuration runs as shipped.\n- [ ] Confirmed the evals pass.\n  - [ ] Linked the eval run.\n" +
		"\n### Additional detail section:\n- insert any additional info here\n\nSigned: `FILL_IN_GITHUB_USERNAME`\n```\n"
	owners = "* @example/core @catch-owner\nconfigs/amd-master.yaml @amd-owner @amd-second\ndocs/ @doc-owner\n"
	// infxItems are infxTemplate's items as a synthesized sign-off checks them.
	infxItems = "- [x] Confirmed the configuration runs as shipped.\n- [x] Confirmed the evals pass.\n  - [x] Linked the eval run.\n"
	infxTail  = "\n### Additional detail section:\n- insert any additional info here\n\n"
)

// TestSynthesizeSignOff: each preset writes its own sample sign-off (the
// InferenceX one exactly as the replay wrote it before the preset did),
// and a preset that cannot write one is a clear error, not a verdict on an
// empty sign-off.
func TestSynthesizeSignOff(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	noSample := *inferencex.Preset
	noSample.Name, noSample.Sample = "inferencex-without-sample", nil
	for _, tt := range []struct {
		name   string
		preset *checks.Preset
		base   map[string]string
		change map[string]string
		body   string
		signer string
		// accepts are the rows judging the sign-off (who signed, what it
		// checked) that must pass it.
		accepts []int
		err     error
	}{
		{
			name:    "inferencex: the phrase of the settings, the owner of the changed config",
			preset:  inferencex.Preset,
			base:    map[string]string{".github/verdict.yml": "signoff_phrase: As a reviewer\ncore_team: \"@example/core\"\n"},
			change:  map[string]string{"configs/amd-master.yaml": "x: 2\n"},
			body:    "As a reviewer\n" + infxItems + infxTail + "Signed: `amd-owner`\n",
			signer:  "amd-owner",
			accepts: []int{0, 5},
		},
		{
			name:    "inferencex: the catch-all's individual",
			preset:  inferencex.Preset,
			change:  map[string]string{"README.md": "n\n"},
			body:    "As a PR reviewer and CODEOWNER\n" + infxItems + infxTail + "Signed: `catch-owner`\n",
			signer:  "catch-owner",
			accepts: []int{0, 5},
		},
		{
			name:   "inferencex: no individual owner",
			preset: inferencex.Preset,
			base:   map[string]string{".github/CODEOWNERS": "* @example/core\n"},
			change: map[string]string{"README.md": "n\n"},
			body:   "As a PR reviewer and CODEOWNER\n" + infxItems + infxTail + "Signed: ``\n",
		},
		{
			name:    "checklist: the pull request template's items, the owner of the changed docs",
			preset:  checklist.Preset,
			base:    map[string]string{".github/pull_request_template.md": "## Checklist\n\n- [ ] Tests pass\n- [ ] Docs updated\n  - [ ] Changelog\n"},
			change:  map[string]string{"docs/notes.md": "n\n"},
			body:    "As a PR reviewer and CODEOWNER\n- [x] Tests pass\n- [x] Docs updated\n  - [x] Changelog\n\nSigned: `doc-owner`\n",
			signer:  "doc-owner",
			accepts: []int{0, 1},
		},
		{
			name:   "a preset without Sample",
			preset: &noSample,
			change: map[string]string{"configs/amd-master.yaml": "x: 2\n"},
			err:    localverify.ErrNoSample,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ch := prepare(t, tt.preset, tt.base, tt.change)
			so, err := ch.SynthesizeSignOff(ctx)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.preset.Name) {
					t.Fatalf("error %v, want one naming the %s preset and wrapping %v", err, tt.preset.Name, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if so.Body != tt.body || so.Signer != tt.signer {
				t.Fatalf("sign-off by %q:\n%s\nwant by %q:\n%s", so.Signer, so.Body, tt.signer, tt.body)
			}
			// The sample is what the rows that judge a sign-off accept.
			ch.SetSignOff(so.Body, so.Signer)
			out, err := ch.Verify(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range out.Verdict.Rows {
				if slices.Contains(tt.accepts, r.Number) && r.Result.Status != checks.Pass {
					t.Errorf("Check %d is %s for the sample: %s", r.Number, r.Result.Status, r.Result.Reason.EN)
				}
			}
		})
	}
}

// prepare commits files (with the template and owners above unless files
// replace them) on main and change on the branch pr, and prepares the
// change with preset.
func prepare(t *testing.T, preset *checks.Preset, files, change map[string]string) *localverify.Change {
	t.Helper()
	g := gitsourcetest.New(t)
	base := map[string]string{
		".github/CODEOWNERS":          owners,
		"docs/PR_REVIEW_CHECKLIST.md": infxTemplate,
		"configs/amd-master.yaml":     "x: 1\n",
	}
	for p, c := range files {
		base[p] = c
	}
	g.Write(base)
	g.Commit("base")
	g.Git("checkout", "--quiet", "-b", "pr")
	g.Write(change)
	g.Commit("change")
	repo, err := gitsource.Open(context.Background(), g.Dir, gitsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	ch, err := localverify.Prepare(context.Background(), repo, localverify.Request{Base: "main", Head: "pr", Presets: []*checks.Preset{preset}})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}
