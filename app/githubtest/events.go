package githubtest

import (
	"fmt"
	"strings"
	"time"
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
func (s *Server) User(login, typ string) map[string]any { return s.userJSON(login, typ) }

func (s *Server) eventBase(rs *repoState, action, sender, senderType string) map[string]any {
	id := s.fx.App.InstallationID
	return map[string]any{"action": action, "repository": s.repoJSON(rs.r.FullName, rs.r.DefaultBranch, rs.r.Private),
		"sender": s.userJSON(sender, senderType), "installation": map[string]any{"id": id, "node_id": nodeID("I", id)}}
}

func (s *Server) eventPull(repo string, number int) (*repoState, *Pull) {
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil || rs.pulls[number] == nil {
		panic(fmt.Sprintf("githubtest: no pull request %s#%d", repo, number))
	}
	return rs, rs.pulls[number]
}

func noReactions(url string) map[string]any {
	out := map[string]any{"url": url, "total_count": 0}
	for c := range reactionContents {
		out[c] = 0
	}
	return out
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
	issue["reactions"] = noReactions(issue["url"].(string) + "/reactions")
	api := fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, rs.r.FullName, c.ID)
	ev := s.eventBase(rs, action, sender, senderType)
	ev["issue"] = issue
	ev["comment"] = map[string]any{"id": c.ID, "node_id": nodeID("IC", c.ID), "url": api, "body": c.Body,
		"html_url":  fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", rs.r.FullName, number, c.ID),
		"issue_url": issue["url"], "user": s.userJSON(c.User, c.UserType), "author_association": c.Association,
		"created_at": iso(c.CreatedAt), "updated_at": iso(c.UpdatedAt), "performed_via_github_app": nil,
		"reactions": noReactions(api + "/reactions")}
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
	ev := s.eventBase(rs, action, sender, "")
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
	ev := s.eventBase(rs, action, sender, "")
	ev["pull_request"] = s.pullJSON(rs, pr)
	review := s.reviewJSON(rs, pr, &Review{ID: rv.ID, User: rv.User, Body: rv.Body, State: rv.State, Association: rv.Association,
		Commit: pr.Head.Commit, SubmittedAt: rv.SubmittedAt})
	ev["review"] = review
	if action == "edited" {
		// GitHub sends what the edit changed; a body edit names the old body.
		ev["changes"] = map[string]any{"body": map[string]any{"from": rv.PreviousBody}}
	}
	return ev
}
