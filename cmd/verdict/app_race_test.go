package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
)

// TestEditDuringVerificationIsNotPublishedOver: a maintainer edits the
// code owner's sign-off while the verification of the author's text runs.
// That verification publishes nothing, not even for a moment: the verdict
// that appears is the edit's (REJECTED, tampered), and no PASS comment or
// success status is ever written.
func TestEditDuringVerificationIsNotPublishedOver(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	body := a.reviewBody()
	files := "/repos/SemiAnalysisAI/InferenceX/pulls/3412/files"
	// The first verification's read of the PR's files answers only after
	// the edit's delivery is stored.
	a.gh.AddFault(githubtest.Fault{Method: http.MethodGet, Path: files + "$", Delay: 1500 * time.Millisecond, Times: 1})
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, body, "amd-owner-a"))
	a.waitFor("the first verification reading the PR", func() bool { return a.gh.PathCalls(http.MethodGet, files) > 0 })
	edited := body + "\nPS: reviewed again.\n"
	a.gh.EditReview(sampleReview, edited, "maintainer-a")
	a.flowDeliver("pull_request_review", a.reviewEdit(edited, body, "maintainer-a"))
	a.waitVerdict(sampleReviewKey, rejectedHeader, "failure")
	for _, w := range a.gh.Writes() {
		b := string(w.Body)
		if strings.Contains(b, "Verdict: PASS") || strings.Contains(b, `"state":"success"`) {
			t.Errorf("the pre-edit verdict was published: %s %s %.200s", w.Method, w.Path, b)
		}
	}
	if got := a.checkRun(sampleReviewKey); got != "failure" {
		t.Errorf("check run = %q, want failure", got)
	}
}
