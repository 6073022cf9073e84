// Package welcome posts the recipe reminder on pull requests that touch
// benchmark configuration: once per PR, telling the author what a sign-off
// needs and, when someone other than the core team owns a changed file,
// who reviews it.
package welcome

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
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
}

// Post posts the recipe reminder once per PR when the PR touches benchmark
// configuration, read with the layout the repository's configuration
// selects. It reports whether a comment was written.
func (w Poster) Post(ctx context.Context, gh GitHub, owner, name string, number int) (bool, error) {
	snap, err := snapshot.Take(ctx, gh, owner, name, number)
	if err != nil {
		return false, err
	}
	files, err := snap.Evidence.Files(ctx)
	if err != nil {
		return false, fmt.Errorf("listing PR files: %w", err)
	}
	if !TouchesBenchmarks(snap.Layout, files) {
		return false, nil
	}
	// The review bullet only makes sense when someone other than core or
	// an admin owns a changed file; an unreadable CODEOWNERS shows it.
	sc, err := scope.Of(ctx, snap.PR)
	showReview := err != nil || sc.Required
	blob := fmt.Sprintf("https://github.com/%s/%s/blob/%s/", owner, name, snap.PR.DefaultBranch)
	body, err := render.WelcomeMarkdown(render.Welcome{
		Author:        snap.PR.Author,
		ShowReview:    showReview,
		CodeownersURL: blob + snap.Layout.CodeOwners,
		ChecklistURL:  blob + snap.Layout.Checklist,
		SignOffPhrase: snap.Config.SignOffPhrase,
		FailFastLabel: "full-sweep-fail-fast",
		ContinueLabel: "full-sweep-enabled",
		RerunDocsURL:  "https://docs.github.com/actions/managing-workflow-runs/re-running-workflows-and-jobs",
	})
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

// TouchesBenchmarks is the reminder's trigger: master configs, benchmark
// files or the perf changelog, in either layout.
func TouchesBenchmarks(l repo.Layout, files []checks.ChangedFile) bool {
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			if p == l.Changelog || strings.HasPrefix(p, l.BenchmarksDir+"/") ||
				(l.UnderConfigs(p) && strings.HasSuffix(p, "-master.yaml")) {
				return true
			}
		}
	}
	return false
}
