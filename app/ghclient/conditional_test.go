package ghclient

import (
	"context"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/metrics"
)

// TestConditionalRequests: a repeated GET names the ETag it holds; an
// unchanged answer comes back 304 (not counted against the rate limit) and
// is handed on as the answer held; a changed one is read afresh.
func TestConditionalRequests(t *testing.T) {
	srv := githubtest.New(t, benchFixture())
	c := tokenClient(t, srv, srv.URL, &sleeps{}, nil)
	ctx := context.Background()
	id := srv.AddComment("acme/bench", 5, fixture.Comment{User: "alice", Body: "first"})
	const endpoint = "/repos/:owner/:repo/issues/comments/:n"
	before := metrics.NotModifiedCount("GET", endpoint)
	for i, tc := range []struct {
		edit        string // body to edit the comment to first, "" for none
		want        string
		notModified int
	}{
		{"", "first", 0},        // first read: a plain 200 with an ETag
		{"", "first", 1},        // unchanged: 304, the held answer
		{"second", "second", 1}, // changed: a fresh 200
		{"", "second", 2},       // unchanged again: 304 for the new answer
	} {
		if tc.edit != "" {
			srv.EditComment(id, tc.edit)
		}
		ic, resp, err := c.Issues.GetComment(ctx, "acme", "bench", id)
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if ic.GetBody() != tc.want || resp.StatusCode != 200 {
			t.Errorf("read %d: %d %q, want 200 %q", i, resp.StatusCode, ic.GetBody(), tc.want)
		}
		if n := srv.NotModifiedCalls(); n != tc.notModified {
			t.Errorf("read %d: %d answers were 304, want %d", i, n, tc.notModified)
		}
	}
	if got := metrics.NotModifiedCount("GET", endpoint) - before; got != 2 {
		t.Errorf("verdict_github_api_not_modified_total rose by %v, want 2", got)
	}
}
