package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// Lifecycle flows: a push after a verdict, "Re-run" of Verdict's check run
// and suite, and a webhook GitHub failed to deliver, each through the real
// App against the fake GitHub.

const (
	statusContext = "codeowner-signoff-verify"
	headMovedMark = "<!-- verdict-head-moved -->"
	signOffBody   = "As a PR reviewer and CODEOWNER, I have reviewed this and have:"
	reviewID      = 3900000001
	reviewKey     = "pullrequestreview-3900000001"
)

// verifiedAt delivers the sample sign-off and waits for its final status
// and completed check run on the PR's head.
func (a *app) verifiedAt(sha string) {
	a.t.Helper()
	a.flowDeliver("pull_request_review", a.reviewEvent("submitted", reviewID, signOffBody, "amd-owner-a"))
	a.waitForVerdictOn(sha)
}

// waitForVerdictOn waits until a verification of the sample sign-off has
// settled its status and check run on sha.
func (a *app) waitForVerdictOn(sha string) {
	a.t.Helper()
	a.waitFor("the verdict on "+sha[:7], func() bool {
		st := a.statusOn(sha)
		return st != nil && st.GetState() != "pending" && a.runOn(sha, "completed") != nil
	})
}

// statusOn is the newest Verdict status on sha, nil when there is none.
func (a *app) statusOn(sha string) *github.RepoStatus {
	for _, s := range a.gh.Statuses(e2eRepo, sha) {
		if s.GetContext() == statusContext {
			return &s
		}
	}
	return nil
}

// runOn is Verdict's check run on sha with the given status ("" any).
func (a *app) runOn(sha, status string) *github.CheckRun {
	for _, r := range a.gh.CheckRuns(e2eRepo, sha) {
		if r.GetName() == "Verdict / sign-off" && (status == "" || r.GetStatus() == status) {
			return &r
		}
	}
	return nil
}

func (a *app) verdictBody() string {
	a.t.Helper()
	c, ok := a.verdicts()[reviewKey]
	if !ok {
		a.t.Fatalf("no verdict comment for %s", reviewKey)
	}
	return c.Body
}

// A push after a verdict re-verifies nothing: the new head gets "sign-off
// needed" (pending), and the verdict comment one line saying what it
// covers, updated in place by the next push rather than stacked.
func TestFlowPushAfterVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	h1 := a.head
	a.verifiedAt(h1)
	a.settle()
	comments := len(a.gh.Comments(e2eRepo, e2ePR))
	before := a.verdictBody()
	runsCreated := countWrites(a.gh.Writes(), "POST", "/check-runs")

	h2 := a.gh.Push(e2eRepo, e2ePR, "push-1")
	sync1 := a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, h1, "amd-dev-x")
	a.flowDeliver("pull_request", sync1)
	a.waitFor("the sign-off-needed status on the pushed head", func() bool { return a.statusOn(h2) != nil })
	st := a.statusOn(h2)
	wantDesc := "Sign-off needed: the last verdict covered " + h1[:7] + " / 需要签核：上次结论针对 " + h1[:7]
	if st.GetState() != "pending" || st.GetDescription() != wantDesc {
		t.Errorf("status on the pushed head: %s %q, want pending %q", st.GetState(), st.GetDescription(), wantDesc)
	}
	if !strings.Contains(st.GetTargetURL(), "#issuecomment-") {
		t.Errorf("status links %q, not the verdict comment", st.GetTargetURL())
	}
	a.waitFor("the head-moved line", func() bool { return strings.Contains(a.verdictBody(), headMovedMark) })
	a.settle()
	body := a.verdictBody()
	if !strings.HasPrefix(body, before) {
		t.Errorf("the verdict itself changed:\n%s", body)
	}
	line := strings.TrimPrefix(body, before)
	for _, s := range []string{"`" + h1[:7] + "`", "`" + h2[:7] + "`", "PR 头部已移动到"} {
		if !strings.Contains(line, s) {
			t.Errorf("head-moved line lacks %q: %q", s, line)
		}
	}
	if n := len(a.gh.Comments(e2eRepo, e2ePR)); n != comments {
		t.Errorf("comments %d → %d: a push posted a comment", comments, n)
	}
	if got := countWrites(a.gh.Writes(), "POST", "/check-runs"); got != runsCreated || a.runOn(h2, "") != nil {
		t.Errorf("a push started a verification (%d check runs created, want %d)", got, runsCreated)
	}

	// The second push replaces the line; a redelivered push changes nothing.
	h3 := a.gh.Push(e2eRepo, e2ePR, "push-2")
	a.flowDeliver("pull_request", a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, h2, "amd-dev-x"))
	a.waitFor("the line naming the second push", func() bool { return strings.Contains(a.verdictBody(), "`"+h3[:7]+"`") })
	a.waitFor("the status on the second push", func() bool { return a.statusOn(h3) != nil })
	a.settle()
	body = a.verdictBody()
	if strings.Count(body, headMovedMark) != 1 || strings.Contains(body, h2[:7]) || !strings.HasPrefix(body, before) {
		t.Errorf("second push stacked or kept the old line:\n%s", strings.TrimPrefix(body, before))
	}
	// The same body again, under a new delivery ID (a captured delivery
	// replayed) and then that ID again: intake acts on neither.
	writes := len(a.repoWrites())
	reads := a.gh.PathCalls("GET", flowPRPath)
	a.deliver("pull_request", "e2e-sync-again", a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, h2, "amd-dev-x"), e2eSecret)
	a.deliver("pull_request", "e2e-sync-again", a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, h2, "amd-dev-x"), e2eSecret)
	a.quiet("the same push marked again", writes, 0, "")
	if n := a.gh.PathCalls("GET", flowPRPath) - reads; n != 0 {
		t.Errorf("a replayed push was acted on (%d PR reads)", n)
	}
}

// A push to a PR without any verdict is left alone.
func TestFlowPushWithoutVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	h2 := a.gh.Push(e2eRepo, e2ePR, "push-1")
	listPath := "/repos/" + e2eRepo + "/issues/3412/comments"
	a.settle()
	a.gh.ResetCounts()
	reads := a.gh.PathCalls("GET", listPath)
	a.flowDeliver("pull_request", a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, a.head, "amd-dev-x"))
	a.quiet("a push to a PR without a verdict", 0, reads, listPath)
	// Most pushes are to PRs without a verdict: they cost the PR, the
	// repository, its default branch, its configuration (with the layout
	// marker read beside it), the comments and perhaps a token, never the
	// scope gate.
	t.Logf("GitHub requests of a push to a PR without a verdict: %v", a.gh.CallCounts())
	if n := a.gh.TotalCalls(); n > 7 {
		t.Errorf("a push to a PR without a verdict made %d GitHub requests, want at most 7: %v", n, a.gh.CallCounts())
	}
	if a.statusOn(h2) != nil {
		t.Error("a status was posted on a PR that never had a verdict")
	}
}

// "Re-run" of Verdict's check run verifies its sign-off again at the
// current head; "Re-run all checks" of its suite verifies the newest
// sign-off there.
func TestFlowRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	h1 := a.head
	a.verifiedAt(h1)
	run := a.runOn(h1, "completed")
	if run.GetExternalID() != reviewKey+"@"+h1 {
		t.Fatalf("check run external id %q", run.GetExternalID())
	}

	// Re-run before any push: the same sign-off at the same head, again.
	runs := countWrites(a.gh.Writes(), "PATCH", "/check-runs/")
	creates := countWrites(a.gh.Writes(), "POST", "/check-runs")
	a.flowDeliver("check_run", a.gh.CheckRunEvent("rerequested", e2eRepo, run.GetID(), "amd-owner-a"))
	a.waitFor("the re-run verification", func() bool {
		return countWrites(a.gh.Writes(), "POST", "/check-runs") > creates && countWrites(a.gh.Writes(), "PATCH", "/check-runs/") > runs
	})
	a.waitForVerdictOn(h1)

	// After a push, the re-run of the old head's run assesses the new head.
	h2 := a.gh.Push(e2eRepo, e2ePR, "push-1")
	a.flowDeliver("pull_request", a.gh.PullRequestSynchronizeEvent(e2eRepo, e2ePR, h1, "amd-dev-x"))
	a.waitFor("the head-moved line", func() bool { return strings.Contains(a.verdictBody(), headMovedMark) })
	a.flowDeliver("check_run", a.gh.CheckRunEvent("rerequested", e2eRepo, run.GetID(), "amd-owner-a"))
	a.waitForVerdictOn(h2)
	a.settle()
	if got := a.runOn(h2, "completed"); got.GetExternalID() != reviewKey+"@"+h2 {
		t.Errorf("re-run check run on the new head: %q", got.GetExternalID())
	}
	body := a.verdictBody()
	if !strings.Contains(body, "Assessed commit: `"+h2+"`.") || strings.Contains(body, headMovedMark) {
		t.Errorf("re-run verdict does not cover the new head, or keeps the head-moved line:\n%s", body)
	}

	// Someone without write access clicking Re-run changes nothing.
	writes := len(a.repoWrites())
	a.flowDeliver("check_run", a.gh.CheckRunEvent("rerequested", e2eRepo, run.GetID(), "amd-dev-x"))
	a.quiet("a re-run by a reader", writes, a.gh.PathCalls("GET", flowPRPath), flowPRPath)

	// The suite's "Re-run all checks" on a newer head verifies the newest sign-off.
	h3 := a.gh.Push(e2eRepo, e2ePR, "push-2")
	a.flowDeliver("check_suite", a.gh.CheckSuiteEvent("rerequested", e2eRepo, h3, "maintainer-a"))
	a.waitForVerdictOn(h3)
	if got := a.runOn(h3, "completed"); got.GetExternalID() != reviewKey+"@"+h3 {
		t.Errorf("suite re-run check run: %q", got.GetExternalID())
	}
}

// A sign-off whose webhook GitHub could not deliver (Verdict down) is
// redelivered by recovery and becomes a verdict; one that failed but was
// stored, and events Verdict does not use, are not redelivered.
func TestFlowMissedWebhook(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startAppSettings(t, nil, map[string]string{"VERDICT_REDELIVER_INTERVAL": "200ms"})
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()

	// While Verdict is unreachable: a CI check run completes, and the
	// sign-off is submitted.
	a.gh.Webhook().Configure(dead.URL+"/webhook", []byte(e2eSecret))
	ci, _, err := a.gh.Client().Checks.CreateCheckRun(t.Context(), "SemiAnalysisAI", "InferenceX", github.CreateCheckRunOptions{
		Name: "lint", HeadSHA: a.head, Status: github.String("completed"), Conclusion: github.String("success")})
	if err != nil {
		t.Fatal(err)
	}
	noise := a.gh.Webhook().Deliver("check_run", a.gh.CheckRunEvent("completed", e2eRepo, ci.GetID(), "amd-dev-x"))
	missed := a.gh.Webhook().Deliver("pull_request_review", a.reviewEvent("submitted", reviewID, signOffBody, "amd-owner-a"))
	if missed.Status == "OK" || noise.Status == "OK" {
		t.Fatalf("deliveries to a closed port: %+v %+v", missed, noise)
	}

	// A delivery Verdict stored but answered too late (a proxy timing out).
	late := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest(http.MethodPost, a.base+"/webhook", r.Body)
		req.Header = r.Header.Clone()
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		w.WriteHeader(http.StatusGatewayTimeout)
	}))
	defer late.Close()
	a.gh.Webhook().Configure(late.URL, []byte(e2eSecret))
	stored := a.gh.Webhook().Deliver("pull_request", a.flowPREvent("reopened"))
	if stored.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("late delivery: %+v", stored)
	}

	// Verdict is reachable again: the next recovery pass redelivers.
	a.gh.Webhook().Configure(a.base+"/webhook", []byte(e2eSecret))
	a.waitFor("the missed sign-off's verdict", func() bool { _, ok := a.verdicts()[reviewKey]; return ok })
	a.waitForVerdictOn(a.head)
	time.Sleep(time.Second) // several more passes
	a.settle()
	redelivered := map[string]int{}
	for _, at := range a.gh.Webhook().Attempts() {
		if at.Redelivery {
			redelivered[at.GUID]++
			if at.Status != "OK" {
				t.Errorf("redelivery answered %q", at.Status)
			}
		}
	}
	if redelivered[missed.GUID] != 1 || len(redelivered) != 1 {
		t.Errorf("redeliveries by GUID = %v, want one of %s only (not %s, stored, nor %s, a CI check run)",
			redelivered, missed.GUID, stored.GUID, noise.GUID)
	}
	resp, err := http.Get(a.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range []string{"verdict_webhook_recovery_listed_total", "verdict_webhook_recovery_redelivered_total"} {
		if !strings.Contains(string(metrics), m+" ") || strings.Contains(string(metrics), m+" 0\n") {
			t.Errorf("metric %s not counted", m)
		}
	}
}
