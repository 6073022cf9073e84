// Package publish writes Verdict's results to GitHub idempotently: the
// verdict comment (one per sign-off, keyed by its hidden marker and updated
// in place), the commit status and the check run on the assessed commit, and
// the bot's other comments (reminder, command replies).
//
// A verification publishes in two steps. Start marks the pinned head as
// being verified (pending status, in-progress check run); Finish upserts the
// comment and then completes the status and the check run, pointing both at
// the comment. If the comment cannot be written Finish returns before
// touching the status, so a retry starts from the same state; Abort settles
// a verification that will not be retried.
package publish

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// GitHub is what publishing reads and writes: the PR's conversation
// comments, commit statuses and check runs. Listings take a page (0 for the
// first) and return the next one (0 when there is none).
type GitHub interface {
	IssueComments(ctx context.Context, owner, repo string, number, page int) ([]*github.IssueComment, int, error)
	CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (*github.IssueComment, error)
	EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (*github.IssueComment, error)
	CreateStatus(ctx context.Context, owner, repo, sha string, status *github.RepoStatus) error
	// Statuses lists a commit's newest statuses (one page, newest first).
	Statuses(ctx context.Context, owner, repo, sha string) ([]*github.RepoStatus, error)
	CheckRuns(ctx context.Context, owner, repo, sha, name string, page int) ([]*github.CheckRun, int, error)
	CreateCheckRun(ctx context.Context, owner, repo string, opts github.CreateCheckRunOptions) (*github.CheckRun, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, opts github.UpdateCheckRunOptions) error
	// MinimizeComment hides a comment (by node ID) as outdated;
	// UnminimizeComment shows it again.
	MinimizeComment(ctx context.Context, nodeID string) error
	UnminimizeComment(ctx context.Context, nodeID string) error
}

// Defaults for the zero Publisher fields.
const (
	DefaultStatusContext = "codeowner-signoff-verify"
	DefaultCheckRunName  = "Verdict / sign-off"
)

// Status descriptions. The PASS, REJECTED and no-verdict strings are the
// ones the repository's branch protection and people already know from the
// bot Verdict replaces: keep them.
const (
	descPending  = "Verifying CODEOWNER sign-off"
	descPass     = "CODEOWNER sign-off independently verified"
	descWarn     = "CODEOWNER sign-off verified with advisory warnings"
	descRejected = "Sign-off verification rejected - see verdict comment"
	descNone     = "No verification verdict was posted for this commit"
	// descUnverified starts the status of a verification given up for good.
	descUnverified = "Sign-off could not be verified: "
)

// maxOutputChars is GitHub's limit for a check run's output summary and text.
const maxOutputChars = 65535

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Publisher publishes through one installation client.
type Publisher struct {
	Client GitHub
	// BotLogins are the identities whose comments count as ours, e.g.
	// "verdict[bot]" (compared case-insensitively).
	BotLogins []string
	// StatusContext defaults to DefaultStatusContext.
	StatusContext string
	StatusEnabled bool
	// WarnAs is the status state for a WARN verdict: "success" (default) or
	// "failure".
	WarnAs string
	// CheckRunName defaults to DefaultCheckRunName.
	CheckRunName     string
	CheckRunsEnabled bool
	// DetailsBase, when set, is where Verdict's details pages are served
	// (no trailing slash): a check run links to its PR's page,
	// DetailsBase/pr/{owner}/{repo}/{number}, instead of the comment.
	DetailsBase string
}

// detailsURL is where a completed check run of PR pr links to.
func (p *Publisher) detailsURL(h Handle, pr int, commentURL string) string {
	if p.DetailsBase == "" || pr <= 0 {
		return commentURL
	}
	return fmt.Sprintf("%s/pr/%s/%s/%d", p.DetailsBase, url.PathEscape(h.Owner), url.PathEscape(h.Repo), pr)
}

// Handle identifies one verification in progress.
type Handle struct {
	Owner, Repo string
	SHA         string // the pinned head being assessed
	Key         string // the sign-off being verified
	CheckRunID  int64  // 0 when check runs are off or not found yet
}

// externalID names the check run of one sign-off's verification of one
// commit, so every attempt of it finds the same run again.
func (h Handle) externalID() string { return h.Key + "@" + h.SHA }

// Start posts the pending status and opens the in-progress check run of
// sign-off key on sha. retry says an earlier attempt of this verification
// ran: it may have written the final status already, which pending must not
// cover, and its check run (in progress or completed) is reused. It returns
// a usable Handle even when a write fails (Finish then finds or creates the
// check run it needs), together with the failures.
func (p *Publisher) Start(ctx context.Context, owner, repo, sha, key string, retry bool) (Handle, error) {
	h := Handle{Owner: owner, Repo: repo, SHA: sha, Key: key}
	if err := p.checkHandle(h); err != nil {
		return h, err
	}
	var errs []error
	if p.StatusEnabled && !retry {
		if err := p.status(ctx, h, "pending", descPending, ""); err != nil {
			errs = append(errs, err)
		}
	}
	if p.CheckRunsEnabled {
		id, err := p.openCheckRun(ctx, h, retry)
		if err != nil {
			errs = append(errs, err)
		}
		h.CheckRunID = id
	}
	return h, errors.Join(errs...)
}

// openCheckRun returns the check run of ours for h's sign-off and commit,
// creating an in-progress one when there is none, or when the one there is
// completed and this is a new verification rather than a retry. A failed
// look-up creates nothing (Finish looks again), so no retry can leave a
// second run behind.
func (p *Publisher) openCheckRun(ctx context.Context, h Handle, retry bool) (int64, error) {
	cr, err := p.findCheckRun(ctx, h)
	if err != nil {
		return 0, err
	}
	if cr != nil && (retry || cr.GetStatus() != "completed") {
		return cr.GetID(), nil
	}
	created, err := p.Client.CreateCheckRun(ctx, h.Owner, h.Repo, github.CreateCheckRunOptions{
		Name:       p.checkRunName(),
		HeadSHA:    h.SHA,
		ExternalID: github.String(h.externalID()),
		Status:     github.String("in_progress"),
		Output:     &github.CheckRunOutput{Title: github.String(descPending), Summary: github.String(descPending + ".")},
	})
	if err != nil {
		return 0, fmt.Errorf("creating check run on %s/%s@%s: %w", h.Owner, h.Repo, h.SHA, err)
	}
	return created.GetID(), nil
}

// findCheckRun returns the newest check run of ours on h.SHA whose external
// ID names h's sign-off and commit, nil when there is none.
func (p *Publisher) findCheckRun(ctx context.Context, h Handle) (*github.CheckRun, error) {
	name := p.checkRunName()
	var found *github.CheckRun
	for page := 0; ; {
		list, next, err := p.Client.CheckRuns(ctx, h.Owner, h.Repo, h.SHA, name, page)
		if err != nil {
			return nil, fmt.Errorf("looking up the check run of %s on %s/%s@%s: %w", h.Key, h.Owner, h.Repo, h.SHA, err)
		}
		for _, cr := range list {
			if cr.GetName() == name && cr.GetExternalID() == h.externalID() && p.isBot(cr.GetApp().GetSlug()+"[bot]") &&
				(found == nil || cr.GetID() > found.GetID()) {
				found = cr
			}
		}
		if next == 0 {
			return found, nil
		}
		page = next
	}
}

// Finish publishes body, the verdict rendered for h's sign-off and commit,
// on PR pr, and completes the status and check run of h. The status follows
// body.Overall, the verdict the body announces (a body the guard refused is
// the REJECTED invalid-verdict body), so it can never be greener than the
// comment it links to. Nothing is written when the handle and the body do
// not name the same sign-off and commit.
func (p *Publisher) Finish(ctx context.Context, h Handle, pr int, body render.Body) (Published, error) {
	if body.IsZero() {
		return Published{}, errors.New("publish: no rendered verdict")
	}
	if h.Key == "" {
		h.Key = body.Key()
	}
	if err := p.checkHandle(h); err != nil {
		return Published{}, err
	}
	if h.Key != body.Key() {
		return Published{}, fmt.Errorf("publish: handle of %s used for %s", h.Key, body.Key())
	}
	if h.SHA != body.HeadSHA() {
		return Published{}, fmt.Errorf("publish: verdict body is not for the assessed commit %s", h.SHA)
	}
	state := body.Overall()
	pub, err := p.Upsert(ctx, h.Owner, h.Repo, pr, render.Marker(h.Key), body.Markdown())
	if err != nil {
		return Published{}, fmt.Errorf("publishing verdict for %s: %w", h.Key, err)
	}

	var errs []error
	if p.StatusEnabled {
		st, desc := p.statusFor(state)
		if err := p.status(ctx, h, st, desc, pub.CommentURL); err != nil {
			errs = append(errs, err)
		}
	}
	if p.CheckRunsEnabled {
		out := &github.CheckRunOutput{
			Title:   github.String(title(state)),
			Summary: github.String(truncate(body.English(), maxOutputChars)),
		}
		if zh := body.Chinese(); strings.TrimSpace(zh) != "" {
			out.Text = github.String(truncate(strings.TrimLeft(zh, "\n"), maxOutputChars))
		}
		if err := p.completeCheckRun(ctx, h, conclusion(state), p.detailsURL(h, pr, pub.CommentURL), out); err != nil {
			errs = append(errs, err)
		}
	}
	return pub, errors.Join(errs...)
}

// Abort settles a verification that produced no verdict and will not be
// retried, so that the commit never stays pending: a failure status and a
// failed check run, both saying the sign-off could not be verified and why.
func (p *Publisher) Abort(ctx context.Context, h Handle, why string) error {
	if err := p.checkHandle(h); err != nil {
		return err
	}
	why = strings.Join(strings.Fields(why), " ")
	var errs []error
	if p.StatusEnabled {
		if err := p.status(ctx, h, "failure", clip(descUnverified+why, 140), ""); err != nil {
			errs = append(errs, err)
		}
	}
	if p.CheckRunsEnabled {
		out := &github.CheckRunOutput{Title: github.String("Could not be verified"),
			Summary: github.String(truncate(descNone+". "+descUnverified+why, maxOutputChars))}
		if err := p.completeCheckRun(ctx, h, "failure", "", out); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func (p *Publisher) checkHandle(h Handle) error {
	if p.Client == nil {
		return errors.New("publish: no GitHub client")
	}
	if h.Owner == "" || h.Repo == "" {
		return fmt.Errorf("publish: invalid repository %q/%q", h.Owner, h.Repo)
	}
	if !shaRE.MatchString(h.SHA) {
		return fmt.Errorf("publish: invalid commit %q: want 40 lowercase hex digits", h.SHA)
	}
	if !signoff.ValidKey(h.Key) {
		return fmt.Errorf("publish: invalid sign-off key %q", h.Key)
	}
	switch p.WarnAs {
	case "", "success", "failure":
	default:
		return fmt.Errorf("publish: warnAs must be success or failure, got %q", p.WarnAs)
	}
	return nil
}

func (p *Publisher) status(ctx context.Context, h Handle, state, desc, target string) error {
	st := &github.RepoStatus{State: github.String(state), Description: github.String(desc), Context: github.String(p.statusContext())}
	if target != "" {
		st.TargetURL = github.String(target)
	}
	// Setting a status twice changes nothing, so it may be retried.
	if err := p.Client.CreateStatus(ghclient.Repeatable(ctx), h.Owner, h.Repo, h.SHA, st); err != nil {
		return fmt.Errorf("setting %s status on %s/%s@%s: %w", state, h.Owner, h.Repo, h.SHA, err)
	}
	return nil
}

// completeCheckRun completes h's check run (found again by its external ID
// when Start could not open it), or creates a completed one when there is
// none or it has disappeared.
func (p *Publisher) completeCheckRun(ctx context.Context, h Handle, concl, detailsURL string, out *github.CheckRunOutput) error {
	var details *string
	if detailsURL != "" {
		details = github.String(detailsURL)
	}
	ext := github.String(h.externalID())
	if h.CheckRunID == 0 {
		cr, err := p.findCheckRun(ctx, h)
		if err != nil {
			return err
		}
		h.CheckRunID = cr.GetID()
	}
	if h.CheckRunID != 0 {
		err := p.Client.UpdateCheckRun(ghclient.Repeatable(ctx), h.Owner, h.Repo, h.CheckRunID, github.UpdateCheckRunOptions{
			Name: p.checkRunName(), Status: github.String("completed"), Conclusion: github.String(concl),
			DetailsURL: details, ExternalID: ext, Output: out,
		})
		if err == nil {
			return nil
		}
		if !isNotFound(err) {
			return fmt.Errorf("completing check run %d on %s/%s@%s: %w", h.CheckRunID, h.Owner, h.Repo, h.SHA, err)
		}
	}
	_, err := p.Client.CreateCheckRun(ctx, h.Owner, h.Repo, github.CreateCheckRunOptions{
		Name: p.checkRunName(), HeadSHA: h.SHA, Status: github.String("completed"), Conclusion: github.String(concl),
		DetailsURL: details, ExternalID: ext, Output: out,
	})
	if err != nil {
		return fmt.Errorf("creating completed check run on %s/%s@%s: %w", h.Owner, h.Repo, h.SHA, err)
	}
	return nil
}

func (p *Publisher) statusFor(v checks.Overall) (state, desc string) {
	switch v {
	case checks.VerdictPass:
		return "success", descPass
	case checks.VerdictWarn:
		if p.WarnAs == "failure" {
			return "failure", descWarn
		}
		return "success", descWarn
	}
	return "failure", descRejected
}

func (p *Publisher) statusContext() string {
	if p.StatusContext == "" {
		return DefaultStatusContext
	}
	return p.StatusContext
}

func (p *Publisher) checkRunName() string {
	if p.CheckRunName == "" {
		return DefaultCheckRunName
	}
	return p.CheckRunName
}

func title(v checks.Overall) string {
	if v == checks.VerdictRejected {
		return "REJECTED"
	}
	return "Verdict: " + string(v)
}

// conclusion maps a verdict to a check run conclusion: WARN is advisory, so
// neutral rather than a failure.
func conclusion(v checks.Overall) string {
	switch v {
	case checks.VerdictPass:
		return "success"
	case checks.VerdictWarn:
		return "neutral"
	}
	return "failure"
}

// truncate cuts s to at most limit bytes on a rune boundary and says so.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const note = "\n\n… (truncated; the full verdict is in the PR comment)"
	cut := max(limit-len(note), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}
