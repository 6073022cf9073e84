package ghapi

import (
	"context"
	"errors"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
)

// AppHooks is the App's own webhook delivery log, through a client
// authenticated as the App (its JWT), for missed-webhook recovery.
type AppHooks struct{ gh *github.Client }

// NewAppHooks returns the delivery log over an App (JWT) client.
func NewAppHooks(app *github.Client) AppHooks { return AppHooks{gh: app} }

// HookDeliveries lists one page of the App's deliveries, newest first,
// from cursor ("" for the first page); the next cursor is "" at the end.
func (h AppHooks) HookDeliveries(ctx context.Context, cursor string) ([]*github.HookDelivery, string, error) {
	ds, resp, err := h.gh.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: perPage, Cursor: cursor})
	if err != nil {
		return nil, "", err
	}
	return ds, resp.Cursor, nil
}

// Redeliver asks GitHub to deliver delivery id again. GitHub answers 202
// and makes the attempt later. The request is retried like a read on a
// server error or timeout: a second redelivery carries the same delivery
// ID, which intake stores once, while giving up would leave the delivery
// missed until the next recovery pass.
func (h AppHooks) Redeliver(ctx context.Context, id int64) error {
	_, _, err := h.gh.Apps.RedeliverHookDelivery(ghclient.Repeatable(ctx), id)
	var accepted *github.AcceptedError
	if errors.As(err, &accepted) {
		return nil
	}
	return err
}
