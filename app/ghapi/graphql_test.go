package ghapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/retry"
)

// baseAndHead is repository acme/bench with commits base (on main) and
// head, for PRs to be added to.
func baseAndHead() (*fixture.Fixture, *fixture.Repo) {
	fx := fixture.New("verdict")
	fx.Tree("base").Put("README.md", "x\n")
	fx.Tree("head").From("base").Put("a.yaml", "a: 1\n")
	r := fx.Repo("acme/bench")
	r.Commit("base", "base")
	r.Commit("head", "head")
	r.Branch("main", "base")
	return fx, r
}

func TestLastEdit(t *testing.T) {
	fx, r := baseAndHead()
	r.Pull(&fixture.Pull{Number: 7, Title: "t", User: "dev", Head: fixture.Ref{Ref: "t", Commit: "head"}})
	srv := githubtest.New(t, fx)
	plain := srv.AddComment("acme/bench", 7, fixture.Comment{User: "owner-a", Body: "a"})
	edited := srv.AddComment("acme/bench", 7, fixture.Comment{User: "owner-a", Body: "a"})
	srv.EditCommentAs(edited, "b", "writer-x")
	mine := srv.AddComment("acme/bench", 7, fixture.Comment{User: "owner-a", Body: "a"})
	srv.EditCommentAs(mine, "b", "writer-x")
	srv.EditComment(mine, "c")
	gone := srv.AddComment("acme/bench", 7, fixture.Comment{User: "owner-a", Body: "a"})
	srv.EditCommentAs(gone, "b", "")

	nodeID := func(id int64) string {
		c, _, err := srv.Client().Issues.GetComment(context.Background(), "acme", "bench", id)
		if err != nil {
			t.Fatal(err)
		}
		return c.GetNodeID()
	}
	for _, ghes := range []bool{false, true} {
		gh := srv.Client()
		if ghes {
			gh.BaseURL, _ = url.Parse(srv.BaseURL() + "api/v3/")
		}
		c := New(gh, ghsource.Options{})
		for _, tt := range []struct {
			id     int64
			editor string
			edited bool
		}{{plain, "", false}, {edited, "writer-x", true}, {mine, "owner-a", true}, {gone, "", true}} {
			editor, at, err := c.LastEdit(context.Background(), nodeID(tt.id))
			if err != nil || editor != tt.editor || at.IsZero() == tt.edited {
				t.Errorf("ghes=%v comment %d: LastEdit = %q, %v, %v; want %q, edited %v", ghes, tt.id, editor, at, err, tt.editor, tt.edited)
			}
		}
		if _, _, err := c.LastEdit(context.Background(), "bm9uZQ"); err == nil || retry.IsTransient(err) {
			t.Errorf("unknown node: err = %v, want a final error", err)
		}
	}

	// A server without GraphQL answers, for good; one that keeps failing is
	// transient.
	c := New(srv.Client(), ghsource.Options{})
	srv.AddFault(githubtest.Fault{Path: "graphql$", Status: 404, Times: 1})
	if _, _, err := c.LastEdit(context.Background(), nodeID(edited)); err == nil || retry.IsTransient(err) {
		t.Errorf("404: err = %v, want a final error", err)
	}
	srv.AddFault(githubtest.Fault{Path: "graphql$", Status: 502})
	gh, err := ghclient.NewToken(srv.BaseURL(), srv.InstallationToken(), ghclient.Options{Retry: ghclient.RetryOptions{BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := New(gh, ghsource.Options{}).LastEdit(context.Background(), nodeID(edited)); !retry.IsTransient(err) {
		t.Errorf("502: err = %v, want transient", err)
	}
}

// A node GitHub answers as null (an ID it does not resolve, or one the
// token may not see) is no evidence that the comment was never edited.
func TestLastEditOfANullNode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"node":null}}`)
	}))
	defer srv.Close()
	gh := github.NewClient(srv.Client())
	gh.BaseURL, _ = url.Parse(srv.URL + "/")
	c := New(gh, ghsource.Options{})
	editor, at, err := c.LastEdit(context.Background(), "IC_kwDOnull")
	if err == nil || retry.IsTransient(err) || !strings.Contains(err.Error(), "null") {
		t.Fatalf("LastEdit of a null node = %q, %v, %v; want a final error", editor, at, err)
	}
}
