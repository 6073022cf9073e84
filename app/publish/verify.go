package publish

import (
	"context"
	"errors"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/verify"
)

// FromConfig builds the Publisher for one repository: its installation
// client and the status, check-run and identity settings of its
// configuration.
func FromConfig(client *github.Client, cfg repoconfig.Config) *Publisher {
	return &Publisher{
		Client:           client,
		BotLogins:        cfg.BotLogins,
		StatusContext:    cfg.Status.Context,
		StatusEnabled:    cfg.StatusEnabled(),
		WarnAs:           cfg.Status.WarnAs,
		CheckRunName:     cfg.CheckRun.Name,
		CheckRunsEnabled: cfg.CheckRunEnabled(),
	}
}

// Verifier implements verify.Publisher: the client and configuration arrive
// with each publication, so one value serves every installation.
type Verifier struct{}

var _ verify.Publisher = Verifier{}

// Start posts the pending status and opens the check run. The returned value
// is the Handle Finish needs.
func (Verifier) Start(ctx context.Context, p verify.Publication) (any, error) {
	return FromConfig(p.Client, p.Config).Start(ctx, p.Owner, p.Repo, p.HeadSHA)
}

// Finish publishes the verdict comment, then completes status and check run,
// and returns the comment's URL. A publication whose verdict failed the
// guard is published as the invalid-verdict body and reported as an error
// after the fact, so the caller logs it while GitHub shows REJECTED.
func (Verifier) Finish(ctx context.Context, started any, p verify.Publication) (string, error) {
	h, ok := started.(Handle)
	if !ok || h.SHA != p.HeadSHA {
		// Start was skipped or failed before it produced a handle: Finish
		// creates the completed check run itself.
		h = Handle{Owner: p.Owner, Repo: p.Repo, SHA: p.HeadSHA}
	}
	res, err := FromConfig(p.Client, p.Config).Finish(ctx, h, p.Number, p.Key, p.Body, p.Overall)
	return res.CommentURL, errors.Join(err, res.Guard)
}
