package publish

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

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
type Verifier struct {
	Logger *slog.Logger // nil means slog.Default()
	// Pending marks the commit as being verified (pending status,
	// in-progress check run) when a verification starts.
	Pending bool
	// SkipCheckRuns publishes without a check run: only GitHub Apps can
	// create them, so a personal token cannot.
	SkipCheckRuns bool
}

var _ verify.Publisher = Verifier{}

func (v Verifier) publisher(p verify.Publication) *Publisher {
	pub := FromConfig(p.Client, p.Config)
	if v.SkipCheckRuns {
		pub.CheckRunsEnabled = false
	}
	return pub
}

// Start checks that the verdict can be published at all (a client, the
// commit, the sign-off key, an identity to recognise our comments by) and
// returns an error, having written nothing, when it cannot. With Pending it
// then posts the pending status and opens the check run; the returned value
// is the Handle Finish needs. A failed write does not stop the verification
// (the verdict comment matters more than the pending marks, and the status
// permission is optional); it is logged and Finish tries again.
func (v Verifier) Start(ctx context.Context, p verify.Publication) (any, error) {
	pub := v.publisher(p)
	h := Handle{Owner: p.Owner, Repo: p.Repo, SHA: p.HeadSHA, Key: p.Key}
	if err := pub.checkHandle(h); err != nil {
		return nil, err
	}
	if err := pub.checkIdentity(p.Key); err != nil {
		return nil, err
	}
	if !v.Pending {
		return h, nil
	}
	h, err := pub.Start(ctx, p.Owner, p.Repo, p.HeadSHA, p.Key, p.Retry)
	if err != nil {
		v.logger().Warn("marking commit as being verified", "repo", p.Owner+"/"+p.Repo, "head_sha", p.HeadSHA, "err", err)
	}
	return h, nil
}

// Finish publishes the verdict comment, then completes status and check run,
// and returns the comment's URL. Once the comment is out, status and check
// run failures that a retry cannot fix (a missing permission, a validation
// error) are logged rather than returned, so the job is not retried in vain;
// transient ones are returned so that it is. A verdict that failed the guard
// is published as the invalid-verdict body and logged.
func (v Verifier) Finish(ctx context.Context, started any, p verify.Publication) (string, error) {
	h, ok := started.(Handle)
	if !ok || h.SHA != p.HeadSHA || h.Key != p.Key {
		// Start was skipped: Finish finds or creates the check run itself.
		h = Handle{Owner: p.Owner, Repo: p.Repo, SHA: p.HeadSHA, Key: p.Key}
	}
	res, err := v.publisher(p).Finish(ctx, h, p.Number, p.Key, p.Body, p.Overall)
	log := v.logger().With("repo", p.Owner+"/"+p.Repo, "pr", p.Number, "signoff", p.Key, "sha", p.HeadSHA)
	if res.Guard != nil {
		log.Error("verdict failed the publisher guard", "err", res.Guard)
	}
	if err != nil && res.CommentURL != "" && permanent(err) {
		log.Warn("verdict comment published; status or check run not written", "err", err)
		return res.CommentURL, nil
	}
	return res.CommentURL, err
}

// Abort settles a verification given up for good: failure status and
// failed check run saying why it could not be verified.
func (v Verifier) Abort(ctx context.Context, p verify.Publication, why string) error {
	return FromConfig(p.Client, p.Config).Abort(ctx, Handle{Owner: p.Owner, Repo: p.Repo, SHA: p.HeadSHA, Key: p.Key}, why)
}

func (v Verifier) logger() *slog.Logger {
	if v.Logger != nil {
		return v.Logger
	}
	return slog.Default()
}

// permanent reports whether every GitHub error in err is a client error that
// repeating the request will not fix (403 without rate limiting, 404, 422).
func permanent(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !permanent(e) {
				return false
			}
		}
		return true
	}
	var rl *github.RateLimitError
	var arl *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &arl) {
		return false
	}
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || ge.Response == nil {
		return false
	}
	switch ge.Response.StatusCode {
	case http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity:
		return true
	}
	return false
}
