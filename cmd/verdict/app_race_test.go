package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/store"
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

// TestVerificationSlowerThanTheJobTimeout: GitHub answers so slowly that a
// verification needs longer than VERDICT_JOB_TIMEOUT. The first attempt is
// cut before it publishes anything; a later one, with its budget doubled,
// completes: comment, status and check run agree, and the history has one
// verification.
func TestVerificationSlowerThanTheJobTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppSettings(t, nil, map[string]string{"VERDICT_JOB_TIMEOUT": "1s", "VERDICT_RETRY_DELAY": "10ms"})
	a.gh.SetLatency(100 * time.Millisecond)
	start := time.Now()
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	t.Logf("published %v after the delivery", time.Since(start).Round(100*time.Millisecond))
	if got := a.checkRun(sampleReviewKey); got != "success" {
		t.Errorf("check run = %q, want success", got)
	}
	st, err := store.Open(context.Background(), a.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := st.History(context.Background(), e2eRepo, e2ePR, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Kind == store.KindVerification {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d verifications in the history, want 1", n)
	}
	var attempt int
	if err := st.DB().QueryRow(context.Background(), `SELECT max(attempt) FROM river_job WHERE kind = $1`, jobs.KindVerify).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	if attempt < 2 {
		t.Errorf("completed on attempt %d: the job timeout never cut it, so this test proves nothing", attempt)
	}
}

// TestVerificationDeferredForTheRateLimit: with less left of the
// installation's rate limit than a verification takes, the sign-off's job
// waits for the reset instead of starting, and the PR's history (its
// details page) says so and until when.
func TestVerificationDeferredForTheRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppSettings(t, nil, nil)
	a.gh.SpendRate(4980) // the first verification is admitted: nothing is known of the limit yet
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview, a.reviewBody(), "amd-owner-a"))
	a.waitVerdict(sampleReviewKey, passHeader, "success")
	// Its responses said what is left; the next sign-off is put off.
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", sampleReview+7, a.reviewBody(), "amd-owner-a"))
	st, err := store.Open(context.Background(), a.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var deferred, verified int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		events, err := st.History(context.Background(), e2eRepo, e2ePR, 0)
		if err != nil {
			t.Fatal(err)
		}
		deferred, verified = 0, 0
		for _, e := range events {
			switch e.Kind {
			case store.KindDeferred:
				deferred++
				if !strings.Contains(e.Detail, "calls left until its rate limit resets") || e.SignOffKey != fmt.Sprintf("pullrequestreview-%d", sampleReview+7) {
					t.Errorf("deferral event: %+v", e)
				}
			case store.KindVerification:
				verified++
			}
		}
		if deferred > 0 {
			break
		}
	}
	if deferred != 1 || verified != 1 {
		t.Errorf("%d deferrals and %d verifications in the history, want 1 and 1", deferred, verified)
	}
}
