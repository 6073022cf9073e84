package githubtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// The server's state as a test reads it, and the changes people make on
// GitHub outside the App (comments, edits, dismissed reviews).

// Now is the server clock (advanced one second per mutation).
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock
}

// Comments returns the live (not deleted) conversation comments of an
// issue or PR in creation order, reactions included.
func (s *Server) Comments(repo string, number int) []fixture.Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		return nil
	}
	var out []fixture.Comment
	for _, cs := range rs.issueCs[number] {
		if cs.deleted {
			continue
		}
		c := cs.c
		c.Reactions = nil
		for i := range cs.reactions {
			r := cs.reactions[i]
			c.Reactions = append(c.Reactions, &r)
		}
		out = append(out, c)
	}
	return out
}

// AddComment adds a conversation comment as if a user posted it and returns
// its ID. Zero times default to the server clock.
func (s *Server) AddComment(repo string, number int, c fixture.Comment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		panic("githubtest: AddComment: no repo " + repo)
	}
	now := s.tick()
	if c.ID == 0 {
		c.ID = s.newID("comment")
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
	if c.Association == "" {
		c.Association = "NONE"
	}
	cs := &commentState{repo: rs, issue: number, c: c}
	s.comments[c.ID] = cs
	rs.issueCs[number] = append(rs.issueCs[number], cs)
	return c.ID
}

// EditComment changes a comment's body as its author would.
func (s *Server) EditComment(id int64, body string) {
	s.mu.Lock()
	author := ""
	if cs := s.comments[id]; cs != nil {
		author = cs.c.User
	}
	s.mu.Unlock()
	s.EditCommentAs(id, body, author)
}

// EditCommentAs changes a comment's body as editor would (anyone with
// write access can edit others' comments), without sending a webhook.
func (s *Server) EditCommentAs(id int64, body, editor string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comments[id]
	if cs == nil {
		panic(fmt.Sprintf("githubtest: EditComment: no comment %d", id))
	}
	cs.c.Body, cs.c.UpdatedAt = body, s.tick()
	cs.c.Edits = append(cs.c.Edits, fixture.Edit{Editor: editor, At: cs.c.UpdatedAt})
}

// EditReview changes a review's summary as editor would.
func (s *Server) EditReview(id int64, body, editor string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.findReview(id)
	if rv == nil {
		panic(fmt.Sprintf("githubtest: EditReview: no review %d", id))
	}
	rv.Body = body
	rv.Edits = append(rv.Edits, fixture.Edit{Editor: editor, At: s.tick()})
}

// DismissReview dismisses a review, as a maintainer would.
func (s *Server) DismissReview(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.findReview(id)
	if rv == nil {
		panic(fmt.Sprintf("githubtest: DismissReview: no review %d", id))
	}
	rv.State = "DISMISSED"
	s.tick()
}

// Statuses returns the commit statuses on sha (name or SHA), newest first.
func (s *Server) Statuses(repo, sha string) []github.RepoStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		return nil
	}
	var out []github.RepoStatus
	list := rs.statuses[rs.r.ResolveSHA(sha)]
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, *list[i])
	}
	return out
}

// CheckRuns returns the check runs on sha (name or SHA), fixture ones first.
func (s *Server) CheckRuns(repo, sha string) []github.CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		return nil
	}
	var out []github.CheckRun
	for _, cr := range rs.checkRuns[rs.r.ResolveSHA(sha)] {
		out = append(out, *cr)
	}
	return out
}
