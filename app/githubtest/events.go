package githubtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// Webhook deliveries as GitHub sends them, built from the server's own
// objects so that they carry every field GitHub's webhooks description
// requires. Tests post them to the App; the contract tests check them.

// EventComment is the comment of an issue_comment delivery.
type EventComment struct {
	ID             int64
	Body           string
	User, UserType string // UserType "User" (default) or "Bot"
	Association    string // default NONE
	UpdatedAt      time.Time
	PreviousBody   string // for "edited": changes.body.from
	CreatedAt      time.Time
}

// EventReview is the review of a pull_request_review delivery.
type EventReview struct {
	ID          int64
	Body        string
	User        string
	State       string // default commented
	Association string
	SubmittedAt time.Time
	// PreviousBody is, for "edited", changes.body.from.
	PreviousBody string
}

// User is GitHub's user object for login (typ "User", "Bot" or
// "Organization"; "" guesses from the login).
func (s *Server) User(login, typ string) map[string]any { return s.site.User(login, typ) }

func (s *Server) eventPull(repo string, number int) (*repoState, *fixture.Pull) {
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil || rs.pulls[number] == nil {
		panic(fmt.Sprintf("githubtest: no pull request %s#%d", repo, number))
	}
	return rs, rs.pulls[number]
}

// IssueCommentEvent is an issue_comment delivery for a comment on the pull
// request repo#number.
func (s *Server) IssueCommentEvent(action, repo string, number int, c EventComment, sender, senderType string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.eventPull(repo, number)
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = s.clock
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = c.UpdatedAt
	}
	if c.Association == "" {
		c.Association = "NONE"
	}
	issue := s.issueJSON(rs, pr)
	issue["reactions"] = ghjson.NoReactions(issue["url"].(string) + "/reactions")
	api := fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, rs.r.FullName, c.ID)
	ev := s.site.Event(rs.r, action, sender, senderType)
	ev["issue"] = issue
	ev["comment"] = map[string]any{"id": c.ID, "node_id": ghjson.NodeID("IC", c.ID), "url": api, "body": c.Body,
		"html_url":  fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", rs.r.FullName, number, c.ID),
		"issue_url": issue["url"], "user": s.site.User(c.User, c.UserType), "author_association": c.Association,
		"created_at": ghjson.ISO(c.CreatedAt), "updated_at": ghjson.ISO(c.UpdatedAt), "performed_via_github_app": nil,
		"reactions": ghjson.NoReactions(api + "/reactions")}
	if action == "edited" {
		ev["changes"] = map[string]any{"body": map[string]any{"from": c.PreviousBody}}
	}
	return ev
}

// PullRequestEvent is a pull_request delivery for repo#number as the
// server holds it.
func (s *Server) PullRequestEvent(action, repo string, number int, sender string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.eventPull(repo, number)
	ev := s.site.Event(rs.r, action, sender, "")
	ev["number"] = number
	ev["pull_request"] = s.pullJSON(rs, pr)
	return ev
}

// PullRequestReviewEvent is a pull_request_review delivery for a review of
// repo#number.
func (s *Server) PullRequestReviewEvent(action, repo string, number int, rv EventReview, sender string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.eventPull(repo, number)
	if rv.State == "" {
		rv.State = "commented"
	}
	if rv.Association == "" {
		rv.Association = "NONE"
	}
	if rv.SubmittedAt.IsZero() {
		rv.SubmittedAt = s.clock
	}
	ev := s.site.Event(rs.r, action, sender, "")
	ev["pull_request"] = s.pullJSON(rs, pr)
	review := s.site.Review(rs.r, pr, &fixture.Review{ID: rv.ID, User: rv.User, Body: rv.Body, State: rv.State, Association: rv.Association,
		Commit: pr.Head.Commit, SubmittedAt: rv.SubmittedAt})
	ev["review"] = review
	if action == "edited" {
		// GitHub sends what the edit changed; a body edit names the old body.
		ev["changes"] = map[string]any{"body": map[string]any{"from": rv.PreviousBody}}
	}
	return ev
}
