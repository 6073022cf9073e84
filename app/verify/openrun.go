package verify

import (
	"context"
	"fmt"

	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/snapshot"
)

// configuration is the repository's configuration, with the App's
// identities among its bot logins, for settling what a verification left.
func (v *Verifier) configuration(ctx context.Context, gh GitHub, owner, repo string, number int) (repoconfig.Config, error) {
	src := gh.Evidence(owner, repo, number)
	defer snapshot.Release(src)
	cfg, err := snapshot.Configuration(ctx, gh, src, v.Presets, owner, repo)
	if err != nil {
		return repoconfig.Config{}, fmt.Errorf("reading the repository's configuration: %w", err)
	}
	cfg.BotLogins = append(cfg.BotLogins, v.BotLogins...)
	return cfg, nil
}

// openedRun records that this verification's check run is in progress. A
// failure to record is logged: it costs only the run's later completion if
// the verification never completes it itself.
func (v *Verifier) openedRun(ctx context.Context, req Request, key, sha string) {
	if v.Ledger == nil {
		return
	}
	r := OpenRun{Owner: req.Owner, Repo: req.Repo, Number: req.Number, Key: key, HeadSHA: sha, Installation: req.Installation, At: v.now()}
	if err := v.Ledger.OpenedRun(ctx, r); err != nil {
		v.logger().Warn("recording an open check run", "repo", req.Owner+"/"+req.Repo, "pr", req.Number, "signoff", key, "head_sha", sha, "err", err)
	}
}

// closedRun forgets an open check run that was completed.
func (v *Verifier) closedRun(ctx context.Context, owner, repo, key, sha string) {
	if v.Ledger == nil {
		return
	}
	if err := v.Ledger.ClosedRun(ctx, owner+"/"+repo, key, sha); err != nil {
		v.logger().Warn("forgetting a completed check run", "repo", owner+"/"+repo, "signoff", key, "head_sha", sha, "err", err)
	}
}

// SettleRun completes a check run left in progress when no verification of
// its PR is pending any more: with the conclusion of the verdict standing
// for its commit (runs of one name on one commit agree), or cancelled when
// none stands. A run completed meanwhile is left alone.
func (v *Verifier) SettleRun(ctx context.Context, gh GitHub, r OpenRun) error {
	if v.Publisher == nil {
		return nil
	}
	cfg, err := v.configuration(ctx, gh, r.Owner, r.Repo, r.Number)
	if err != nil {
		return err
	}
	rec, err := v.standing(ctx, r.Owner, r.Repo, r.Number, "", r.HeadSHA)
	if err != nil {
		return err
	}
	t := publish.Target{Client: gh, Config: cfg, Owner: r.Owner, Repo: r.Repo, Number: r.Number, Key: r.Key, HeadSHA: r.HeadSHA}
	why := "no verification of this sign-off on this commit is pending, and none completed this run"
	if err := v.Publisher.CloseRun(ctx, t, standingOf(rec), why); err != nil {
		return fmt.Errorf("completing the check run of %s on %s: %w", r.Key, r.HeadSHA, err)
	}
	v.closedRun(ctx, r.Owner, r.Repo, r.Key, r.HeadSHA)
	v.logger().Info("completed a check run left in progress", "repo", r.Owner+"/"+r.Repo, "pr", r.Number, "signoff", r.Key, "head_sha", r.HeadSHA)
	return nil
}
