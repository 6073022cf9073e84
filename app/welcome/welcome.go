// Package welcome posts the recipe reminder on pull requests that touch
// benchmark configuration: once per PR, telling the author what a sign-off
// needs and, when someone other than the core team owns a changed file,
// who reviews it.
package welcome

import (
	"context"
	"fmt"

	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
)

// GitHub is what the reminder needs from GitHub: the pinned pull request
// (with its configuration and layout) and a comment posted once.
type GitHub interface {
	snapshot.GitHub
	publish.GitHub
}

// Poster posts the reminder.
type Poster struct {
	// BotLogins are the App's identities, added to the repository's.
	BotLogins []string
	// Presets are the checklists served; the repository's decides
	// whether a PR gets the reminder and what it links to.
	Presets []*checks.Preset
}

// Post posts the reminder once per PR when the repository's preset asks
// for it (checks.Preset.Remind). It reports whether a comment was written.
func (w Poster) Post(ctx context.Context, gh GitHub, owner, name string, number int) (bool, error) {
	snap, err := snapshot.Take(ctx, gh, w.Presets, owner, name, number)
	if err != nil {
		return false, err
	}
	defer snapshot.Release(snap.Evidence)
	if snap.Preset.Remind == nil {
		return false, nil
	}
	rm, ok, err := snap.Preset.Remind(ctx, snap.PR)
	if err != nil || !ok {
		return false, err
	}
	// The review bullet only makes sense when someone other than core or
	// an admin owns a changed file; an unreadable CODEOWNERS shows it.
	sc, err := scope.Of(ctx, snap.Preset, snap.PR)
	showReview := err != nil || sc.Required
	blob := fmt.Sprintf("https://github.com/%s/%s/blob/%s/", owner, name, snap.PR.DefaultBranch)
	body, err := render.WelcomeMarkdown(render.Welcome{Text: rm.Text, ReminderFacts: checks.ReminderFacts{
		Author:        snap.PR.Author,
		ShowReview:    showReview,
		CodeOwnersURL: blob + rm.CodeOwners,
		ChecklistURL:  blob + rm.Checklist,
		SignOffPhrase: snap.Config.SignOffPhrase,
	}})
	if err != nil {
		return false, err
	}
	cfg := snap.Config
	cfg.BotLogins = append(cfg.BotLogins, w.BotLogins...)
	res, err := publish.FromConfig(gh, cfg).PostOnce(ctx, owner, name, number, render.WelcomeMarker, body)
	if err != nil {
		return false, fmt.Errorf("posting the recipe reminder: %w", err)
	}
	return res.Wrote, nil
}
