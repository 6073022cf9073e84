package ghclient

import (
	"context"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
)

// Every attempt under a counting context is counted, retries included;
// requests outside it are not.
func TestCountCalls(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	c := tokenClient(t, srv, srv.URL, &sleeps{}, nil)
	srv.AddFault(githubtest.Fault{Path: `/pulls/5$`, Status: 502, Times: 1})
	ctx, calls := CountCalls(context.Background())
	if _, _, err := c.PullRequests.Get(ctx, "acme", "bench", 5); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Repositories.Get(ctx, "acme", "bench"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Repositories.Get(context.Background(), "acme", "bench"); err != nil {
		t.Fatal(err)
	}
	if got := calls.Count(); got != 3 {
		t.Errorf("counted %d calls, want 3 (a retried GET and one more)", got)
	}
}
