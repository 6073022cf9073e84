package publish

import (
	"context"
	"errors"
	"strings"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/verify"
)

var _ verify.ConfigReporter = Verifier{}

// ReportConfigError upserts the one invalid-configuration comment of the
// PR: a second event for the same PR edits it (or leaves it when nothing
// changed) instead of adding another.
func (v Verifier) ReportConfigError(ctx context.Context, r verify.ConfigReport) (string, error) {
	if !strings.HasPrefix(r.Body, render.ConfigErrorMarker+"\n") {
		return "", errors.New("publish: invalid-configuration body lacks its marker")
	}
	p := &Publisher{Client: r.Client, BotLogins: r.BotLogins}
	res, err := p.Upsert(ctx, r.Owner, r.Repo, r.Number, render.ConfigErrorMarker, r.Body)
	return res.CommentURL, err
}
