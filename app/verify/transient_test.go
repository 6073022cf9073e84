package verify_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/verify"
)

// TestTransientFailureIsNeverAVerdict: when a read keeps failing past the
// transport's retries, the verification ends with a transient error and
// publishes no verdict, wherever the read was: in a check, in a gate that
// tolerates a missing answer, or in an artifact download.
func TestTransientFailureIsNeverAVerdict(t *testing.T) {
	tests := []struct {
		name  string
		fault githubtest.Fault
	}{
		{"artifact archive", githubtest.Fault{Path: `/_blob/`, Status: 503}},
		{"archive redirect", githubtest.Fault{Path: `/actions/artifacts/\d+/zip$`, Status: 502}},
		{"CODEOWNERS diagnostics", githubtest.Fault{Path: `/codeowners/errors$`, Status: 502}},
		{"permission lookup", githubtest.Fault{Path: `/permission$`, Delay: 5 * time.Second}},
		{"secondary limit", githubtest.SecondaryLimitFault(`/check-runs$`, 0, 403, 0)},
		// Installed once the gates have read the PR twice: only the
		// re-read that looks for a newer head fails.
		{"final PR re-read", githubtest.Fault{Path: `/pulls/3412$`, Status: 502}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New(t, loadSample(t))
			v, gh := fastVerifier(t, srv)
			if tc.name == "final PR re-read" {
				reads := 0
				srv.SetHook(func(s githubtest.Served) {
					if s.Method == "GET" && strings.HasSuffix(s.Path, "/pulls/3412") {
						if reads++; reads == 2 {
							srv.AddFault(tc.fault)
						}
					}
				})
			} else {
				srv.AddFault(tc.fault)
			}
			req := sampleRequest()
			req.Publish = true
			out, err := v.Verify(context.Background(), gh, req)
			if !retry.IsTransient(ghclient.Classify(err)) {
				t.Fatalf("err = %v (outcome %s %s); want a transient error", err, out.Status, out.Verdict.Overall)
			}
			for _, c := range srv.Comments(sampleRepo, samplePR) {
				if strings.HasPrefix(c.Body, "<!-- codeowner-signoff-verify") {
					t.Errorf("a verdict was published from unavailable evidence")
				}
			}
			for _, st := range srv.Statuses(sampleRepo, "head") {
				if st.GetState() != "pending" {
					t.Errorf("final status %s written", st.GetState())
				}
			}
		})
	}
}

// fastVerifier is the test verifier and client with one quick retry and a
// 500 ms per-attempt timeout.
func fastVerifier(t *testing.T, srv *githubtest.Server) (*verify.Verifier, *ghapi.Client) {
	t.Helper()
	ro := ghclient.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetries: 1, AttemptTimeout: 500 * time.Millisecond}
	gh, err := ghclient.NewToken(srv.BaseURL(), srv.InstallationToken(), ghclient.Options{Retry: ro})
	if err != nil {
		t.Fatal(err)
	}
	opts := ghsource.Options{Retry: ro, DownloadClient: ghsource.NewDownloadClient(ro), PageClient: srvPageClient(srv)}
	return newTestVerifier(), ghapi.New(gh, opts)
}

// TestCancelledVerificationPublishesNothing: a verification whose context
// ends (shutdown, job timeout) reports the interruption, not a verdict
// computed from cancelled reads.
func TestCancelledVerificationPublishesNothing(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	srv.SetLatency(20 * time.Millisecond)
	v := newTestVerifier()
	ctx, cancel := context.WithCancel(context.Background())
	srv.SetHook(func(s githubtest.Served) {
		if strings.Contains(s.Path, "/contents/") {
			cancel()
		}
	})
	req := sampleRequest()
	req.Publish = true
	out, err := v.Verify(ctx, client(t, srv), req)
	if !errors.Is(err, context.Canceled) || out.Status == verify.Verified {
		t.Fatalf("Verify = %s, %v; want context.Canceled", out.Status, err)
	}
	if n := len(srv.Writes()); n > 2 {
		t.Errorf("%d writes after cancellation", n)
	}
}

// TestAbandonSettlesTheMarks: a verification given up for good leaves no
// pending status or running check run: both fail closed, saying why, on
// the commit the last attempt pinned (or the head, when none was pinned).
func TestAbandonSettlesTheMarks(t *testing.T) {
	for _, pinned := range []bool{true, false} {
		srv := githubtest.New(t, loadSample(t))
		v, gh := fastVerifier(t, srv)
		head := srv.Fixture().SHA(sampleRepo, "head")
		req := sampleRequest()
		req.Publish = true
		// The first attempt marked the commit, then GitHub failed for good.
		srv.AddFault(githubtest.Fault{Path: `/_blob/`, Status: 503})
		_, cause := v.Verify(context.Background(), gh, req)
		if cause == nil {
			t.Fatal("the verification did not fail")
		}
		srv.ClearFaults()
		if !pinned {
			cause = errors.New("sign-off comment could not be read")
		}
		if err := v.Abandon(context.Background(), gh, req, cause, "GitHub kept failing"); err != nil {
			t.Fatal(err)
		}
		sts := srv.Statuses(sampleRepo, head)
		if len(sts) == 0 || sts[0].GetState() != "failure" || sts[0].GetDescription() != "Sign-off could not be verified: GitHub kept failing" {
			t.Errorf("pinned=%v: statuses %+v", pinned, sts)
		}
		var runs int
		for _, cr := range srv.CheckRuns(sampleRepo, head) {
			if cr.GetExternalID() == sampleKey+"@"+head {
				runs++
				if cr.GetStatus() != "completed" || cr.GetConclusion() != "failure" {
					t.Errorf("pinned=%v: check run %s/%s", pinned, cr.GetStatus(), cr.GetConclusion())
				}
			}
		}
		if runs != 1 {
			t.Errorf("pinned=%v: %d check runs for the sign-off, want the one Start opened", pinned, runs)
		}
	}
}
