package verify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/checks"
)

// A 1,000-commit PR whose sweep ran on its 999th commit (beyond the 250
// GitHub's PR commit list shows) and whose head moved on after: Check 1
// finds the sweep through the paginated comparison of base and head, and
// the verdict is the sample's PASS.
func TestThousandCommitPR(t *testing.T) {
	for _, tt := range []struct {
		name string
		// oldest puts the sweep's commit first of the thousand.
		oldest   bool
		maxCalls int
	}{
		{"sweep on the 999th commit", false, 80},
		{"sweep on the oldest commit", true, 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := loadSample(t)
			r := fx.Repo("SemiAnalysisAI/InferenceX")
			var commits []string
			for i := 0; i < 998; i++ {
				commits = append(commits, r.Commit(fmt.Sprintf("old%04d", i), ""))
			}
			tip := r.Commit("tip", "head")
			sweep := fx.SHA("SemiAnalysisAI/InferenceX", "head")
			for _, p := range r.Pulls {
				if p.Number == samplePR {
					p.Commits = append(commits, sweep, tip)
					if tt.oldest {
						p.Commits = append(append([]string{sweep}, commits...), tip)
					}
					p.Head.Commit = "tip"
				}
			}
			r.Branch("amd/qwen35-agentic-v0521", "tip")
			srv := githubtest.New(t, fx)
			out, err := newTestVerifier().Verify(context.Background(), client(t, srv), sampleRequest())
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range out.Verdict.Rows {
				if row.Number == 1 && (row.Result.Status != checks.Pass || strings.Contains(row.Result.Reason.EN, "capped")) {
					t.Errorf("Check 1: %s — %s", row.Result.Status, row.Result.Reason.EN)
				}
			}
			if n := srv.Calls("GET /repos/{owner}/{repo}/compare/{basehead...}"); n != 10 {
				t.Errorf("%d comparison pages, want 10", n)
			}
			runs := srv.Calls("GET /repos/{owner}/{repo}/commits/{ref}/check-runs")
			if n := srv.TotalCalls(); n > tt.maxCalls {
				t.Errorf("%d API calls (%d check-run reads), want at most %d", n, runs, tt.maxCalls)
			}
			t.Logf("verdict %s with %d API calls, %d of them check-run reads, %d GraphQL", out.Verdict.Overall, srv.TotalCalls(), runs, srv.Calls("POST /graphql"))
		})
	}
}
