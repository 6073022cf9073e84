package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/verify"
)

// benchLatency is the fake GitHub's delay per API call.
const benchLatency = 30 * time.Millisecond

// BenchmarkVerifySample is one full verification of a shipped sample PR
// that reaches every check (sweep artifacts, an upstream recipe, a
// published page) against the fake GitHub with 30 ms of latency per API
// call: the e2e layout (sample-e2e-agentic) and the legacy one
// (sample-legacy-agentic). "cold" starts every verification with empty
// caches, "warm" shares them with an earlier verification of the unchanged
// PR, as the App does across re-verifications. It reports the requests'
// observed depth and their dependency bound (see analyze), and wall time
// over bound × latency; VERDICT_BENCH_TRACE=FILE writes both paths and the
// timeline to FILE.<fixture>.<mode>.
//
// The checklist preset's example repositories are measured the same way
// (checklist-library: CI, changed files and added lines; checklist-service:
// a linked PR in another repository, DCO and CI on an older commit).
func BenchmarkVerifySample(b *testing.B) {
	cases := []struct {
		fixture string
		req     verify.Request
	}{
		{"sample-e2e-agentic", sampleRequest()},
		{"sample-legacy-agentic", sampleRequest()},
		{"checklist-library", checklistRequest("acme", "strutil", 11)},
		{"checklist-service", checklistRequest("acme", "ledger", 21)},
	}
	for _, c := range cases {
		for _, mode := range []string{"cold", "warm"} {
			b.Run(c.fixture+"/"+mode, func(b *testing.B) { benchVerify(b, c.fixture, c.req, mode) })
		}
	}
}

func checklistRequest(owner, repo string, number int) verify.Request {
	r := sampleRequest()
	r.Owner, r.Repo, r.Number = owner, repo, number
	return r
}

func benchVerify(b *testing.B, name string, req verify.Request, mode string) {
	fx, err := fixture.Load(filepath.Join("..", "..", "testdata", "fixtures", name))
	if err != nil {
		b.Fatal(err)
	}
	srv := githubtest.New(b, fx)
	srv.SetLatency(benchLatency)
	v := newTestVerifier()
	newClient := func() *ghapi.Client {
		return clientWith(b, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
	}
	gh := newClient()
	if mode == "warm" {
		if _, err := v.Verify(context.Background(), gh, req); err != nil {
			b.Fatal(err)
		}
	}
	srv.ResetCounts()
	b.ResetTimer()
	for b.Loop() {
		if mode == "cold" {
			gh = newClient()
		}
		srv.SetTracing(true)
		if _, err := v.Verify(context.Background(), gh, req); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// The paths are those of the last verification (each clears the
	// trace), analyzed outside the timed loop: analysis is not verification.
	p := analyze(srv.Trace(), req.Owner, req.Repo, strconv.Itoa(req.Number))
	reportCalls(b, srv)
	b.ReportMetric(float64(p.Observed), "depth")
	b.ReportMetric(float64(p.Bound), "bound")
	perOp := float64(b.Elapsed()) / float64(b.N)
	b.ReportMetric(perOp/float64(time.Duration(p.Bound)*benchLatency), "wall/bound")
	if out := os.Getenv("VERDICT_BENCH_TRACE"); out != "" {
		writeTrace(b, out+"."+name+"."+mode, srv.Trace(), p)
	}
}

// reportCalls reports the requests of b's verifications: API calls that
// count against the rate limit, conditional ones answered 304 (which do
// not), and archive downloads from artifact storage (not API calls).
func reportCalls(b *testing.B, srv *githubtest.Server) {
	storage := srv.Calls("GET /_blob/{owner}/{repo}/artifacts/{file}")
	n := float64(b.N)
	b.ReportMetric(float64(srv.TotalCalls()-srv.NotModifiedCalls()-storage)/n, "api-calls/op")
	b.ReportMetric(float64(srv.NotModifiedCalls())/n, "304s/op")
	b.ReportMetric(float64(storage)/n, "storage-downloads/op")
}
