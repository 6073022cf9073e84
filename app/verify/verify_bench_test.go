package verify_test

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
)

// BenchmarkVerifySample is one full verification of the shipped sample (an
// agentic PR touching every check, with sweep artifacts and an upstream
// recipe read) against the fake GitHub with 30 ms of latency per API call.
// "cold" starts every verification with an empty evidence cache, "warm"
// shares one, as the App does across re-verifications.
func BenchmarkVerifySample(b *testing.B) {
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			srv := githubtest.New(b, loadSample(b))
			srv.SetLatency(30 * time.Millisecond)
			v := newTestVerifier()
			gh := clientWith(b, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
			if mode == "warm" {
				if _, err := v.Verify(context.Background(), gh, sampleRequest()); err != nil {
					b.Fatal(err)
				}
			}
			srv.ResetCounts()
			b.ResetTimer()
			for b.Loop() {
				if mode == "cold" {
					gh = clientWith(b, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
				}
				if _, err := v.Verify(context.Background(), gh, sampleRequest()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(srv.TotalCalls())/float64(b.N), "api-calls/op")
			b.ReportMetric(float64(srv.Calls("GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"))/float64(b.N), "artifact-downloads/op")
		})
	}
}
