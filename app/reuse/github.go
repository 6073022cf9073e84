package reuse

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/app/render"
)

// clearReactions removes the bot's own 👍 and 👎 from the command comment.
// Other people's reactions and the bot's other reactions stay.
func (r *ack) clearReactions(ctx context.Context) error {
	var mine []int64
	for page := 0; ; {
		rs, next, err := r.gh.IssueCommentReactions(ctx, r.owner, r.repo, r.job.CommentID, page)
		if notFound(err) {
			return nil // the comment is gone, and its reactions with it
		}
		if err != nil {
			return apiError(fmt.Sprintf("listing reactions on comment %d", r.job.CommentID), err)
		}
		for _, x := range rs {
			if c := x.GetContent(); (c == "+1" || c == "-1") && r.isBot(x.GetUser().GetLogin()) {
				mine = append(mine, x.GetID())
			}
		}
		if next == 0 {
			break
		}
		page = next
	}
	for _, id := range mine {
		err := r.gh.DeleteIssueCommentReaction(ctx, r.owner, r.repo, r.job.CommentID, id)
		if err != nil && !notFound(err) {
			return apiError(fmt.Sprintf("removing reaction %d from comment %d", id, r.job.CommentID), err)
		}
	}
	return nil
}

func (r *ack) react(ctx context.Context, content string) error {
	err := r.gh.CreateIssueCommentReaction(ctx, r.owner, r.repo, r.job.CommentID, content)
	if err != nil {
		return apiError(fmt.Sprintf("reacting %s to comment %d", content, r.job.CommentID), err)
	}
	return nil
}

// replies finds the bot's replies to this command comment: authored by the
// bot AND starting with the marker, so a marker pasted by someone else is
// never touched.
func (r *ack) replies(ctx context.Context) ([]*replyRef, error) {
	comments, err := r.comments(ctx)
	if err != nil {
		return nil, err
	}
	marker := render.ReplyMarker(r.job.CommentID)
	var out []*replyRef
	for _, c := range comments {
		if r.isBot(c.Author) && (c.Body == marker || strings.HasPrefix(c.Body, marker+"\n")) {
			out = append(out, &replyRef{id: c.ID, body: c.Body})
		}
	}
	return out, nil
}

type replyRef struct {
	id   int64
	body string
}

// upsertReply makes body the one reply to the command comment: it edits an
// existing reply in place (nothing is written when it already says this),
// creates one when there is none, and removes duplicates a crash between
// two writes could have left.
func (r *ack) upsertReply(ctx context.Context, body string) error {
	existing, err := r.replies(ctx)
	if err != nil {
		return err
	}
	if len(existing) == 0 {
		return r.createReply(ctx, body)
	}
	first := existing[0]
	for _, dup := range existing[1:] {
		if err := r.deleteComment(ctx, dup.id); err != nil {
			return err
		}
	}
	if first.body == body {
		return nil
	}
	_, err = r.gh.EditIssueComment(ctx, r.owner, r.repo, first.id, body)
	if notFound(err) {
		return r.createReply(ctx, body) // deleted by someone meanwhile
	}
	if err != nil {
		return apiError(fmt.Sprintf("updating reply %d", first.id), err)
	}
	return nil
}

func (r *ack) createReply(ctx context.Context, body string) error {
	_, err := r.gh.CreateIssueComment(ctx, r.owner, r.repo, r.job.PR, body)
	if err != nil {
		return apiError(fmt.Sprintf("replying on PR #%d", r.job.PR), err)
	}
	return nil
}

// removeReply deletes the bot's replies to the command comment, if any.
func (r *ack) removeReply(ctx context.Context) error {
	existing, err := r.replies(ctx)
	if err != nil {
		return err
	}
	for _, x := range existing {
		if err := r.deleteComment(ctx, x.id); err != nil {
			return err
		}
	}
	return nil
}

func (r *ack) deleteComment(ctx context.Context, id int64) error {
	err := r.gh.DeleteIssueComment(ctx, r.owner, r.repo, id)
	if err != nil && !notFound(err) {
		return apiError(fmt.Sprintf("deleting reply %d", id), err)
	}
	return nil
}
