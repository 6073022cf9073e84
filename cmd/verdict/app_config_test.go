package main

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

const configErrorMarker = "<!-- verdict-config-error -->"

// An invalid .github/verdict.yml on the default branch is reported on the
// PR: one bilingual comment naming the line, kept single across events, and
// no verdict (the rules are unknown).
func TestFlowInvalidRepoConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppWith(t, func(fx *fixture.Fixture) {
		fx.Tree("main").Put(".github/verdict.yml", "# rules\npareto_minimum: 5\nsign_off_phrase: As a PR reviewer\n")
	})
	reports := func() []fixture.Comment {
		var out []fixture.Comment
		for _, c := range a.gh.Comments(e2eRepo, e2ePR) {
			if strings.HasPrefix(c.Body, configErrorMarker+"\n") {
				out = append(out, c)
			}
		}
		return out
	}
	review := a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a")
	a.flowDeliver("pull_request_review", review)
	a.waitFor("the invalid-configuration comment", func() bool { return len(reports()) > 0 })
	c := reports()[0]
	for _, want := range []string{
		"`.github/verdict.yml` on the default branch `main`",
		"line 3",
		"unknown key sign_off_phrase (did you mean signoff_phrase?)",
		"<summary>中文</summary>",
		"第 3 行",
		"未知的键 sign_off_phrase",
	} {
		if !strings.Contains(c.Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, c.Body)
		}
	}
	if !strings.HasSuffix(c.User, "[bot]") {
		t.Errorf("comment written by %s", c.User)
	}

	// A second event finds the same file: still one comment, not rewritten.
	a.settle()
	reads := a.gh.PathCalls("GET", "/repos/"+e2eRepo+"/issues/3412/comments")
	a.flowDeliver("pull_request_review", a.reviewEvent("edited", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have: (edited)", "amd-owner-a"))
	// The report lists the conversation before deciding to write nothing.
	a.waitFor("the second event being handled", func() bool {
		return a.gh.PathCalls("GET", "/repos/"+e2eRepo+"/issues/3412/comments") > reads
	})
	a.settle()
	if n := len(reports()); n != 1 {
		t.Errorf("%d invalid-configuration comments, want 1", n)
	}
	if n := countWrites(a.repoWrites(), "PATCH", "/issues/comments/"); n != 0 {
		t.Errorf("the unchanged report was edited %d times", n)
	}
	if len(a.verdicts()) != 0 {
		t.Errorf("a verdict was published under unknown rules")
	}
}
