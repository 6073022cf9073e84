package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
)

// FromConfig builds the Publisher for one repository: a client authorized
// for it and the status, check-run and identity settings of its
// configuration.
func FromConfig(client GitHub, cfg repoconfig.Config) *Publisher {
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

// Target is what one verification publishes: the verdict of one sign-off
// on one commit of one pull request, through a client authorized for the
// repository, with the repository's publishing settings.
type Target struct {
	Client GitHub
	// Config supplies the status and check-run settings and the bot
	// identities whose comments are Verdict's own.
	Config      repoconfig.Config
	Owner, Repo string
	Number      int
	Key         string
	HeadSHA     string
	// Retry says an earlier attempt of this verification ran, so its marks
	// may be on the commit already.
	Retry bool
	// SupersededBy names a newer sign-off whose verdict stands for the
	// commit: this verification publishes its own comment only, and the
	// shared status keeps showing the newer verdict. A check run of its
	// own that an earlier attempt left open takes that verdict's
	// conclusion (Superseding), so runs of one name on one commit agree.
	SupersededBy string
	Superseding  *Standing
}

// Started is a verification whose publication Start began; Finish
// completes it.
type Started struct {
	target Target
	handle Handle
}

// Opened reports whether Start left a check run in progress that Finish,
// Drop or Abort completes.
func (s Started) Opened() bool { return s.handle.CheckRunID != 0 }

// Verdicts publishes what verifications conclude. The client and the
// configuration arrive with each Target, so one value serves every
// installation.
type Verdicts struct {
	Logger *slog.Logger // nil means slog.Default()
	// Pending marks the commit as being verified (pending status,
	// in-progress check run) when a verification starts.
	Pending bool
	// SkipCheckRuns publishes without a check run: only GitHub Apps can
	// create them, so a personal token cannot.
	SkipCheckRuns bool
	// DetailsBase is Publisher.DetailsBase: where the details pages are.
	DetailsBase string
}

func (v Verdicts) publisher(t Target) *Publisher {
	pub := FromConfig(t.Client, t.Config)
	if v.SkipCheckRuns {
		pub.CheckRunsEnabled = false
	}
	pub.DetailsBase = v.DetailsBase
	return pub
}

// Start checks that the verdict can be published at all (a client, the
// commit, the sign-off key, an identity to recognise our comments by) and
// returns an error, having written nothing, when it cannot. With Pending it
// then posts the pending status and opens the check run. A failed write
// does not stop the verification (the verdict comment matters more than
// the pending marks, and the status permission is optional); it is logged
// and Finish tries again.
func (v Verdicts) Start(ctx context.Context, t Target) (Started, error) {
	pub := v.publisher(t)
	s := Started{target: t, handle: Handle{Owner: t.Owner, Repo: t.Repo, SHA: t.HeadSHA, Key: t.Key}}
	if err := pub.checkHandle(s.handle); err != nil {
		return Started{}, err
	}
	if err := pub.checkIdentity(t.Key); err != nil {
		return Started{}, err
	}
	if !v.Pending || t.SupersededBy != "" {
		return s, nil
	}
	h, err := pub.Start(ctx, t.Owner, t.Repo, t.HeadSHA, t.Key, t.Retry)
	if err != nil {
		v.logger(t).Warn("marking commit as being verified", "err", err)
	}
	s.handle = h
	return s, nil
}

// Finish publishes the verdict comment, then completes status and check run,
// and returns the comment. Once the comment is out, status and check run
// failures that a retry cannot fix (a missing permission, a validation
// error) are logged rather than returned, so the job is not retried in vain;
// transient ones are returned so that it is.
func (v Verdicts) Finish(ctx context.Context, s Started, body render.Body) (Published, error) {
	t := s.target
	if t.Client == nil {
		return Published{}, errors.New("publish: Finish without Start")
	}
	pub := v.publisher(t)
	closeRun := false
	if t.SupersededBy != "" {
		closeRun = pub.CheckRunsEnabled
		pub.StatusEnabled, pub.CheckRunsEnabled = false, false
	}
	res, err := pub.Finish(ctx, s.handle, t.Number, body)
	if err == nil && closeRun {
		why := "Superseded: the verdict of " + t.SupersededBy + " stands for this commit."
		zh := "已被取代：签核 " + t.SupersededBy + " 的结论对该提交有效。"
		err = pub.closeOpenRun(ctx, s.handle, t.Superseding, "Superseded", why, zh)
	}
	if err != nil && res.CommentURL != "" && permanent(err) {
		v.logger(t).Warn("verdict comment published; status or check run not written", "err", err)
		return res, nil
	}
	return res, err
}

// Drop settles a verification whose verdict is no longer current (a newer
// event for its sign-off arrived while it ran; that event's verification
// publishes): nothing of its verdict is written, and the marks Start left
// are settled so none stays pending. The check run Start opened takes the
// conclusion of the verdict standing for the commit (standing, nil when
// none: cancelled, which no branch protection counts as passing), and the
// pending status Start set shows that verdict again, or that none was
// posted.
func (v Verdicts) Drop(ctx context.Context, s Started, standing *Standing, why string) error {
	t := s.target
	if t.Client == nil {
		return nil
	}
	pub := v.publisher(t)
	var errs []error
	if pub.StatusEnabled && v.Pending && !t.Retry && t.SupersededBy == "" {
		state, desc, url := "failure", descNone, ""
		if standing != nil {
			state, desc = pub.statusFor(standing.Overall)
			url = standing.CommentURL
		}
		errs = append(errs, pub.status(ctx, s.handle, state, desc, url))
	}
	if pub.CheckRunsEnabled && (v.Pending || t.Retry) {
		errs = append(errs, pub.closeOpenRun(ctx, s.handle, standing, "Superseded", "Superseded: "+why,
			"已被取代：该签核有更新的事件，由其验证发布结论。"))
	}
	return errors.Join(errs...)
}

// CloseRun completes the check run of t.Key on t.HeadSHA if it is still
// in progress (an attempt that was cut, superseded or lost opened it, and
// no verification of its PR is pending): with the conclusion of the
// verdict standing for the commit, or cancelled when none stands.
func (v Verdicts) CloseRun(ctx context.Context, t Target, standing *Standing, why string) error {
	pub := v.publisher(t)
	h := Handle{Owner: t.Owner, Repo: t.Repo, SHA: t.HeadSHA, Key: t.Key}
	if err := pub.checkHandle(h); err != nil || !pub.CheckRunsEnabled {
		return err
	}
	return pub.closeOpenRun(ctx, h, standing, "Not completed", why, "该验证未完成，且没有待处理的验证："+why)
}

// Abort settles a verification given up for good: failure status and
// failed check run saying why it could not be verified. A verdict comment
// of the sign-off that assesses the same commit (an attempt published it,
// then failed on the status or check run) would contradict them: it is
// replaced, first, by the body that says no valid verdict was produced.
func (v Verdicts) Abort(ctx context.Context, t Target, why string) error {
	pub := v.publisher(t)
	h := Handle{Owner: t.Owner, Repo: t.Repo, SHA: t.HeadSHA, Key: t.Key}
	if err := pub.checkHandle(h); err != nil {
		return err
	}
	if t.Number > 0 && pub.checkIdentity(t.Key) == nil {
		if err := pub.retractVerdict(ctx, h, t.Number); err != nil {
			return err
		}
	}
	return pub.Abort(ctx, h, why)
}

// retractVerdict replaces h's verdict comment, when it assesses h.SHA, by
// the no-valid-verdict body.
func (p *Publisher) retractVerdict(ctx context.Context, h Handle, pr int) error {
	mine, err := p.verdictComment(ctx, h.Owner, h.Repo, pr, h.Key)
	if err != nil || mine == nil || render.IsWithdrawn(mine.GetBody()) {
		return err
	}
	if sha, ok := render.AssessedCommit(mine.GetBody()); !ok || sha != h.SHA {
		return nil
	}
	body, err := render.InvalidMarkdown(h.Key, h.SHA)
	if err != nil {
		return err
	}
	if _, err := p.Upsert(ctx, h.Owner, h.Repo, pr, render.Marker(h.Key), body); err != nil {
		return fmt.Errorf("retracting the verdict of %s on %s: %w", h.Key, h.SHA, err)
	}
	return nil
}

// ConfigReport is the comment telling a PR that the repository
// configuration is invalid. The configuration being unusable, the bot
// identities come with it.
type ConfigReport struct {
	Client      GitHub
	Owner, Repo string
	Number      int
	BotLogins   []string
	Body        string // starts with render.ConfigErrorMarker
}

// ReportConfigError upserts the one invalid-configuration comment of the
// PR: a second event for the same PR edits it (or leaves it when nothing
// changed) instead of adding another.
func (v Verdicts) ReportConfigError(ctx context.Context, r ConfigReport) (Published, error) {
	if !strings.HasPrefix(r.Body, render.ConfigErrorMarker+"\n") {
		return Published{}, errors.New("publish: invalid-configuration body lacks its marker")
	}
	p := &Publisher{Client: r.Client, BotLogins: r.BotLogins}
	return p.Upsert(ctx, r.Owner, r.Repo, r.Number, render.ConfigErrorMarker, r.Body)
}

// logger is the log of one target: every line names the PR, the sign-off
// and the commit.
func (v Verdicts) logger(t Target) *slog.Logger {
	l := v.Logger
	if l == nil {
		l = slog.Default()
	}
	return l.With("repo", t.Owner+"/"+t.Repo, "pr", t.Number, "signoff", t.Key, "head_sha", t.HeadSHA)
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

// verdictComment is sign-off key's verdict comment of ours on PR pr, nil
// when there is none.
func (p *Publisher) verdictComment(ctx context.Context, owner, repo string, pr int, key string) (*github.IssueComment, error) {
	marker := render.Marker(key) + "\n"
	var mine *github.IssueComment
	err := p.eachComment(ctx, owner, repo, pr, func(c *github.IssueComment) bool {
		if p.isBot(c.GetUser().GetLogin()) && strings.HasPrefix(c.GetBody(), marker) {
			mine = c
		}
		return true
	})
	return mine, err
}
