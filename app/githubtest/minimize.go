package githubtest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// classifiers are the reasons GitHub accepts for hiding a comment
// (ReportedContentClassifiers).
var classifiers = map[string]bool{"SPAM": true, "ABUSE": true, "OFF_TOPIC": true, "OUTDATED": true,
	"DUPLICATE": true, "RESOLVED": true}

// isMutation reports whether a GraphQL document is a mutation.
func isMutation(doc string) bool {
	return strings.HasPrefix(strings.TrimSpace(doc), "mutation")
}

// mutate answers minimizeComment and unminimizeComment on a conversation
// comment: hiding records the classifier, showing clears it; both are
// idempotent, as on GitHub.
func (s *Server) mutate(w http.ResponseWriter, doc string, vars map[string]any) {
	input, _ := vars["input"].(map[string]any)
	id, _ := input["subjectId"].(string)
	field, result, hide := "minimizeComment", "minimizedComment", true
	switch {
	case strings.Contains(doc, "unminimizeComment("):
		field, result, hide = "unminimizeComment", "unminimizedComment", false
	case strings.Contains(doc, "minimizeComment("):
	default:
		graphqlError(w, "", "the fake GitHub answers only the (un)minimizeComment mutations")
		return
	}
	classifier, _ := input["classifier"].(string)
	if hide && !classifiers[classifier] {
		graphqlError(w, "INVALID", "Argument 'classifier' on InputObject 'MinimizeCommentInput' has an invalid value ("+classifier+").")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.commentByNode(id)
	if cs == nil {
		ghjson.Write(w, http.StatusOK, map[string]any{"data": map[string]any{field: nil},
			"errors": []any{map[string]any{"type": "NOT_FOUND", "path": []string{field},
				"message": "Could not resolve to a node with the global id of '" + id + "'."}}})
		return
	}
	cs.minimized = ""
	if hide {
		cs.minimized = classifier
	}
	s.tick()
	ghjson.Write(w, http.StatusOK, map[string]any{"data": map[string]any{field: map[string]any{
		result: map[string]any{"isMinimized": hide}}}})
}

// commentByNode is the live conversation comment a node ID names (nil
// when none).
func (s *Server) commentByNode(id string) *commentState {
	kind, n, ok := ghjson.ParseNodeID(id)
	if !ok || kind != "IC" {
		return nil
	}
	if cs := s.comments[n]; cs != nil && !cs.deleted {
		return cs
	}
	return nil
}

// Minimized reports why the conversation comment id is hidden ("" when it
// is shown).
func (s *Server) Minimized(id int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs := s.comments[id]; cs != nil {
		return cs.minimized
	}
	return ""
}

// graphQLMutation reports whether a GraphQL request body sends a mutation.
func graphQLMutation(body []byte) bool {
	var in struct {
		Query string `json:"query"`
	}
	return json.Unmarshal(body, &in) == nil && isMutation(in.Query)
}
