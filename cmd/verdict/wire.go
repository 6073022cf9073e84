package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/reuse"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/app/welcome"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// evidenceCacheBytes bounds immutable evidence (files by commit SHA,
// artifact contents by ID) kept across verifications.
const evidenceCacheBytes = 256 << 20

// newVerifier wires the verification pipeline shared by serve and check.
func newVerifier(logger *slog.Logger, opts ghsource.Options, rec verify.Recorder, botLogins []string) *verify.Verifier {
	if opts.Cache == nil {
		opts.Cache = ghsource.NewCache(evidenceCacheBytes)
	}
	return &verify.Verifier{
		Registry:      inferencex.Registry(),
		SourceOptions: opts,
		Publisher:     publish.Verifier{Logger: logger, Pending: true},
		Recorder:      rec,
		BotLogins:     botLogins,
		Logger:        logger,
	}
}

func init() { wireHandlers = wireApp }

// wireApp builds the job handlers of verdict serve: one App client, one
// evidence cache, and the verifier, reuse acknowledger and welcomer on top.
func wireApp(ctx context.Context, cfg config.Server, st *store.Store, log *slog.Logger) (handlers, error) {
	apps, err := ghclient.NewApps(cfg.GitHubURL, cfg.AppID, cfg.PrivateKey)
	if err != nil {
		return handlers{}, err
	}
	slug := strings.TrimSuffix(cfg.AppSlug, "[bot]")
	if slug == "" {
		app, _, err := apps.App().Apps.Get(ctx, "")
		if err != nil {
			return handlers{}, fmt.Errorf("reading the App's slug (set VERDICT_APP_SLUG to skip): %w", err)
		}
		slug = app.GetSlug()
	}
	bots := []string{slug + "[bot]"}
	opts := ghsource.Options{Cache: ghsource.NewCache(evidenceCacheBytes)}
	installation := func(_ context.Context, id int64) (*github.Client, error) { return apps.Installation(id) }
	v := newVerifier(log, opts, st, bots)
	return handlers{
		Verifier: appVerifier{v: v, client: installation},
		Reuse:    &reuse.Acknowledger{Client: installation, SourceOptions: opts, BotLogins: bots, Logger: log},
		Welcomer: appWelcomer{p: welcome.Poster{SourceOptions: opts, BotLogins: bots}, client: installation, log: log},
	}, nil
}

// appVerifier runs queued verifications with the installation's client and
// tells the queue which failures are worth a retry.
type appVerifier struct {
	v      *verify.Verifier
	client func(context.Context, int64) (*github.Client, error)
}

func (a appVerifier) Verify(ctx context.Context, j jobs.VerifyArgs) error {
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return ghclient.Classify(err)
	}
	_, err = a.v.Verify(ctx, gh, verify.Request{
		Owner: j.Owner, Repo: j.Name, Number: j.PR,
		SignOff:  j.SignOffKey,
		Explicit: j.Manual,
		Actor:    j.ActorLogin, ActorType: j.ActorType,
		DeliveryID: j.DeliveryID,
		Publish:    true,
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, verify.ErrPRChanged), errors.Is(err, verify.ErrIncomplete):
		return jobs.Transient(err)
	default:
		return ghclient.Classify(err)
	}
}

type appWelcomer struct {
	p      welcome.Poster
	client func(context.Context, int64) (*github.Client, error)
	log    *slog.Logger
}

func (a appWelcomer) Welcome(ctx context.Context, j jobs.WelcomeArgs) error {
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return ghclient.Classify(err)
	}
	wrote, err := a.p.Post(ctx, gh, j.Owner, j.Name, j.PR)
	if err != nil {
		return ghclient.Classify(err)
	}
	a.log.Info("welcome", "repo", j.FullName(), "pr", j.PR, "head_sha", j.HeadSHA, "delivery", j.DeliveryID, "posted", wrote)
	return nil
}
