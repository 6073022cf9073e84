package githubtest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// The GraphQL endpoint answers what Verdict sends: a comment's or review's
// edit history by node ID (node(id:) ... on Comment { lastEditedAt editor {
// login } userContentEdits { nodes { editor { login } editedAt } } }), which
// of many commits have check runs (commitchecks.go), and
// the minimizeComment and unminimizeComment mutations on a conversation
// comment, in GitHub's shape. Anything else is answered with a GraphQL
// error, as GitHub answers a query it cannot parse.

func init() {
	handle("POST", "/graphql", (*Server).graphql)
	// GitHub Enterprise Server serves GraphQL beside /api/v3.
	handle("POST", "/api/graphql", (*Server).graphql)
}

func graphqlError(w http.ResponseWriter, typ, msg string) {
	e := map[string]any{"message": msg}
	if typ != "" {
		e["type"] = typ
	}
	ghjson.Write(w, http.StatusOK, map[string]any{"data": nil, "errors": []any{e}})
}

func (s *Server) graphql(w http.ResponseWriter, r *http.Request, _ params) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		ghjson.Write(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	if isMutation(in.Query) {
		s.mutate(w, in.Query, in.Variables)
		return
	}
	if isCommitChecksQuery(in.Query) {
		s.commitChecks(w, in.Query, in.Variables)
		return
	}
	if !strings.Contains(in.Query, "node(id: $id)") || !strings.Contains(in.Query, "userContentEdits") {
		graphqlError(w, "", "the fake GitHub answers only the edit-history query, the commits' check suites query and the (un)minimizeComment mutations")
		return
	}
	id, _ := in.Variables["id"].(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	author, created, edits, ok := s.editsOf(id)
	if !ok {
		ghjson.Write(w, http.StatusOK, map[string]any{"data": map[string]any{"node": nil},
			"errors": []any{map[string]any{"type": "NOT_FOUND", "path": []string{"node"},
				"message": "Could not resolve to a node with the global id of '" + id + "'."}}})
		return
	}
	node := map[string]any{"lastEditedAt": nil, "editor": nil, "userContentEdits": map[string]any{"nodes": []any{}}}
	if len(edits) > 0 {
		// Newest first, ending with the original version, as GitHub lists
		// them once a comment has been edited.
		all := append([]fixture.Edit{{Editor: author, At: created}}, edits...)
		sort.SliceStable(all, func(i, j int) bool { return all[i].At.After(all[j].At) })
		nodes := []any{}
		for _, e := range all {
			nodes = append(nodes, map[string]any{"editor": actorJSON(e.Editor), "editedAt": ghjson.ISO(e.At)})
		}
		node["lastEditedAt"] = ghjson.ISO(all[0].At)
		node["editor"] = actorJSON(all[0].Editor)
		node["userContentEdits"] = map[string]any{"nodes": nodes}
	}
	ghjson.Write(w, http.StatusOK, map[string]any{"data": map[string]any{"node": node}})
}

func actorJSON(login string) any {
	if login == "" {
		return nil // a deleted account
	}
	return map[string]any{"login": login}
}

// editsOf finds the object a node ID names and its edits. A comment whose
// fixture shows an update but records no edits was edited by its author.
func (s *Server) editsOf(id string) (author string, created time.Time, edits []fixture.Edit, ok bool) {
	kind, n, ok := ghjson.ParseNodeID(id)
	if !ok {
		return "", time.Time{}, nil, false
	}
	byAuthor := func(author string, created, updated time.Time, edits []fixture.Edit) []fixture.Edit {
		if len(edits) == 0 && updated.After(created) {
			return []fixture.Edit{{Editor: author, At: updated}}
		}
		return edits
	}
	switch kind {
	case "IC":
		if cs := s.comments[n]; cs != nil && !cs.deleted {
			return cs.c.User, cs.c.CreatedAt, byAuthor(cs.c.User, cs.c.CreatedAt, cs.c.UpdatedAt, cs.c.Edits), true
		}
	case "PRRC":
		if ref := s.reviewCs[n]; ref != nil {
			c := ref.c
			return c.User, c.CreatedAt, byAuthor(c.User, c.CreatedAt, c.UpdatedAt, c.Edits), true
		}
	case "PRR":
		if rv := s.findReview(n); rv != nil {
			return rv.User, rv.SubmittedAt, rv.Edits, true
		}
	}
	return "", time.Time{}, nil, false
}

func (s *Server) findReview(id int64) *fixture.Review {
	for _, rs := range s.repos {
		for _, p := range rs.pulls {
			for _, rv := range p.Reviews {
				if rv.ID == id {
					return rv
				}
			}
		}
	}
	return nil
}
