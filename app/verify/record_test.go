package verify_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
)

type records []verify.Record

func (r *records) RecordVerification(_ context.Context, rec verify.Record) error {
	*r = append(*r, rec)
	return nil
}

func (r *records) RecordUnverified(context.Context, verify.Unverified) error { return nil }

// A published verdict is recorded with everything the history shows: the
// delivery, the commit, the sign-off and a hash of its body, the rows, the
// time it took and the GitHub requests it cost.
func TestVerifyRecordsTheVerification(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	var recs records
	v := newTestVerifier()
	v.Recorder = &recs
	gh := client(t, srv)
	req := sampleRequest()
	req.Publish, req.DeliveryID, req.Actor = true, "delivery-7", "amd-owner-a"
	out, err := v.Verify(context.Background(), gh, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	review, err := gh.Review(context.Background(), "SemiAnalysisAI", "InferenceX", samplePR, 3900000001)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(review.GetBody()))
	head := srv.Fixture().SHA(sampleRepo, "head")
	switch {
	case r.Owner != "SemiAnalysisAI" || r.Repo != "InferenceX" || r.Number != samplePR:
		t.Errorf("PR = %s/%s#%d", r.Owner, r.Repo, r.Number)
	case r.DeliveryID != "delivery-7" || r.Actor != "amd-owner-a":
		t.Errorf("delivery %q, actor %q", r.DeliveryID, r.Actor)
	case r.Key != sampleKey || r.HeadSHA != head:
		t.Errorf("sign-off %s at %s, want %s at %s", r.Key, r.HeadSHA, sampleKey, head)
	case r.BodySHA256 != hex.EncodeToString(sum[:]):
		t.Errorf("body hash %s is not the SHA-256 of the review body", r.BodySHA256)
	case r.Verdict != out.Verdict.Overall || r.Verdict != checks.VerdictPass:
		t.Errorf("verdict %s, outcome %s", r.Verdict, out.Verdict.Overall)
	case len(r.Rows) != 16 || r.CommentURL != out.CommentURL:
		t.Errorf("%d rows, comment %q", len(r.Rows), r.CommentURL)
	case r.Duration <= 0 || r.At.IsZero():
		t.Errorf("duration %s at %s", r.Duration, r.At)
	}
	// Every request of this verification went to the fake; the review
	// read above is the one more it saw.
	if r.APICalls == 0 || r.APICalls != srv.TotalCalls()-1 {
		t.Errorf("recorded %d API calls; the fake served %d (one of them after the verification)", r.APICalls, srv.TotalCalls())
	}
	if len(r.Bypasses) != 0 {
		t.Errorf("bypasses %+v on a PR without any", r.Bypasses)
	}
}

// An admin's bypass of a row on the assessed commit is recorded with the
// verification that saw it; one naming another commit is not.
func TestVerifyRecordsBypasses(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	head := srv.Fixture().SHA(sampleRepo, "head")
	srv.AddComment(sampleRepo, samplePR, fixture.Comment{User: "maintainer-a", Association: "MEMBER",
		Body: "/verdict bypass 14 " + head[:7] + " the frontier is covered by run 42"})
	srv.AddComment(sampleRepo, samplePR, fixture.Comment{User: "maintainer-b", Association: "MEMBER",
		Body: "/verdict bypass 14 0ff1ce0 another commit"})
	var recs records
	v := newTestVerifier()
	v.Recorder = &recs
	req := sampleRequest()
	req.Publish = true
	if _, err := v.Verify(context.Background(), client(t, srv), req); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || len(recs[0].Bypasses) != 1 {
		t.Fatalf("records %+v", recs)
	}
	b := recs[0].Bypasses[0]
	if b.Check != 14 || b.By != "maintainer-a" || b.Reason != "the frontier is covered by run 42" || b.URL == "" {
		t.Errorf("bypass %+v", b)
	}
}
