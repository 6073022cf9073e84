package githubtest

import (
	"fmt"
	"net/http"
	"strings"
)

var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true,
	"heart": true, "hooray": true, "rocket": true, "eyes": true}

func init() {
	handle("GET", "/repos/{owner}/{repo}/issues/{number}/comments", (*Server).listComments)
	handle("POST", "/repos/{owner}/{repo}/issues/{number}/comments", (*Server).createComment)
	handle("GET", "/repos/{owner}/{repo}/issues/comments/{id}", (*Server).getComment)
	handle("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", (*Server).editComment)
	handle("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}", (*Server).deleteComment)
	handle("GET", "/repos/{owner}/{repo}/issues/comments/{id}/reactions", (*Server).listReactions)
	handle("POST", "/repos/{owner}/{repo}/issues/comments/{id}/reactions", (*Server).createReaction)
	handle("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}/reactions/{rid}", (*Server).deleteReaction)
}

// association is how GitHub relates a comment's author to the repository.
func association(rs *repoState, login string) string {
	for l, perm := range rs.r.Collaborators {
		if strings.EqualFold(l, login) {
			if perm.Permission == "admin" {
				return "MEMBER"
			}
			return "COLLABORATOR"
		}
	}
	return "NONE"
}

func (s *Server) commentJSON(cs *commentState) map[string]any {
	rs, c := cs.repo, cs.c
	api := fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, rs.r.FullName, c.ID)
	return map[string]any{"id": c.ID, "node_id": nodeID("IC", c.ID), "body": c.Body, "user": s.userJSON(c.User, c.UserType),
		"author_association": c.Association, "created_at": iso(c.CreatedAt), "updated_at": iso(c.UpdatedAt),
		"html_url":  fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", rs.r.FullName, cs.issue, c.ID),
		"url":       api,
		"issue_url": fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, rs.r.FullName, cs.issue),
		"reactions": s.reactionsJSON(cs)}
}

// comment finds a live comment of the repository in p.
func (s *Server) comment(w http.ResponseWriter, p params) *commentState {
	rs := s.repo(w, p)
	if rs == nil {
		return nil
	}
	cs := s.comments[p.int64("id")]
	if cs == nil || cs.deleted || cs.repo != rs {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil
	}
	return cs
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := []map[string]any{}
	for _, cs := range rs.issueCs[pr.Number] {
		if !cs.deleted {
			out = append(out, s.commentJSON(cs))
		}
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

type commentBody struct {
	Body *string `json:"body"`
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	var in commentBody
	if !decodeBody(w, r, &in) {
		return
	}
	if in.Body == nil || *in.Body == "" {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: body is missing")
		return
	}
	now := s.tick()
	login, typ := actor(r)
	cs := &commentState{repo: rs, issue: pr.Number, c: Comment{ID: s.newID("comment"), User: login, UserType: typ,
		Association: association(rs, login), Body: *in.Body, CreatedAt: now, UpdatedAt: now}}
	s.comments[cs.c.ID] = cs
	rs.issueCs[pr.Number] = append(rs.issueCs[pr.Number], cs)
	writeJSON(w, http.StatusCreated, s.commentJSON(cs))
}

func (s *Server) getComment(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs := s.comment(w, p); cs != nil {
		writeJSON(w, http.StatusOK, s.commentJSON(cs))
	}
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comment(w, p)
	if cs == nil {
		return
	}
	var in commentBody
	if !decodeBody(w, r, &in) {
		return
	}
	if in.Body == nil {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: body is missing")
		return
	}
	login, _ := actor(r)
	cs.c.Body, cs.c.UpdatedAt = *in.Body, s.tick()
	cs.c.Edits = append(cs.c.Edits, Edit{Editor: login, At: cs.c.UpdatedAt})
	writeJSON(w, http.StatusOK, s.commentJSON(cs))
}

func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comment(w, p)
	if cs == nil {
		return
	}
	cs.deleted = true
	s.tick()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) reactionJSON(rc Reaction) map[string]any {
	return map[string]any{"id": rc.ID, "node_id": nodeID("RE", rc.ID), "user": s.userJSON(rc.User, ""), "content": rc.Content,
		"created_at": iso(s.clock)}
}

func (s *Server) listReactions(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comment(w, p)
	if cs == nil {
		return
	}
	want := r.URL.Query().Get("content")
	out := []map[string]any{}
	for _, rc := range cs.reactions {
		if want == "" || rc.Content == want {
			out = append(out, s.reactionJSON(rc))
		}
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) createReaction(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comment(w, p)
	if cs == nil {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	if !reactionContents[in.Content] {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: content is not a valid reaction")
		return
	}
	// GitHub answers 200 with the existing reaction when it already exists.
	login, _ := actor(r)
	for _, rc := range cs.reactions {
		if strings.EqualFold(rc.User, login) && rc.Content == in.Content {
			writeJSON(w, http.StatusOK, s.reactionJSON(rc))
			return
		}
	}
	s.tick()
	rc := Reaction{ID: s.newID("reaction"), User: login, Content: in.Content}
	cs.reactions = append(cs.reactions, rc)
	writeJSON(w, http.StatusCreated, s.reactionJSON(rc))
}

func (s *Server) deleteReaction(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comment(w, p)
	if cs == nil {
		return
	}
	for i, rc := range cs.reactions {
		if rc.ID == p.int64("rid") {
			cs.reactions = append(cs.reactions[:i], cs.reactions[i+1:]...)
			s.tick()
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}
