package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/snapshot"
)

// ErrInvalidConfig marks a verification that could not start because the
// repository's configuration on the default branch is invalid. Retrying
// reads the same file, so it is final; the PR has been told (when
// publishing) so that the failure is not visible only in a server log.
var ErrInvalidConfig = errors.New("invalid repository configuration")

// configError turns a failed snapshot into the verification's error, and
// reports an invalid configuration on the PR. Other failures pass through
// unchanged (a retry may read them).
func (v *Verifier) configError(ctx context.Context, gh GitHub, req Request, err error, log *slog.Logger) error {
	var ce *snapshot.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	// The caller logs the returned error; this only adds the report.
	invalid := fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	if !req.Publish || v.Publisher == nil {
		return invalid
	}
	c := render.ConfigError{File: repoconfig.Path, Branch: ce.Branch, SHA: ce.SHA}
	if strings.HasPrefix(ce.RepoURL, "https://") {
		c.FileURL = strings.TrimSuffix(ce.RepoURL, "/") + "/blob/" + ce.SHA + "/" + repoconfig.Path
	}
	for _, p := range ce.Problems.Problems {
		c.Problems = append(c.Problems, render.ConfigProblem{Line: p.Line, EN: p.Message, ZH: p.MessageZH})
	}
	body, rerr := render.ConfigErrorMarkdown(c)
	if rerr != nil {
		log.Error("rendering the invalid-configuration comment", "err", rerr)
		return invalid
	}
	notice, perr := v.Publisher.ReportConfigError(ctx, publish.ConfigReport{
		Client: gh, Owner: req.Owner, Repo: req.Repo, Number: req.Number,
		BotLogins: v.BotLogins, Body: body,
	})
	if perr != nil {
		// Returned with the GitHub error inside, so a transient failure is
		// retried and the report still made.
		return fmt.Errorf("%w (reporting it on the PR: %w)", invalid, perr)
	}
	// A notice hidden when an earlier fix made it outdated holds again.
	v.settleNotice(ctx, gh, req, notice.NodeID, false)
	log.Info("reported invalid repository configuration on the PR", "comment_url", notice.CommentURL, "line", ce.Problems.FirstLine())
	return invalid
}
