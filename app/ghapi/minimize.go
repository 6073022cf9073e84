package ghapi

import (
	"context"
	"fmt"

	"github.com/shurcooL/githubv4"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/retry"
)

// MinimizeComment hides a comment (by its GraphQL node ID) as outdated,
// as a person does with "Hide > Outdated". Hiding a hidden comment again
// changes nothing, so a retry is safe.
func (c *Client) MinimizeComment(ctx context.Context, nodeID string) error {
	var m struct {
		MinimizeComment struct {
			MinimizedComment struct {
				IsMinimized githubv4.Boolean
			}
		} `graphql:"minimizeComment(input: $input)"`
	}
	in := githubv4.MinimizeCommentInput{SubjectID: githubv4.ID(nodeID), Classifier: githubv4.ReportedContentClassifiersOutdated}
	if err := c.graphql.Mutate(ghclient.Repeatable(ctx), &m, in, nil); err != nil {
		return mutationError("hiding comment "+nodeID+" as outdated", err)
	}
	if !m.MinimizeComment.MinimizedComment.IsMinimized {
		return fmt.Errorf("hiding comment %s as outdated: GitHub answered that it is not hidden", nodeID)
	}
	return nil
}

// UnminimizeComment shows a comment hidden as outdated again.
func (c *Client) UnminimizeComment(ctx context.Context, nodeID string) error {
	var m struct {
		UnminimizeComment struct {
			UnminimizedComment struct {
				IsMinimized githubv4.Boolean
			}
		} `graphql:"unminimizeComment(input: $input)"`
	}
	in := githubv4.UnminimizeCommentInput{SubjectID: githubv4.ID(nodeID)}
	if err := c.graphql.Mutate(ghclient.Repeatable(ctx), &m, in, nil); err != nil {
		return mutationError("showing comment "+nodeID+" again", err)
	}
	if m.UnminimizeComment.UnminimizedComment.IsMinimized {
		return fmt.Errorf("showing comment %s again: GitHub answered that it is still hidden", nodeID)
	}
	return nil
}

func mutationError(doing string, err error) error {
	if retry.IsTransient(err) {
		return err
	}
	return fmt.Errorf("%s over GraphQL: %w", doing, err)
}
