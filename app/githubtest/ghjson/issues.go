package ghjson

import (
	"fmt"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true,
	"heart": true, "hooray": true, "rocket": true, "eyes": true}

// IsReaction reports whether content is one of GitHub's reactions.
func IsReaction(content string) bool { return reactionContents[content] }

// Comment is the issue-comment object of comment c on issue (or pull
// request) number issue, with its reactions.
func (s Site) Comment(r *fixture.Repo, issue int, c fixture.Comment, reactions []fixture.Reaction) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, r.FullName, c.ID)
	return map[string]any{"id": c.ID, "node_id": NodeID("IC", c.ID), "body": c.Body, "user": s.User(c.User, c.UserType),
		"author_association": c.Association, "created_at": ISO(c.CreatedAt), "updated_at": ISO(c.UpdatedAt),
		"html_url":  fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", r.FullName, issue, c.ID),
		"url":       api,
		"issue_url": fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, r.FullName, issue),
		"reactions": rollup(api+"/reactions", reactions)}
}

// NoReactions is the reaction rollup at url of something nobody reacted to.
func NoReactions(url string) map[string]any { return rollup(url, nil) }

// rollup is the reaction rollup at url of reactions: a count per content.
func rollup(url string, reactions []fixture.Reaction) map[string]any {
	out := map[string]any{"url": url, "total_count": len(reactions)}
	for c := range reactionContents {
		out[c] = 0
	}
	for _, r := range reactions {
		out[r.Content] = out[r.Content].(int) + 1
	}
	return out
}

// Reaction is a reaction object; at is the time it is shown with.
func (s Site) Reaction(rc fixture.Reaction, at time.Time) map[string]any {
	return map[string]any{"id": rc.ID, "node_id": NodeID("RE", rc.ID), "user": s.User(rc.User, ""), "content": rc.Content,
		"created_at": ISO(at)}
}

// PlainIssue is the issue object of an issue that is not a pull request:
// no pull_request key, and the reason it is in its state.
func (s Site) PlainIssue(r *fixture.Repo, is *fixture.Issue, comments int) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, r.FullName, is.Number)
	id := int64(1700000000 + is.Number)
	var reason any
	if is.StateReason != "" {
		reason = is.StateReason
	}
	return map[string]any{"id": id, "node_id": NodeID("I", id), "url": api, "repository_url": s.URL + "/repos/" + r.FullName,
		"labels_url": api + "/labels{/name}", "comments_url": api + "/comments", "events_url": api + "/events",
		"html_url": fmt.Sprintf("https://github.com/%s/issues/%d", r.FullName, is.Number), "number": is.Number,
		"state": is.State, "state_reason": reason, "title": is.Title, "body": is.Body, "user": s.User(is.User, ""),
		"labels": s.Labels(r, is.Labels), "assignee": nil, "assignees": []any{}, "milestone": nil, "locked": false,
		"active_lock_reason": nil, "comments": comments, "closed_at": ISO(is.ClosedAt), "created_at": ISO(is.CreatedAt),
		"updated_at": ISO(is.UpdatedAt), "author_association": r.Association(is.User)}
}
