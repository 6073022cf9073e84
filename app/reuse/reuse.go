// Package reuse is the acknowledger of /use and /reuse-sweep-run commands
// (checks/inferencex/RULES.md, "Reuse commands"). For each command comment
// it removes its own earlier reaction, validates the request in a fixed
// order, and answers with 👍 or 👎. A 👎 also gets one short bilingual reply saying why, keyed by a
// hidden marker so that editing the command updates the same reply and
// editing the command away removes it. The acknowledger never triggers,
// cancels or merges anything: the sweep workflow's own gate acts on the
// request; the reaction tells the maintainer what that gate will see.
package reuse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
)

// GitHub is what acknowledging a command needs from GitHub: the PR and the
// repository's default branch (for its configuration), the command comment
// and the PR's other comments, the bot's reactions and replies, and the
// evidence source through which a run's eligibility is read. Listings take
// a page (0 for the first) and return the next (0 at the end).
type GitHub interface {
	Repository(ctx context.Context, owner, repo string) (*github.Repository, error)
	PullRequest(ctx context.Context, owner, repo string, number int) (*github.PullRequest, error)
	BranchSHA(ctx context.Context, owner, repo, branch string) (string, error)
	Evidence(owner, repo string, number int) snapshot.Evidence

	IssueComment(ctx context.Context, owner, repo string, id int64) (*github.IssueComment, error)
	IssueComments(ctx context.Context, owner, repo string, number, page int) ([]*github.IssueComment, int, error)
	CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (*github.IssueComment, error)
	EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (*github.IssueComment, error)
	DeleteIssueComment(ctx context.Context, owner, repo string, id int64) error

	IssueCommentReactions(ctx context.Context, owner, repo string, id int64, page int) ([]*github.Reaction, int, error)
	CreateIssueCommentReaction(ctx context.Context, owner, repo string, id int64, content string) error
	DeleteIssueCommentReaction(ctx context.Context, owner, repo string, commentID, reactionID int64) error
}

// Acknowledger reacts to reuse command comments. It implements the queue's
// ReuseAcknowledger.
type Acknowledger struct {
	// Client returns GitHub as an App installation may use it.
	Client func(ctx context.Context, installationID int64) (GitHub, error)
	// BotLogins are the App's own identities ("<slug>[bot]"). Only reactions
	// and replies authored by one of them are treated as the bot's own.
	BotLogins []string
	Logger    *slog.Logger
	// Recorder, when set, keeps every command answered (the PR's history).
	Recorder Recorder
	// Presets are the checklists served: a command is answered only in a
	// repository whose preset takes it (checks.Preset.Commands).
	Presets []*checks.Preset
}

// Recorder keeps the reuse commands the acknowledger answered.
type Recorder interface {
	RecordCommand(ctx context.Context, c Command) error
}

// Command is one answered reuse command.
type Command struct {
	Owner, Repo string
	PR          int
	Actor       string // the comment's author
	Command     string // as parsed, e.g. "/use 123"
	Accepted    bool
	// Outcome is the one line of the log summary (accepted or why not).
	Outcome    string
	CommentID  int64
	DeliveryID string
}

// Summaries written to the log, worded as the sweep workflow words them in
// its step summary.
const (
	acceptedSummary = "Reuse accepted / 复用请求已接受: PR #%d, run %d (%s)."
	rejectedSummary = "Reuse rejected / 复用请求未接受: %s"
)

// Acknowledge handles one issue_comment event that carried, or used to
// carry, a reuse command. Errors wrapping retry.ErrTransient are retried by
// the queue; every step is idempotent, so a retry repeats work but never
// duplicates a reaction or a reply.
func (a *Acknowledger) Acknowledge(ctx context.Context, job jobs.ReuseArgs) error {
	log := a.logger().With("repo", job.FullName(), "pr", job.PR, "delivery_id", job.DeliveryID,
		"comment_id", job.CommentID, "action", job.Action, "actor", job.AuthorLogin)
	if len(a.BotLogins) == 0 || a.Client == nil || len(a.Presets) == 0 {
		return errors.New("reuse acknowledger: Client, BotLogins and Presets must be configured")
	}
	if job.CommentID <= 0 || job.PR <= 0 {
		return fmt.Errorf("reuse acknowledger: invalid job (comment %d, PR %d)", job.CommentID, job.PR)
	}
	gh, err := a.Client(ctx, job.InstallationID)
	if err != nil {
		return retry.Transient(fmt.Errorf("creating a client for installation %d: %w", job.InstallationID, err))
	}
	r := &ack{Acknowledger: a, gh: gh, job: job, log: log, owner: job.Owner, repo: job.Name}
	return r.run(ctx)
}

func (a *Acknowledger) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

// ack is the state of one acknowledgement.
type ack struct {
	*Acknowledger
	gh          GitHub
	job         jobs.ReuseArgs
	log         *slog.Logger
	owner, repo string
	// allowed are the author associations whose reuse commands count, as
	// the repository's preset says (set by decide); the race guard reads
	// the newest request with them.
	allowed []string
}

// outcome is the answer to a command comment.
type outcome struct {
	accepted bool
	cmd      commands.Reuse
	run      checks.WorkflowRun
	// reason says why a request was rejected (also the log summary).
	reason checks.Text
	// reply renders the 👎 reply; nil for an acceptance.
	reply func() (string, error)
	// ignored: the repository's preset takes no reuse commands, so the
	// comment is not one (no reaction, no reply).
	ignored bool
}

func (r *ack) run(ctx context.Context) error {
	if r.job.Action == "deleted" {
		// The comment and its reactions are gone; only our reply remains.
		r.log.Info("reuse command comment deleted; removing the reply")
		return r.removeReply(ctx)
	}
	c, err := r.comment(ctx)
	if notFound(err) {
		r.log.Info("reuse command comment no longer exists; removing the reply")
		return r.removeReply(ctx)
	}
	if err != nil {
		return err
	}
	// (1) The event must describe the comment as it is now; otherwise a
	// later event (already queued) describes the current state.
	if c.Body != r.job.Body || (!r.job.UpdatedAt.IsZero() && !c.UpdatedAt.Equal(r.job.UpdatedAt)) {
		r.log.Info("stale event: the comment changed since; a newer event will handle it")
		return nil
	}
	// (2) Our earlier verdict on this comment no longer holds.
	if err := r.clearReactions(ctx); err != nil {
		return err
	}
	// (3) An edit that removed the command leaves nothing to answer.
	if !commands.HasReuseLine(c.Body) {
		r.log.Info("the comment no longer holds a reuse command; acknowledgement cleared")
		return r.removeReply(ctx)
	}
	// (4) Validate.
	out, err := r.decide(ctx, c)
	if err != nil {
		return err
	}
	if out.ignored {
		r.log.Info("the repository's checklist takes no reuse commands; the comment is left alone")
		return r.removeReply(ctx)
	}
	// (5) Race guard: answer only the comment as validated, and accept only
	// a request that is still the newest authorized one.
	now, err := r.comment(ctx)
	if notFound(err) {
		return r.removeReply(ctx)
	}
	if err != nil {
		return err
	}
	if now.Body != c.Body || !now.UpdatedAt.Equal(c.UpdatedAt) {
		r.log.Info("the comment changed during validation; a newer event will handle it")
		return r.clearReactions(ctx)
	}
	if out.accepted {
		comments, err := r.comments(ctx)
		if err != nil {
			return err
		}
		_, newest, ok := commands.NewestAuthorized(comments, r.allowed)
		if !ok || newest.ID != c.ID {
			r.log.Info("a newer reuse request appeared during validation; leaving this comment unanswered")
			return r.clearReactions(ctx)
		}
	}
	// (6) Answer.
	if out.accepted {
		if err := r.react(ctx, "+1"); err != nil {
			return err
		}
		if err := r.removeReply(ctx); err != nil {
			return err
		}
		summary := fmt.Sprintf(acceptedSummary, r.job.PR, out.run.ID, out.run.Conclusion)
		r.log.Info(summary, "command", out.cmd.String(), "run_id", out.run.ID, "conclusion", out.run.Conclusion, "outcome", "accepted")
		r.record(ctx, out, summary)
		return nil
	}
	if err := r.react(ctx, "-1"); err != nil {
		return err
	}
	body, err := out.reply()
	if err != nil {
		return fmt.Errorf("rendering the reuse reply: %w", err)
	}
	if err := r.upsertReply(ctx, body); err != nil {
		return err
	}
	summary := fmt.Sprintf(rejectedSummary, out.reason.EN)
	r.log.Info(summary, "outcome", "rejected")
	r.record(ctx, out, summary)
	return nil
}

// record adds the answered command to the history. The answer is on
// GitHub already, so a failure to record it is logged, not retried.
func (r *ack) record(ctx context.Context, out outcome, summary string) {
	if r.Recorder == nil {
		return
	}
	cmd := out.cmd.String()
	if cmd == "" {
		cmd = firstCommandLine(r.job.Body)
	}
	c := Command{Owner: r.owner, Repo: r.repo, PR: r.job.PR, Actor: r.job.AuthorLogin, Command: cmd,
		Accepted: out.accepted, Outcome: summary, CommentID: r.job.CommentID, DeliveryID: r.job.DeliveryID}
	if err := r.Recorder.RecordCommand(ctx, c); err != nil {
		r.log.Warn("recording the command in the history", "err", err)
	}
}

// firstCommandLine is the first line of body that starts a reuse command,
// for a command too malformed to have been parsed.
func firstCommandLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "/use") || strings.HasPrefix(l, "/reuse-sweep-run") {
			return l
		}
	}
	return ""
}

// commentView is the fields of a comment the acknowledger compares.
type commentView struct {
	checks.Comment
	issueURL string
}

func (r *ack) comment(ctx context.Context) (commentView, error) {
	ic, err := r.gh.IssueComment(ctx, r.owner, r.repo, r.job.CommentID)
	if err != nil {
		if notFound(err) {
			return commentView{}, err
		}
		return commentView{}, apiError(fmt.Sprintf("reading comment %d", r.job.CommentID), err)
	}
	v := commentView{Comment: toComment(ic), issueURL: ic.GetIssueURL()}
	// The payload named the PR; the comment itself must agree.
	if !strings.HasSuffix(v.issueURL, "/issues/"+strconv.Itoa(r.job.PR)) {
		return commentView{}, fmt.Errorf("comment %d belongs to %s, not PR #%d", r.job.CommentID, v.issueURL, r.job.PR)
	}
	return v, nil
}

func toComment(ic *github.IssueComment) checks.Comment {
	return checks.Comment{
		ID:          ic.GetID(),
		Author:      ic.GetUser().GetLogin(),
		AuthorIsBot: ic.GetUser().GetType() == "Bot",
		Association: ic.GetAuthorAssociation(),
		Body:        ic.GetBody(),
		URL:         ic.GetHTMLURL(),
		CreatedAt:   ic.GetCreatedAt().Time,
		UpdatedAt:   ic.GetUpdatedAt().Time,
	}
}

// maxCommentPages bounds the comment listing (100 per page).
const maxCommentPages = 100

// comments lists the PR's conversation comments, fresh (never memoized: the
// race guard depends on seeing comments posted a moment ago).
func (r *ack) comments(ctx context.Context) ([]checks.Comment, error) {
	var out []checks.Comment
	for pages, page := 0, 0; ; pages++ {
		if pages == maxCommentPages {
			return nil, fmt.Errorf("PR #%d has more than %d comments; refusing to list further", r.job.PR, maxCommentPages*100)
		}
		cs, next, err := r.gh.IssueComments(ctx, r.owner, r.repo, r.job.PR, page)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing PR #%d comments", r.job.PR), err)
		}
		for _, ic := range cs {
			out = append(out, toComment(ic))
		}
		if next == 0 {
			return out, nil
		}
		page = next
	}
}

func (r *ack) isBot(login string) bool {
	for _, b := range r.BotLogins {
		if strings.EqualFold(b, login) {
			return true
		}
	}
	return false
}
