package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
)

// ErrInvalidConfig marks a verification that could not start because the
// repository's configuration on the default branch is invalid. Retrying
// reads the same file, so it is final; the PR has been told (when
// publishing) so that the failure is not visible only in a server log.
var ErrInvalidConfig = errors.New("invalid repository configuration")

// ConfigReporter is implemented by publishers that can tell a PR, with one
// comment updated in place, that the repository configuration is invalid.
type ConfigReporter interface {
	ReportConfigError(ctx context.Context, r ConfigReport) (commentURL string, err error)
}

// ConfigReport is the invalid-configuration comment to publish.
type ConfigReport struct {
	Client      *github.Client
	Owner, Repo string
	Number      int
	BotLogins   []string
	Body        string // starts with render.ConfigErrorMarker
}

// configError turns a failed configuration load into the verification's
// error, and reports an invalid file on the PR. Read failures pass through
// unchanged (a retry may read the file).
func (v *Verifier) configError(ctx context.Context, gh *github.Client, req Request, repoURL, branch, sha string, err error, log *slog.Logger) error {
	var ce *repoconfig.Error
	if !errors.As(err, &ce) {
		return err
	}
	// The caller logs the returned error; this only adds the report.
	invalid := fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	rep, ok := v.Publisher.(ConfigReporter)
	if !req.Publish || !ok {
		return invalid
	}
	c := render.ConfigError{File: repoconfig.Path, Branch: branch, SHA: sha}
	if strings.HasPrefix(repoURL, "https://") {
		c.FileURL = strings.TrimSuffix(repoURL, "/") + "/blob/" + sha + "/" + repoconfig.Path
	}
	for _, p := range ce.Problems {
		c.Problems = append(c.Problems, render.ConfigProblem{Line: p.Line, EN: p.Message, ZH: p.MessageZH})
	}
	body, rerr := render.ConfigErrorMarkdown(c)
	if rerr != nil {
		log.Error("rendering the invalid-configuration comment", "err", rerr)
		return invalid
	}
	url, perr := rep.ReportConfigError(ctx, ConfigReport{
		Client: gh, Owner: req.Owner, Repo: req.Repo, Number: req.Number,
		BotLogins: v.BotLogins, Body: body,
	})
	if perr != nil {
		// Returned with the GitHub error inside, so a transient failure is
		// retried and the report still made.
		return fmt.Errorf("%w (reporting it on the PR: %w)", invalid, perr)
	}
	log.Info("reported invalid repository configuration on the PR", "comment_url", url, "line", ce.FirstLine())
	return invalid
}
