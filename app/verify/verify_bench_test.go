package verify_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
)

// benchLatency is the fake GitHub's delay per API call.
const benchLatency = 30 * time.Millisecond

// BenchmarkVerifySample is one full verification of the shipped sample (an
// agentic PR touching every check, with sweep artifacts and an upstream
// recipe read) against the fake GitHub with 30 ms of latency per API call.
// "cold" starts every verification with an empty evidence cache, "warm"
// shares one, as the App does across re-verifications. It reports the
// requests' observed depth and their dependency bound (see analyze);
// VERDICT_BENCH_TRACE=FILE writes both paths and the timeline to FILE.<mode>.
func BenchmarkVerifySample(b *testing.B) {
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			srv := githubtest.New(b, loadSample(b))
			srv.SetLatency(benchLatency)
			v := newTestVerifier()
			gh := clientWith(b, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
			if mode == "warm" {
				if _, err := v.Verify(context.Background(), gh, sampleRequest()); err != nil {
					b.Fatal(err)
				}
			}
			srv.ResetCounts()
			var p paths
			b.ResetTimer()
			for b.Loop() {
				if mode == "cold" {
					gh = clientWith(b, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
				}
				srv.SetTracing(true)
				if _, err := v.Verify(context.Background(), gh, sampleRequest()); err != nil {
					b.Fatal(err)
				}
				p = analyze(srv.Trace(), "SemiAnalysisAI", "InferenceX", strconv.Itoa(samplePR))
			}
			b.StopTimer()
			b.ReportMetric(float64(srv.TotalCalls())/float64(b.N), "api-calls/op")
			b.ReportMetric(float64(srv.Calls("GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"))/float64(b.N), "artifact-downloads/op")
			b.ReportMetric(float64(p.Observed), "depth")
			b.ReportMetric(float64(p.Bound), "bound")
			perOp := float64(b.Elapsed()) / float64(b.N)
			b.ReportMetric(perOp/float64(time.Duration(p.Bound)*benchLatency), "wall/bound")
			if out := os.Getenv("VERDICT_BENCH_TRACE"); out != "" {
				writeTrace(b, out+"."+mode, srv.Trace(), p)
			}
		})
	}
}
