package router

import (
	"encoding/json"
	"testing"

	"github.com/verdict-bot/verdict/app/jobs"
)

// mdComment is an issue_comment "created" delivery on PR 12 by a member.
func mdComment(t *testing.T, body string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"action":       "created",
		"repository":   map[string]any{"full_name": "SemiAnalysisAI/InferenceX"},
		"installation": map[string]any{"id": 42},
		"sender":       map[string]any{"login": "alice", "type": "User"},
		"issue":        map[string]any{"number": 12, "pull_request": map[string]any{"url": "x"}},
		"comment": map[string]any{"id": 5, "body": body, "user": map[string]any{"login": "alice", "type": "User"},
			"author_association": "MEMBER", "updated_at": "2026-11-05T09:30:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mdJobs counts the jobs a comment body makes: sign-off verifications,
// manual rechecks and reuse acknowledgements.
func mdJobs(t *testing.T, body string) (signOffs, rechecks, reuses int) {
	t.Helper()
	d, err := Router{}.Route("issue_comment", "d", mdComment(t, body))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range d.Jobs {
		switch a := j.(type) {
		case jobs.VerifyArgs:
			if a.Manual {
				rechecks++
			} else {
				signOffs++
			}
		case jobs.ReuseArgs:
			reuses++
		}
	}
	return signOffs, rechecks, reuses
}

// The router reads commands and the sign-off phrase with the grammars of
// checks/format: what a code block, an HTML comment or a quote holds asks
// for nothing.
func TestRouterReadsMarkdownStructure(t *testing.T) {
	hidden := map[string]func(string) string{
		"fence":             func(s string) string { return "```\n" + s + "\n```" },
		"tilde fence":       func(s string) string { return "~~~\n" + s + "\n~~~" },
		"indented code":     func(s string) string { return "see:\n\n    " + s },
		"html comment":      func(s string) string { return "<!--\n" + s + "\n-->" },
		"inline comment":    func(s string) string { return "ok <!-- " + s + " -->" },
		"block quote":       func(s string) string { return "> " + s },
		"lazy quote line":   func(s string) string { return "> you wrote\n" + s },
		"quote in a list":   func(s string) string { return "- a\n  > " + s },
		"list item":         func(s string) string { return "- " + s },
		"multi-line inline": func(s string) string { return "a <!--\n" + s + "\n--> b" },
	}
	const phrase = "As a PR reviewer and CODEOWNER, I have reviewed this and have:" // the default phrase
	for name, wrap := range hidden {
		t.Run(name, func(t *testing.T) {
			if _, r, _ := mdJobs(t, wrap("/verdict recheck")); r != 0 {
				t.Errorf("%q made a recheck", wrap("/verdict recheck"))
			}
			if _, _, u := mdJobs(t, wrap("/use 123")); u != 0 {
				t.Errorf("%q made a reuse job", wrap("/use 123"))
			}
			if name == "list item" {
				return // a sign-off's phrase may open a list item
			}
			if s, _, _ := mdJobs(t, wrap(phrase)); s != 0 {
				t.Errorf("%q made a sign-off verification", wrap(phrase))
			}
		})
	}
	if _, r, _ := mdJobs(t, "thanks\r\n/verdict recheck\r\n"); r != 1 {
		t.Error("a visible recheck made no job")
	}
	if _, _, u := mdJobs(t, "```\nlog\n```\n/use 123"); u != 1 {
		t.Error("a visible /use after a code block made no job")
	}
	if s, _, _ := mdJobs(t, phrase+"\n- [x] item"); s != 1 {
		t.Error("a visible sign-off made no job")
	}
}
