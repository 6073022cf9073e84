package verify_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// TestReverificationReadsOnlyWhatCanChange: a cold verification reads no
// repository (the PR names its default branch) and does not re-read the
// sign-off its listing returned; re-verifying the unchanged PR with the
// caches of the first asks GitHub only about what can change, and GitHub
// answers every REST one of those 304.
func TestReverificationReadsOnlyWhatCanChange(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	v := newTestVerifier()
	gh := clientWith(t, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
	if _, err := v.Verify(context.Background(), gh, sampleRequest()); err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{
		"GET /repos/{owner}/{repo}",
		"GET /repos/{owner}/{repo}/pulls/{number}/reviews/{id}",
		"GET /repos/{owner}/{repo}/issues/comments/{id}",
		"GET /repos/{owner}/{repo}/pulls/comments/{id}",
	} {
		if n := srv.Calls(route); n != 0 {
			t.Errorf("cold: %d × %s", n, route)
		}
	}
	srv.ResetCounts()
	if _, err := v.Verify(context.Background(), gh, sampleRequest()); err != nil {
		t.Fatal(err)
	}
	// The sample's sign-off is a review, whose REST object shows no edit
	// time: without a ledger remembering its authentic version, whether it
	// was edited is asked of GraphQL, which has no conditional requests.
	// Every REST read is answered 304.
	history := srv.Calls("POST /graphql")
	if history > 1 {
		t.Errorf("warm: %d edit-history queries; want at most the sign-off's one", history)
	}
	if counted := srv.TotalCalls() - srv.NotModifiedCalls() - history; counted != 0 {
		t.Errorf("warm: %d REST requests counted against the rate limit (of %d); want every one answered 304: %v",
			counted, srv.TotalCalls(), srv.URICallCounts())
	}
	if srv.NotModifiedCalls() == 0 {
		t.Error("warm: no conditional request was made")
	}
}

// TestColdVerificationReadsEachThingOnce: reads go out as soon as their
// inputs are known, some before the check that needs them runs (the
// configuration and the layout marker at the default branch's name, the
// git trees, the benchmark artifacts), and none of them twice: every
// request of a cold verification of either sample is made once, but for
// the PR, read first, when the scope is decided and after the evidence.
// What is read ahead at the branch answers the reads at its tip.
func TestColdVerificationReadsEachThingOnce(t *testing.T) {
	for _, name := range []string{"sample-e2e-agentic", "sample-legacy-agentic"} {
		t.Run(name, func(t *testing.T) {
			fx, err := fixture.Load(filepath.Join("..", "..", "testdata", "fixtures", name))
			if err != nil {
				t.Fatal(err)
			}
			srv := githubtest.New(t, fx)
			gh := clientWith(t, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20)})
			if _, err := newTestVerifier().Verify(context.Background(), gh, sampleRequest()); err != nil {
				t.Fatal(err)
			}
			pr := "GET /repos/SemiAnalysisAI/InferenceX/pulls/3412"
			for uri, n := range srv.URICallCounts() {
				if want := map[bool]int{true: 3, false: 1}[uri == pr]; n != want {
					t.Errorf("%d × %s, want %d", n, uri, want)
				}
				if strings.Contains(uri, "/contents/.github/verdict.yml?ref=") && !strings.HasSuffix(uri, "?ref=main") {
					t.Errorf("%s: the configuration read ahead at the branch should answer this", uri)
				}
			}
			storage := srv.Calls("GET /_blob/{owner}/{repo}/artifacts/{file}")
			if calls := srv.TotalCalls() - srv.NotModifiedCalls() - storage; calls > 40 {
				t.Errorf("%d API calls, want at most 40", calls)
			}
			if storage != 7 {
				t.Errorf("%d archives downloaded, want the run's 7", storage)
			}
		})
	}
}
