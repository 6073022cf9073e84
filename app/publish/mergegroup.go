package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// GroupState is Verdict's answer on a merge group's commit.
type GroupState string

const (
	GroupPending   GroupState = "pending"   // being checked
	GroupSuccess   GroupState = "success"   // every PR in the group may merge
	GroupFailure   GroupState = "failure"   // a PR in the group may not
	GroupCancelled GroupState = "cancelled" // the queue dropped the group
)

// groupKey stands for the sign-off key in a merge group's check run
// external ID (merge-group@<sha>): a group is no sign-off.
const groupKey = "merge-group"

// GroupCheck is what Verdict publishes on a merge group's commit.
type GroupCheck struct {
	Owner, Repo, SHA string
	State            GroupState
	// Description is the status's one line (GitHub keeps 140 characters);
	// Summary the check run's bilingual Markdown.
	Description, Summary string
}

// Group writes the status and check run of a merge group's commit under
// the same context and name as a PR's, so the check branch protection
// requires is the one the queue waits for. Both are idempotent: the status
// is set again, the check run is found by its external ID.
func (p *Publisher) Group(ctx context.Context, g GroupCheck) error {
	if err := p.checkIdentity(""); err != nil {
		return err
	}
	if g.Owner == "" || g.Repo == "" || g.SHA == "" {
		return fmt.Errorf("publish: invalid merge group %s/%s@%s", g.Owner, g.Repo, g.SHA)
	}
	h := Handle{Owner: g.Owner, Repo: g.Repo, SHA: g.SHA, Key: groupKey}
	state, concl := string(g.State), string(g.State)
	switch g.State {
	case GroupPending, GroupSuccess, GroupFailure:
	case GroupCancelled:
		// A status has no "cancelled"; the group's commit is discarded.
		state = "error"
	default:
		return fmt.Errorf("publish: unknown merge group state %q", g.State)
	}
	var errs []error
	if p.StatusEnabled {
		errs = append(errs, p.status(ctx, h, state, truncate(g.Description, 140), ""))
	}
	if p.CheckRunsEnabled {
		if g.State == GroupPending {
			_, err := p.openCheckRun(ctx, h, true)
			errs = append(errs, err)
		} else {
			out := &github.CheckRunOutput{Title: github.String(truncate(g.Description, 255)),
				Summary: github.String(truncate(g.Summary, maxOutputChars))}
			errs = append(errs, p.completeCheckRun(ctx, h, concl, "", out))
		}
	}
	return errors.Join(errs...)
}
