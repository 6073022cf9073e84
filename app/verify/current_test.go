package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/verify"
)

// TestStaleVerdictIsDropped: when a newer event for the sign-off arrived
// while its verdict was decided, nothing of that verdict is published —
// no comment, no final status — and the marks the verification left are
// settled: the check run it opened is completed, the pending status it set
// no longer pending.
func TestStaleVerdictIsDropped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		why     string
		publish bool
	}{
		{"current", "", true},
		{"superseded", "a newer event for the sign-off arrived", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New(t, loadSample(t))
			v := newTestVerifier()
			v.Publisher = publish.Verdicts{Pending: true}
			req := sampleRequest()
			req.Publish = true
			asked := 0
			req.Superseded = func(context.Context) (string, error) { asked++; return tc.why, nil }
			out, err := v.Verify(context.Background(), client(t, srv), req)
			if err != nil {
				t.Fatal(err)
			}
			if asked != 1 {
				t.Errorf("asked %d times whether the verdict is current; want once, before publishing", asked)
			}
			published := 0
			for _, c := range srv.Comments(sampleRepo, samplePR) {
				if strings.HasPrefix(c.Body, "<!-- codeowner-signoff-verify signoff="+sampleKey+" -->\n") {
					published++
				}
			}
			if (published == 1) != tc.publish {
				t.Fatalf("%d verdict comments; want published = %v", published, tc.publish)
			}
			if !tc.publish && (out.Status != verify.Superseded || out.SkipReason != tc.why) {
				t.Errorf("outcome %s %q; want %s %q", out.Status, out.SkipReason, verify.Superseded, tc.why)
			}
			var runs []github.CheckRun
			for _, r := range srv.CheckRuns(sampleRepo, "head") {
				if r.GetName() == publish.DefaultCheckRunName {
					runs = append(runs, r)
				}
			}
			if len(runs) != 1 || runs[0].GetStatus() != "completed" {
				t.Fatalf("check runs on the head = %+v; want one, completed", runs)
			}
			if want := map[bool]string{true: "success", false: "cancelled"}[tc.publish]; runs[0].GetConclusion() != want {
				t.Errorf("check run conclusion %q, want %q", runs[0].GetConclusion(), want)
			}
			st := srv.Statuses(sampleRepo, "head")
			if len(st) == 0 || st[0].GetState() == "pending" {
				t.Errorf("status on the head = %+v; want it settled", st)
			}
			if !tc.publish && st[0].GetState() != "failure" {
				t.Errorf("status %q with no verdict standing; want failure (none posted)", st[0].GetState())
			}
		})
	}
}
