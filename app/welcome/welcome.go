// Package welcome posts the recipe reminder (INFERENCEX.md §2.7) on pull
// requests that touch benchmark configuration.
package welcome

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
	infxrepo "github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Poster posts the reminder.
type Poster struct {
	SourceOptions ghsource.Options
	// BotLogins are the App's identities, added to the repository's.
	BotLogins []string
}

// Post posts the recipe reminder once per PR when the PR touches benchmark
// configuration. It reports whether a comment was written.
func (w Poster) Post(ctx context.Context, gh *github.Client, owner, repo string, number int) (bool, error) {
	ghpr, _, err := gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return false, fmt.Errorf("reading PR #%d: %w", number, err)
	}
	src := ghsource.New(gh, owner, repo, number, w.SourceOptions)
	r, _, err := gh.Repositories.Get(ctx, owner, repo)
	if err != nil {
		return false, fmt.Errorf("reading repository: %w", err)
	}
	def, _, err := gh.Repositories.GetBranch(ctx, owner, repo, r.GetDefaultBranch(), 1)
	if err != nil {
		return false, fmt.Errorf("reading default branch: %w", err)
	}
	defSHA := def.GetCommit().GetSHA()
	cfg, err := repoconfig.Load(ctx, src, defSHA)
	if err != nil {
		return false, err
	}
	layout, err := infxrepo.DetectLayout(ctx, src, defSHA)
	if err != nil {
		return false, err
	}
	layout = layout.Override(cfg.Paths)
	files, err := src.Files(ctx)
	if err != nil {
		return false, fmt.Errorf("listing PR files: %w", err)
	}
	if !TouchesBenchmarks(layout, files) {
		return false, nil
	}
	base, _, err := gh.Repositories.GetBranch(ctx, owner, repo, ghpr.GetBase().GetRef(), 1)
	if err != nil {
		return false, fmt.Errorf("reading base branch: %w", err)
	}
	settings := cfg.Settings
	pr := &checks.PR{Owner: owner, Repo: repo, Number: number, BaseTip: base.GetCommit().GetSHA(), Source: src}
	infxrepo.SettingsParam.Set(pr, &settings)
	// The review bullet only makes sense when someone other than core or
	// an admin owns a changed file; an unreadable CODEOWNERS shows it.
	scope, err := verify.ScopeOf(ctx, pr, layout)
	showReview := err != nil || scope.Required
	blob := fmt.Sprintf("https://github.com/%s/%s/blob/%s/", owner, repo, r.GetDefaultBranch())
	body, err := render.WelcomeMarkdown(render.Welcome{
		Author:        ghpr.GetUser().GetLogin(),
		ShowReview:    showReview,
		CodeownersURL: blob + layout.CodeOwners,
		ChecklistURL:  blob + layout.Checklist,
		SignOffPhrase: cfg.SignOffPhrase,
		FailFastLabel: "full-sweep-fail-fast",
		ContinueLabel: "full-sweep-enabled",
		RerunDocsURL:  "https://docs.github.com/actions/managing-workflow-runs/re-running-workflows-and-jobs",
	})
	if err != nil {
		return false, err
	}
	cfg.BotLogins = append(cfg.BotLogins, w.BotLogins...)
	p := publish.FromConfig(gh, cfg)
	res, err := p.PostOnce(ctx, owner, repo, number, render.WelcomeMarker, body)
	if err != nil {
		return false, fmt.Errorf("posting the recipe reminder: %w", err)
	}
	return res.Wrote, nil
}

// TouchesBenchmarks is the reminder's trigger: master configs, benchmark
// files or the perf changelog, in either layout.
func TouchesBenchmarks(l infxrepo.Layout, files []checks.ChangedFile) bool {
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			if p == l.Changelog || strings.HasPrefix(p, l.BenchmarksDir+"/") ||
				(strings.HasPrefix(p, l.ConfigsDir+"/") && strings.HasSuffix(p, "-master.yaml")) {
				return true
			}
		}
	}
	return false
}
