package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/shurcooL/githubv4"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/retry"
)

func newGraphQL(gh *github.Client) *githubv4.Client {
	hc := gh.Client()
	base := http.DefaultTransport
	if hc != nil && hc.Transport != nil {
		base = hc.Transport
	}
	return githubv4.NewEnterpriseClient(ghclient.GraphQLURL(gh.BaseURL.String()), &http.Client{Transport: transientStatus{base}})
}

// transientStatus marks what the retrying transport could not get past (a
// network failure, 5xx, 429, a rate limit) as transient, so a verification
// waits for GitHub instead of judging without the edit history. Any other
// refusal (no GraphQL on this server, 401, 404) is the server's answer.
type transientStatus struct{ rt http.RoundTripper }

func (t transientStatus) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, retry.Transient(fmt.Errorf("GraphQL request: %w", err))
	}
	limited := resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-RateLimit-Remaining") == "0"
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || limited {
		resp.Body.Close()
		return nil, retry.Transient(fmt.Errorf("GraphQL request: %s", resp.Status))
	}
	return resp, nil
}

// editHistory is the part of a comment's or review's GraphQL object that
// says who edited it.
type editHistory struct {
	// Node is a pointer so that null (an ID GitHub does not resolve, or
	// one the token may not see) is told apart from a comment never edited.
	Node *struct {
		Comment struct {
			LastEditedAt *githubv4.DateTime
			Editor       *struct{ Login githubv4.String }
			// GitHub keeps at most a few edits per comment in practice;
			// 100 is the connection's page maximum.
			UserContentEdits struct {
				Nodes []struct {
					Editor   *struct{ Login githubv4.String }
					EditedAt githubv4.DateTime
				}
			} `graphql:"userContentEdits(first: 100)"`
		} `graphql:"... on Comment"`
	} `graphql:"node(id: $id)"`
}

// LastEdit names who made the current version of a comment or review (its
// GraphQL node ID) and when, from its userContentEdits: the zero time when
// it was never edited, an empty login when the editor's account is gone.
func (c *Client) LastEdit(ctx context.Context, nodeID string) (string, time.Time, error) {
	var q editHistory
	// A query reads; sending it twice changes nothing.
	err := c.graphql.Query(ghclient.Repeatable(ctx), &q, map[string]any{"id": githubv4.ID(nodeID)})
	if err != nil {
		if retry.IsTransient(err) {
			return "", time.Time{}, err
		}
		return "", time.Time{}, fmt.Errorf("reading the edit history of %s over GraphQL: %w", nodeID, err)
	}
	if q.Node == nil {
		return "", time.Time{}, fmt.Errorf("reading the edit history of %s over GraphQL: the node is null (not found or not visible)", nodeID)
	}
	cm := q.Node.Comment
	if cm.LastEditedAt == nil {
		return "", time.Time{}, nil
	}
	var editor string
	at := cm.LastEditedAt.Time
	newest := time.Time{}
	for _, e := range cm.UserContentEdits.Nodes {
		if e.EditedAt.After(newest) {
			newest = e.EditedAt.Time
			editor = ""
			if e.Editor != nil {
				editor = string(e.Editor.Login)
			}
		}
	}
	if newest.IsZero() || len(cm.UserContentEdits.Nodes) == 100 {
		// No history, or perhaps not all of it: the comment's own editor
		// field names the last one.
		editor = ""
		if cm.Editor != nil {
			editor = string(cm.Editor.Login)
		}
	} else {
		at = newest
	}
	return editor, at, nil
}
