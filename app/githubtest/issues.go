package githubtest

import (
	"net/http"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

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

// comment finds a live comment of the repository in p.
func (s *Server) comment(w http.ResponseWriter, p params) *commentState {
	rs := s.repo(w, p)
	if rs == nil {
		return nil
	}
	cs := s.comments[p.int64("id")]
	if cs == nil || cs.deleted || cs.repo != rs {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
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
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
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
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: body is missing")
		return
	}
	now := s.tick()
	login, typ := actor(r)
	cs := &commentState{repo: rs, issue: pr.Number, c: fixture.Comment{ID: s.newID("comment"), User: login, UserType: typ,
		Association: rs.r.Association(login), Body: *in.Body, CreatedAt: now, UpdatedAt: now}}
	s.comments[cs.c.ID] = cs
	rs.issueCs[pr.Number] = append(rs.issueCs[pr.Number], cs)
	ghjson.Write(w, http.StatusCreated, s.commentJSON(cs))
}

func (s *Server) getComment(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs := s.comment(w, p); cs != nil {
		ghjson.Write(w, http.StatusOK, s.commentJSON(cs))
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
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: body is missing")
		return
	}
	login, _ := actor(r)
	cs.c.Body, cs.c.UpdatedAt = *in.Body, s.tick()
	cs.c.Edits = append(cs.c.Edits, fixture.Edit{Editor: login, At: cs.c.UpdatedAt})
	ghjson.Write(w, http.StatusOK, s.commentJSON(cs))
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
			out = append(out, s.site.Reaction(rc, s.clock))
		}
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
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
	if !ghjson.IsReaction(in.Content) {
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: content is not a valid reaction")
		return
	}
	// GitHub answers 200 with the existing reaction when it already exists.
	login, _ := actor(r)
	for _, rc := range cs.reactions {
		if strings.EqualFold(rc.User, login) && rc.Content == in.Content {
			ghjson.Write(w, http.StatusOK, s.site.Reaction(rc, s.clock))
			return
		}
	}
	s.tick()
	rc := fixture.Reaction{ID: s.newID("reaction"), User: login, Content: in.Content}
	cs.reactions = append(cs.reactions, rc)
	ghjson.Write(w, http.StatusCreated, s.site.Reaction(rc, s.clock))
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
	ghjson.Error(w, http.StatusNotFound, "Not Found")
}
