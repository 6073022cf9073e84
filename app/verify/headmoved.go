package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/app/snapshot"
)

// HeadMarker is a Publisher that can mark a pushed PR (publish.Verdicts).
type HeadMarker interface {
	HeadMoved(ctx context.Context, m publish.HeadMove) (publish.HeadMoved, error)
}

// HeadMoved handles a push to PR number: nothing is verified. When the PR
// has had a verdict, each verdict comment says which commit it covers and
// that the head has moved, and the new head gets the status "sign-off
// needed" if the scope gate says it needs a sign-off (a scope that cannot be
// decided for good, a broken CODEOWNERS say, counts as needing one: a
// verdict was required before the push). A PR without a verdict is left
// alone: nothing about it was ever claimed, and a required status that is
// missing blocks merging already.
func (v *Verifier) HeadMoved(ctx context.Context, gh GitHub, owner, repo string, number int) (publish.HeadMoved, error) {
	marker, ok := v.Publisher.(HeadMarker)
	if !ok || v.Publisher == nil {
		return publish.HeadMoved{}, errors.New("the publisher cannot mark a pushed head")
	}
	ghpr, err := gh.PullRequest(ctx, owner, repo, number)
	if err != nil {
		return publish.HeadMoved{}, fmt.Errorf("reading PR #%d: %w", number, err)
	}
	head := ghpr.GetHead().GetSHA()
	cfg, err := v.configuration(ctx, gh, owner, repo, number)
	if err != nil {
		return publish.HeadMoved{}, err
	}
	needs := func(ctx context.Context) (bool, error) {
		snap, err := snapshot.Take(ctx, gh, v.Presets, owner, repo, number)
		if snap != nil {
			defer snapshot.Release(snap.Evidence)
		}
		if terr := unavailable(ctx, snap); terr != nil {
			return false, terr
		}
		if err != nil {
			return false, err
		}
		if snap.PR.HeadSHA != head {
			return false, ErrPRChanged
		}
		sc, err := scope.Of(ctx, snap.Preset, snap.PR)
		if terr := unavailable(ctx, snap); terr != nil {
			return false, terr
		}
		switch {
		case errors.Is(err, scope.ErrIncomplete):
			return false, err
		case err != nil:
			v.logger().Warn("sign-off scope of the pushed head undecided; marking it as needing a sign-off",
				"repo", owner+"/"+repo, "pr", number, "head_sha", head, "err", err)
			return true, nil
		}
		return sc.Required, nil
	}
	return marker.HeadMoved(ctx, publish.HeadMove{Client: gh, Config: cfg, Owner: owner, Repo: repo, Number: number,
		Head: head, NeedsSignOff: needs})
}
