package checklist

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

const (
	head = "1111111111111111111111111111111111111111"
	base = "2222222222222222222222222222222222222222"
	def  = "3333333333333333333333333333333333333333"
)

const tpl = `## Checklist

- [ ] Tests added or updated
- [ ] CHANGELOG entry added
- [ ] CI is green on the final commit
- [ ] Docs updated
`

// newPR is a pull request by @author with a sign-off by @signer that ticks
// every item of tpl, on a repository whose CODEOWNERS gives src/ to
// @signer and docs/ to @org/docs.
func newPR(t *testing.T, settings string, files ...checks.ChangedFile) (*checks.PR, *checkstest.Source) {
	t.Helper()
	src := &checkstest.Source{FilesValue: files}
	src.SetFile(base, ".github/CODEOWNERS", "* @org/core\n/src/ @signer\n/docs/ @org/docs\n")
	src.SetFile(def, ".github/pull_request_template.md", tpl)
	pr := &checks.PR{Owner: "o", Repo: "r", Number: 7, Author: "author", HeadSHA: head, BaseTip: base, DefaultSHA: def, Source: src}
	body := "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n\n" + strings.ReplaceAll(tpl, "[ ]", "[x]")
	pr.SignOff = signoff.Parse(body)
	pr.SignOff.Author = "signer"
	file := "preset: checklist\npreset_settings:\n  core_team: \"@org/core\"\n"
	if settings != "" {
		file += settings
	}
	if probs := configure(pr, []byte(file)); len(probs) > 0 {
		t.Fatalf("settings: %+v", probs)
	}
	return pr, src
}

func TestRows(t *testing.T) {
	src := checks.ChangedFile{Path: "src/a.go", Status: "modified", Additions: 1, Patch: "@@ -1 +1 @@\n-a\n+fmt.Println(x)"}
	test := checks.ChangedFile{Path: "src/a_test.go", Status: "added", Additions: 1, Patch: "@@ -0,0 +1 @@\n+ok"}
	docs := checks.ChangedFile{Path: "docs/x.md", Status: "modified", Additions: 1, Patch: "@@ -1 +1 @@\n-a\n+b"}
	tests := []struct {
		name     string
		settings string
		files    []checks.ChangedFile
		setup    func(pr *checks.PR, s *checkstest.Source)
		row      *checks.Check
		status   checks.Status
		reason   string
	}{
		{"owner of src", "", []checks.ChangedFile{src}, nil, Owner, checks.Pass, "@signer owns every changed file that needs a sign-off (1)"},
		{"not owner of docs", "", []checks.ChangedFile{src, docs}, func(pr *checks.PR, s *checkstest.Source) {
			s.Teams = map[string]checks.Membership{"org/docs/signer": checks.NotMember}
		}, Owner, checks.Fail, "@signer does not own docs/x.md"},
		{"owner through a team", "", []checks.ChangedFile{docs}, func(pr *checks.PR, s *checkstest.Source) {
			s.Teams = map[string]checks.Membership{"org/docs/signer": checks.Member}
		}, Owner, checks.Pass, "owns every changed file"},
		{"unreadable team is not ownership", "", []checks.ChangedFile{docs}, nil, Owner, checks.Fail, "could not be verified"},
		{"self sign-off", "", []checks.ChangedFile{src}, func(pr *checks.PR, s *checkstest.Source) { pr.Author = "Signer" }, Owner, checks.Fail, "signed off their own PR"},
		{"self sign-off allowed", "  allow_self_signoff: true\n", []checks.ChangedFile{src}, func(pr *checks.PR, s *checkstest.Source) { pr.Author = "signer" }, Owner, checks.Pass, "owns"},

		{"all items checked", "", nil, nil, Complete, checks.Pass, "all 4 items of .github/pull_request_template.md present and checked"},
		{"an item unchecked", "", nil, func(pr *checks.PR, s *checkstest.Source) { pr.SignOff.Items[1].Checked = false }, Complete, checks.Fail, `leaves unchecked: "CHANGELOG entry added"`},
		{"an item missing", "", nil, func(pr *checks.PR, s *checkstest.Source) { pr.SignOff.Items = pr.SignOff.Items[:3] }, Complete, checks.Fail, `lacks the current checklist item "Docs updated"`},
		{"a binding to a gone item", "  items:\n    - item: Benchmarks run\n      verify: attested\n", nil, nil, Complete, checks.Fail, `binds "Benchmarks run"`},
		{"no template", "  checklist: docs/REVIEW.md\n", nil, nil, Complete, checks.Fail, "could not be verified: reading the checklist"},

		{"CI green on head", "  items:\n    - item: CI is green on the final commit\n      verify: checks\n      names: [build, test]\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			s.Runs = map[string][]checks.CheckRun{head: {{ID: 1, Name: "build", Status: "completed", Conclusion: "success"}, {ID: 2, Name: "test", Status: "completed", Conclusion: "failure"}, {ID: 3, Name: "test", Status: "completed", Conclusion: "success"}}}
		}, CIGreen, checks.Pass, "build, test succeeded on the head commit"},
		{"CI red on head", "  items:\n    - item: CI is green on the final commit\n      verify: checks\n      names: [build]\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			s.Runs = map[string][]checks.CheckRun{head: {{ID: 1, Name: "build", Status: "completed", Conclusion: "failure"}}}
		}, CIGreen, checks.Fail, `"build" concluded failure`},
		{"CI missing", "  items:\n    - item: CI is green on the final commit\n      verify: checks\n      names: [build]\n", nil, nil, CIGreen, checks.Fail, `no check run "build"`},
		{"CI on an older commit", "  items:\n    - item: CI is green on the final commit\n      verify: checks\n      names: [build]\n      commit: any\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			s.CommitsValue = checks.CommitList{Commits: []checks.Commit{{SHA: base}, {SHA: head}}}
			s.Runs = map[string][]checks.CheckRun{base: {{ID: 1, Name: "build", Status: "completed", Conclusion: "success"}}}
		}, CIGreen, checks.Pass, "succeeded on 2222222, a commit of the PR"},
		{"no item bound", "", nil, nil, CIGreen, checks.NA, "no checklist item is bound"},

		{"tests with source", "  items:\n    - item: Tests added or updated\n      verify: files\n      when: [\"src/**\"]\n      require: [\"*_test.go\"]\n", []checks.ChangedFile{src, test}, nil, ChangedFiles, checks.Pass, "src/a_test.go changed"},
		{"no tests with source", "  items:\n    - item: Tests added or updated\n      verify: files\n      when: [\"src/**\"]\n      require: [\"*_test.go\"]\n", []checks.ChangedFile{src}, nil, ChangedFiles, checks.Fail, "no changed file matches [*_test.go]"},
		{"docs only needs no tests", "  items:\n    - item: Tests added or updated\n      verify: files\n      when: [\"src/**\"]\n      require: [\"*_test.go\"]\n", []checks.ChangedFile{docs}, nil, ChangedFiles, checks.NA, "no bound item applies"},
		{"a removed test is no test", "  items:\n    - item: Tests added or updated\n      verify: files\n      require: [\"*_test.go\"]\n", []checks.ChangedFile{src, {Path: "src/b_test.go", Status: "removed"}}, nil, ChangedFiles, checks.Fail, "no changed file matches"},
		{"forbidden file", "  items:\n    - item: Docs updated\n      verify: files\n      forbid: [\"vendor/**\"]\n", []checks.ChangedFile{{Path: "vendor/x/y.go", Status: "modified"}}, nil, ChangedFiles, checks.Fail, "vendor/x/y.go changed, which the item forbids"},

		{"forbidden line", "  items:\n    - item: Docs updated\n      verify: lines\n      forbid: ['fmt\\.Println\\(']\n      paths: [\"**/*.go\"]\n", []checks.ChangedFile{src}, nil, AddedLines, checks.Fail, `src/a.go adds a line matching fmt\.Println\(`},
		{"removed lines do not count", "  items:\n    - item: Docs updated\n      verify: lines\n      forbid: ['^a$']\n", []checks.ChangedFile{src}, nil, AddedLines, checks.Pass, "no added line in 1 file(s)"},
		{"waived", "  items:\n    - item: Docs updated\n      verify: lines\n      forbid: ['fmt\\.Println\\(']\n      waivers: .github/waivers\n", []checks.ChangedFile{src}, func(pr *checks.PR, s *checkstest.Source) {
			s.SetFile(def, ".github/waivers/7.md", "debug output needed for the migration\n")
		}, AddedLines, checks.Pass, "waived by .github/waivers/7.md"},
		{"a diff GitHub does not show", "  items:\n    - item: Docs updated\n      verify: lines\n      forbid: ['x']\n", []checks.ChangedFile{{Path: "big.go", Status: "modified", Additions: 9000, PatchMissing: true}}, nil, AddedLines, checks.Fail, "could not be verified: GitHub shows no diff of big.go"},

		{"a failing item is named before an unverified one", "  items:\n    - item: Docs updated\n      verify: lines\n      forbid: ['x']\n      paths: [big.go]\n    - item: Tests added or updated\n      verify: lines\n      forbid: ['fmt\\.Println\\(']\n",
			[]checks.ChangedFile{{Path: "big.go", Status: "modified", Additions: 9000, PatchMissing: true}, src}, nil, AddedLines, checks.Fail,
			`"Tests added or updated": src/a.go adds a line matching fmt\.Println\( (diff line 3) (+1 more)`},

		{"linked PR merged", "  items:\n    - item: Docs updated\n      verify: linked\n      repos: [o/docs]\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			pr.Body = "Docs: https://github.com/o/docs/pull/3 and see #9"
			s.Upstream = map[string]checks.UpstreamPR{"o/docs#3": {State: "closed", Merged: true}}
		}, Linked, checks.Pass, "1 linked pull request(s) merged"},
		{"linked PR open", "  items:\n    - item: Docs updated\n      verify: linked\n      repos: [o/docs]\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			pr.Body = "Docs: o/docs#3"
			s.Upstream = map[string]checks.UpstreamPR{"o/docs#3": {State: "open"}}
		}, Linked, checks.Fail, "o/docs#3 is open, not merged"},
		{"no link in an allowed repository", "  items:\n    - item: Docs updated\n      verify: linked\n      repos: [o/docs]\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			pr.Body = "see evil/docs#3"
		}, Linked, checks.Fail, "links no pull request or issue in o/docs"},

		{"labels", "  items:\n    - item: Docs updated\n      verify: labels\n      present: [reviewed]\n      absent: [do-not-merge]\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			pr.Labels = []string{"reviewed", "do-not-merge"}
		}, Labels, checks.Fail, "the PR has the label do-not-merge"},

		{"DCO", "  items:\n    - item: Docs updated\n      verify: dco\n", nil, func(pr *checks.PR, s *checkstest.Source) {
			s.CommitsValue = checks.CommitList{Commits: []checks.Commit{{SHA: base, Message: "a\n\nSigned-off-by: A B <a@b.c>"}, {SHA: head, Message: "b\n\nSigned-off-by: nobody"}}}
		}, SignedOff, checks.Fail, "commit 1111111 has no Signed-off-by trailer"},

		{"attested", "  items:\n    - item: Docs updated\n      verify: attested\n", nil, nil, Attested, checks.NA, `not verified by Verdict, attested by @signer: "Docs updated"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, s := newPR(t, tt.settings, tt.files...)
			if tt.setup != nil {
				tt.setup(pr, s)
			}
			r := checkstest.RunOne(t, pr, tt.row)
			if r.Status != tt.status || !strings.Contains(r.Reason.EN, tt.reason) {
				t.Fatalf("%s %q, want %s containing %q", r.Status, r.Reason.EN, tt.status, tt.reason)
			}
			if words := checkstest.EnglishInChinese(r.Reason.ZH); len(words) > 0 {
				t.Errorf("untranslated %q in %q", words, r.Reason.ZH)
			}
		})
	}
}

// The configuration's own core_team and allow_self_signoff hold for the
// checklist preset; preset_settings overrides them.
func TestTopLevelOwnerSettings(t *testing.T) {
	for _, tt := range []struct {
		file string
		core string
		self bool
	}{
		{"preset: checklist\ncore_team: \"@acme/core\"\nallow_self_signoff: true\n", "@acme/core", true},
		{"preset: checklist\ncore_team: \"@acme/core\"\npreset_settings:\n  core_team: \"@acme/maint\"\n", "@acme/maint", false},
		{"preset: checklist\n", "", false},
	} {
		s, probs := parseSettings([]byte(tt.file))
		if len(probs) > 0 || s.CoreTeam != tt.core || s.AllowSelfSignOff != tt.self {
			t.Errorf("%q: %+v %v", tt.file, s, probs)
		}
	}
}

// The owner row reads nothing more for a file the signer owns by name,
// and a file the signer surely does not own decides the row even while
// another file's team membership cannot be read.
func TestOwnerDecidesWithoutUnrelatedEvidence(t *testing.T) {
	srcFile := checks.ChangedFile{Path: "src/a.go", Status: "modified"}
	pr, s := newPR(t, "", srcFile)
	if r := checkstest.RunOne(t, pr, Owner); r.Status != checks.Pass {
		t.Fatalf("%s %q", r.Status, r.Reason.EN)
	}
	if n := s.Calls["Permission"] + s.Calls["TeamMember"]; n != 0 {
		t.Errorf("%d permission or membership reads for a file the signer owns by name", n)
	}
	docs := checks.ChangedFile{Path: "docs/x.md", Status: "modified"} // @org/docs: membership unreadable
	other := checks.ChangedFile{Path: "lib/y.go", Status: "modified"} // @someone, not an admin
	pr, s = newPR(t, "", docs, other, srcFile)
	s.SetFile(base, ".github/CODEOWNERS", "* @org/core\n/src/ @signer\n/docs/ @org/docs\n/lib/ @someone\n")
	s.Perms = map[string]checks.Permission{"someone": {Permission: "write", RoleName: "write"}}
	if r := checkstest.RunOne(t, pr, Owner); r.Status != checks.Fail || !strings.Contains(r.Reason.EN, "@signer does not own lib/y.go") {
		t.Errorf("%s %q, want the definite failure", r.Status, r.Reason.EN)
	}
}
