package checklist

import (
	"strings"
	"testing"
)

func TestStarterConfig(t *testing.T) {
	s := Starter{
		Checklist: ".github/pull_request_template.md",
		Template: []byte(`## Checklist

- [ ] I added tests for the change
- [ ] CHANGELOG.md has an entry
- [ ] CI is green
- [ ] Commits are signed off (DCO)
- [ ] No debug prints left behind
- [ ] The upstream pull request is merged and linked
- [ ] Docs: "quotes" and: colons survive
- [ ] Nothing is marked do-not-merge
- [ ] Tests added
- [ ] Add an entry in ` + "`CHANGES.rst`" + ` summarizing the change.
- [ ] Run ` + "`pytest`" + `, no tests failed.
- [ ] All commits are GPG-signed
- [ ] Every commit is signed off (DCO) or carries a verified signature
- [ ] I signed the CLA before my first commit
- [ ] Fixes a linked issue
- [ ] The tracking issue is resolved and linked
`),
		Workflows: map[string][]byte{
			".github/workflows/ci.yml":      []byte("on: [push, pull_request]\njobs:\n  build:\n    runs-on: x\n  lint:\n    name: Lint\n  matrix:\n    strategy:\n      matrix: {go: [1, 2]}\n"),
			".github/workflows/release.yml": []byte("on:\n  push:\n    tags: ['v*']\njobs:\n  publish: {}\n"),
		},
		Phrase: "Reviewed: ",
	}
	out, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	file := string(out)
	settings, probs := parseSettings(out)
	if len(probs) > 0 {
		t.Fatalf("the starter is not valid: %+v\n%s", probs, file)
	}
	want := map[string]string{
		"I added tests for the change":                                     KindFiles,
		"CHANGELOG.md has an entry":                                        KindFiles,
		"CI is green":                                                      KindChecks,
		"Commits are signed off (DCO)":                                     KindDCO,
		"No debug prints left behind":                                      KindLines,
		"The upstream pull request is merged and linked":                   KindLinked,
		`Docs: "quotes" and: colons survive`:                               KindAttested,
		"Nothing is marked do-not-merge":                                   KindLabels,
		"Tests added":                                                      KindFiles,
		"Add an entry in `CHANGES.rst` summarizing the change.":            KindFiles,
		"Run `pytest`, no tests failed.":                                   KindChecks,
		"All commits are GPG-signed":                                       KindDCO,
		"Every commit is signed off (DCO) or carries a verified signature": KindDCO,
		"I signed the CLA before my first commit":                          KindAttested,
		"Fixes a linked issue":                                             KindLinked,
		"The tracking issue is resolved and linked":                        KindLinked,
	}
	// The option each binding sets: the state of a link, what a commit
	// must carry.
	options := map[string]string{
		"Commits are signed off (DCO)":                                     "",
		"All commits are GPG-signed":                                       AcceptSignature,
		"Every commit is signed off (DCO) or carries a verified signature": AcceptEither,
		"The upstream pull request is merged and linked":                   "",
		"Fixes a linked issue":                                             StateOpen,
		"The tracking issue is resolved and linked":                        StateCompleted,
	}
	if len(settings.Items) != len(want) {
		t.Fatalf("%d items, want %d:\n%s", len(settings.Items), len(want), file)
	}
	for _, it := range settings.Items {
		if want[it.Item] != it.Verify {
			t.Errorf("%q bound to %s, want %s", it.Item, it.Verify, want[it.Item])
		}
		if strings.Contains(it.Item, "CHANGES.rst") && strings.Join(it.Require, ",") != "CHANGES.rst" {
			t.Errorf("the named changelog: require %v", it.Require)
		}
		if want, ok := options[it.Item]; ok && it.State+it.Accept != want {
			t.Errorf("%q: state %q, accept %q, want %q", it.Item, it.State, it.Accept, want)
		}
		if it.Verify == KindChecks && strings.Join(it.Names, ",") != "Lint,build" {
			t.Errorf("check runs %v, want the pull-request workflow's unmatrixed jobs", it.Names)
		}
	}
	if !strings.Contains(file, "preset: checklist\n") || !strings.Contains(file, `signoff_phrase: 'Reviewed: '`) {
		t.Errorf("header:\n%s", file)
	}
	if _, err := (Starter{Checklist: "x.md", Template: []byte("no items")}).Config(); err == nil {
		t.Error("a checklist without items gave a starter")
	}
}
