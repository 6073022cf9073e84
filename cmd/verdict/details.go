package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/details"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/store"
)

// appVisibility asks GitHub, as the App's installation on a repository,
// whether it is private.
type appVisibility struct{ apps *ghclient.Apps }

func (v appVisibility) Private(ctx context.Context, owner, repo string) (bool, error) {
	inst, _, err := v.apps.App().Apps.FindRepositoryInstallation(ctx, owner, repo)
	if isHTTPStatus(err, http.StatusNotFound) {
		return false, details.ErrNotInstalled
	}
	if err != nil {
		return false, fmt.Errorf("finding the App's installation on %s/%s: %w", owner, repo, err)
	}
	gh, err := v.apps.Installation(inst.GetID())
	if err != nil {
		return false, err
	}
	r, _, err := gh.Repositories.Get(ctx, owner, repo)
	if isHTTPStatus(err, http.StatusNotFound) {
		return false, details.ErrNotInstalled
	}
	if err != nil {
		return false, fmt.Errorf("reading %s/%s as the App: %w", owner, repo, err)
	}
	return r.GetPrivate(), nil
}

// CanRead asks, as the App's installation, whether login can still read
// owner/repo: its permission there is read or more.
func (v appVisibility) CanRead(ctx context.Context, owner, repo, login string) (bool, error) {
	inst, _, err := v.apps.App().Apps.FindRepositoryInstallation(ctx, owner, repo)
	if isHTTPStatus(err, http.StatusNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("finding the App's installation on %s/%s: %w", owner, repo, err)
	}
	gh, err := v.apps.Installation(inst.GetID())
	if err != nil {
		return false, err
	}
	p, _, err := gh.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	if isHTTPStatus(err, http.StatusNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading @%s's permission on %s/%s: %w", login, owner, repo, err)
	}
	switch p.GetPermission() {
	case "admin", "maintain", "write", "triage", "read":
		return true, nil
	}
	return false, nil
}

func isHTTPStatus(err error, code int) bool {
	var ge *github.ErrorResponse
	return errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == code
}

// detailsPages is the details page of serve: open for public
// repositories, behind GitHub sign-in for private ones when the App's
// OAuth client is configured.
func detailsPages(cfg config.Server, st *store.Store, vis details.Visibility, log *slog.Logger) (*details.Handler, error) {
	if vis == nil {
		return nil, nil // a wiring without GitHub (tests) serves no pages
	}
	api, err := ghclient.ParseBaseURL(cfg.GitHubURL)
	if err != nil {
		return nil, err
	}
	web := webBase(api).String()
	o := details.Options{History: st, Visibility: vis, PublicURL: cfg.PublicURL, WebURL: web, Logger: log}
	if a, ok := vis.(details.Access); ok {
		o.Access = a
	}
	// Sign-in needs an address GitHub can send the browser back to.
	if cfg.OAuthClientID != "" && cfg.PublicURL != "" {
		o.OAuth = &details.OAuth{ClientID: cfg.OAuthClientID, ClientSecret: cfg.OAuthClientSecret, WebURL: web, APIURL: cfg.GitHubURL,
			Retry: ghclient.RetryOptions{AttemptTimeout: cfg.GitHubTimeout, BaseDelay: cfg.GitHubBackoff}}
	}
	return details.New(o), nil
}
