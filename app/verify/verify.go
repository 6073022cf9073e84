// Package verify runs one verification end to end: it pins the PR (a
// snapshot), resolves and re-reads the sign-off, applies the gates, runs
// the checks on the evidence, decides, renders and (when asked) publishes.
package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Errors callers tell apart.
var (
	// ErrNoSignOff: the PR has no sign-off (or the key's body lost the phrase).
	ErrNoSignOff = errors.New("no sign-off")
	// ErrPRChanged: the PR moved while the scope was determined; retry.
	ErrPRChanged = errors.New("PR changed while determining sign-off scope; retry on the current head")
)

// GitHub is what one verification needs from GitHub: the snapshot's reads
// and the PR's evidence source, the sign-off itself (by ID, or the newest
// among the PR's comments and reviews), and what publishing writes.
// Listings take a page (0 for the first) and return the next (0 at the end).
type GitHub interface {
	snapshot.GitHub
	publish.GitHub
	IssueComment(ctx context.Context, owner, repo string, id int64) (*github.IssueComment, error)
	Review(ctx context.Context, owner, repo string, number int, id int64) (*github.PullRequestReview, error)
	ReviewComment(ctx context.Context, owner, repo string, id int64) (*github.PullRequestComment, error)
	Reviews(ctx context.Context, owner, repo string, number, page int) ([]*github.PullRequestReview, int, error)
	ReviewComments(ctx context.Context, owner, repo string, number, page int) ([]*github.PullRequestComment, int, error)
	// LastEdit names who made the current version of a comment or review
	// (by its GraphQL node ID) and when; a zero time means it was never
	// edited, an empty editor that the account is gone. An error that is
	// not transient means the server cannot tell (no GraphQL).
	LastEdit(ctx context.Context, nodeID string) (editor string, at time.Time, err error)
}

// Publisher writes what a verification concludes; publish.Verdicts is the
// App's.
type Publisher interface {
	// Start checks that a verdict can be published, writing nothing when it
	// cannot, and may mark the assessed commit as being verified (pending
	// status, in-progress check run). On a retry it must not set pending over
	// a final status an earlier attempt wrote.
	Start(ctx context.Context, t publish.Target) (publish.Started, error)
	// Finish publishes the verdict comment, status and check run. It returns
	// the verdict comment.
	Finish(ctx context.Context, s publish.Started, body render.Body) (publish.Published, error)
	// Drop settles a verification whose verdict is stale: nothing of it
	// is published, and the marks Start left are settled with the verdict
	// that stands for the commit (nil: none).
	Drop(ctx context.Context, s publish.Started, standing *publish.Standing, why string) error
	// CloseRun completes t's check run if it is still in progress, with
	// the standing verdict's conclusion (nil: cancelled), saying why.
	CloseRun(ctx context.Context, t publish.Target, standing *publish.Standing, why string) error
	// Abort settles a verification given up for good: the status and the
	// check run of t.Key on t.HeadSHA fail closed, "could not be verified:
	// why".
	Abort(ctx context.Context, t publish.Target, why string) error
	// Withdraw turns a withdrawn sign-off's verdict comment into the
	// withdrawn notice and settles the commit it assessed.
	Withdraw(ctx context.Context, w publish.Withdrawal) (publish.Withdrawn, error)
	// ReportConfigError tells the PR, with one comment updated in place,
	// that the repository configuration is invalid.
	ReportConfigError(ctx context.Context, r publish.ConfigReport) (publish.Published, error)
}

// Status says how a verification ended.
type Status string

const (
	// Verified: checks ran and a verdict exists.
	Verified Status = "VERIFIED"
	// NotRequired: the scope gate found no owner that needs a sign-off.
	NotRequired Status = "NOT_REQUIRED"
	// Skipped: a gate stopped the verification silently (draft, closed,
	// unauthorized actor, phrase edited away).
	Skipped Status = "SKIPPED"
	// Superseded: a verdict was decided but not published, a newer event
	// for the sign-off having arrived meanwhile (SkipReason says which).
	Superseded Status = "SUPERSEDED"
)

// Request names one verification.
type Request struct {
	Owner, Repo string
	Number      int
	// SignOff is the sign-off to verify; the zero Ref means the newest
	// sign-off on the PR.
	SignOff signoff.Ref
	// Explicit verifications (verdict check, /verdict recheck, dispatch)
	// bypass the open/non-draft gate; the CLI also bypasses the actor gate.
	Explicit  bool
	SkipActor bool
	Actor     string
	ActorType string
	// Action is the webhook action that asked for the verification
	// ("created", "edited", "submitted"; "" for verdict check): an edit's
	// Actor is the sign-off's editor, but only of the body Delivered
	// describes.
	Action    string
	Delivered signoff.Stamp
	// ReviewDate fixes "today" for date-dependent checks; zero means now (UTC).
	ReviewDate time.Time
	DeliveryID string
	// Publish writes the comment, status and check run.
	Publish bool
	// Retry says an earlier attempt of this same verification ran (and
	// failed or died), so its marks on GitHub may be there already.
	Retry bool
	// AssessBy bounds the time to decide the verdict (zero: ctx's bound
	// only). Publishing a verdict decided in time goes on after it, under
	// ctx, so an attempt cut short leaves nothing half-published.
	AssessBy time.Time
	// Installation is the App installation the verification runs under
	// (0 outside the App): an open check run is recorded with it.
	Installation int64
	// Superseded, when set, is asked right before publishing whether a
	// newer event for the sign-off arrived meanwhile (why it is stale, ""
	// when it is current): then the verdict is dropped unpublished and the
	// newer event's verification publishes.
	Superseded func(ctx context.Context) (string, error)
}

// Outcome is the result of one verification.
type Outcome struct {
	Status     Status
	SkipReason string
	Scope      scope.Scope
	// Integrity is what the edit history says of the sign-off's author.
	Integrity  Integrity
	Verdict    render.Verdict
	Markdown   string
	CommentURL string
	// APICalls is filled by callers that count requests (benchmarks, CLI -v).
	APICalls int
}

// PinnedError is a verification that failed after it pinned the head: it
// names the commit and sign-off whose marks a final failure must settle.
type PinnedError struct {
	Key, HeadSHA string
	Err          error
}

func (e *PinnedError) Error() string { return e.Err.Error() }
func (e *PinnedError) Unwrap() error { return e.Err }

// Recorder keeps an audit record of every published verdict, and of every
// verification given up without one.
type Recorder interface {
	RecordVerification(ctx context.Context, r Record) error
	RecordUnverified(ctx context.Context, u Unverified) error
}

// Unverified is what the audit trail keeps of a verification given up.
type Unverified struct {
	Owner, Repo string
	Number      int
	DeliveryID  string
	Key         string // the sign-off ("" when none was resolved)
	HeadSHA     string // the commit settled
	Why         string
	At          time.Time
}

// Record is what the audit trail keeps of one published verdict.
type Record struct {
	Owner, Repo string
	Number      int
	DeliveryID  string
	Actor       string
	Key         string // the sign-off
	HeadSHA     string // the commit assessed
	// BodySHA256 is the hex SHA-256 of the sign-off body assessed.
	BodySHA256 string
	Verdict    checks.Overall
	Rows       []checks.Outcome
	// Bypasses are the verified admin bypasses of rows on HeadSHA.
	Bypasses   []Bypass
	CommentURL string
	Duration   time.Duration
	APICalls   int
	At         time.Time
}

// Bypass is an admin bypass of one check that a verification saw.
type Bypass struct {
	Check           int
	By, URL, Reason string
}

// Verifier holds what every verification shares.
type Verifier struct {
	// Presets are the checklists served, in the order detection tries
	// them (checks.Choose).
	Presets   []*checks.Preset
	Publisher Publisher
	Recorder  Recorder
	// Ledger keeps each sign-off's last authentic version and integrity
	// state between verifications; nil in verdict check.
	Ledger Ledger
	// BotLogins are the App's identities; they are added to every repo's
	// configured verifier identities.
	BotLogins []string
	Now       func() time.Time
	Logger    *slog.Logger
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now().UTC()
	}
	return time.Now().UTC()
}

func (v *Verifier) logger() *slog.Logger {
	if v.Logger != nil {
		return v.Logger
	}
	return slog.Default()
}

// Verify runs one verification with gh, authorized for the repository (an
// installation in the App, a token in the CLI). A transient GitHub failure
// anywhere (one the retrying transport could not get past) or a cancelled
// ctx returns an error and publishes nothing: no verdict is ever decided
// from evidence that was merely unavailable.
func (v *Verifier) Verify(ctx context.Context, gh GitHub, req Request) (Outcome, error) {
	log := v.logger().With("repo", req.Owner+"/"+req.Repo, "pr", req.Number, "delivery_id", req.DeliveryID)
	start := time.Now()
	ctx, calls := ghclient.CountCalls(ctx)
	// Assessing reads under actx; publishing writes under ctx.
	actx := ctx
	if !req.AssessBy.IsZero() {
		var cancel context.CancelFunc
		actx, cancel = context.WithDeadline(ctx, req.AssessBy)
		defer cancel()
	}

	snap, run, out, err := v.prepare(actx, gh, req, log)
	if snap != nil {
		defer snapshot.Release(snap.Evidence)
	}
	if run != nil && run.cancelled {
		// A stop decided after the checks started cancelled them: their
		// reads broke off on purpose, and the gates report their own
		// transient failures as errors.
		if terr := unavailable(actx, nil); terr != nil {
			return Outcome{}, terr
		}
	} else if terr := unavailable(actx, snap); terr != nil {
		run.stop()
		return Outcome{}, terr
	}

	if err != nil || out.Status != "" {
		return out, err
	}
	pr := snap.PR
	log = log.With("head_sha", pr.HeadSHA, "signoff", pr.SignOff.Key)
	pinned := func(err error) error { return &PinnedError{Key: pr.SignOff.Key, HeadSHA: pr.HeadSHA, Err: err} }

	var started publish.Started
	var newer string
	if req.Publish && v.Publisher != nil {
		superseding, err := v.newerStanding(ctx, req, pr.SignOff, pr.HeadSHA)
		if err != nil {
			run.stop()
			return out, err
		}
		if superseding != nil {
			newer = superseding.Key
		}
		// Start refuses, having written nothing, when no verdict could be
		// published; a failed pending mark it only logs.
		t := publish.Target{Client: gh, Config: snap.Config, Owner: req.Owner, Repo: req.Repo, Number: req.Number,
			Key: pr.SignOff.Key, HeadSHA: pr.HeadSHA, Retry: req.Retry, SupersededBy: newer, Superseding: superseding}
		if started, err = v.Publisher.Start(ctx, t); err != nil {
			run.stop()
			return out, fmt.Errorf("publishing verdict: %w", err)
		}
		if started.Opened() {
			v.openedRun(ctx, req, pr.SignOff.Key, pr.HeadSHA)
		}
	}

	rows := run.wait()
	if terr := unavailable(actx, snap); terr != nil {
		return Outcome{}, pinned(terr)
	}
	vd := render.Verdict{
		Preset:     snap.Preset,
		Key:        pr.SignOff.Key,
		Author:     pr.SignOff.Author,
		HeadSHA:    pr.HeadSHA,
		Rows:       rows,
		Overall:    checks.Decide(rows),
		Escalation: snap.Preset.EscalationOf(pr),
	}
	if keys, ok := snap.Preset.AffectedOf(pr); ok {
		vd.AffectedConfigs = keys
	}
	// If the head moved while we worked, the verdict still describes the
	// pinned commit; say that the newer one was not assessed.
	cur, err := gh.PullRequest(actx, req.Owner, req.Repo, req.Number)
	switch {
	case err == nil && cur.GetHead().GetSHA() != pr.HeadSHA:
		vd.AdvancedTo = cur.GetHead().GetSHA()
	case err != nil && (actx.Err() != nil || retry.IsTransient(ghclient.Classify(err))):
		return Outcome{}, pinned(fmt.Errorf("re-reading PR #%d: %w", req.Number, err))
	}
	body, rerr := render.Render(vd)
	if rerr != nil {
		// The guard refused our own output; the body is the fixed
		// invalid-verdict one, which is published as REJECTED.
		log.Error("verdict failed self-validation", "err", rerr)
		vd.Overall = checks.VerdictRejected
	}
	out.Status, out.Verdict, out.Markdown = Verified, vd, body.Markdown()
	if !req.Publish || v.Publisher == nil {
		log.Info("assessed", "verdict", vd.Overall, "duration_ms", time.Since(start).Milliseconds())
		return out, nil
	}
	if stale, err := v.stale(ctx, req, pr, started, log); err != nil || stale != "" {
		if err != nil {
			return Outcome{}, pinned(err)
		}
		out.Status, out.SkipReason = Superseded, stale
		return out, nil
	}
	comment, err := v.Publisher.Finish(ctx, started, body)
	if err != nil {
		return out, pinned(fmt.Errorf("publishing verdict: %w", err))
	}
	v.closedRun(ctx, req.Owner, req.Repo, pr.SignOff.Key, pr.HeadSHA)
	url := comment.CommentURL
	out.CommentURL = url
	if err := v.remember(ctx, req, pr, out.Integrity, vd.Overall, comment); err != nil {
		return out, pinned(err)
	}
	v.hideOutdated(ctx, gh, req.Owner, req.Repo, req.Number, snap.Config.MinimizeOutdatedEnabled())
	if snap.Config.MinimizeOutdatedEnabled() {
		// A verdict means the configuration reads again: its notice is over.
		v.settleNotice(ctx, gh, req, comment.ConfigErrorNodeID, true)
	}
	out.APICalls = calls.Count()
	if v.Recorder != nil {
		rec := Record{Owner: req.Owner, Repo: req.Repo, Number: req.Number, DeliveryID: req.DeliveryID, Actor: req.Actor,
			Key: pr.SignOff.Key, HeadSHA: pr.HeadSHA, BodySHA256: bodyHash(pr.SignOff.Body),
			Verdict: vd.Overall, Rows: rows, Bypasses: bypasses(ctx, pr, rows), CommentURL: url,
			Duration: time.Since(start), APICalls: calls.Count(), At: v.now()}
		if err := v.Recorder.RecordVerification(ctx, rec); err != nil {
			log.Warn("recording audit entry", "err", err)
		}
	}
	log.Info("verified", "verdict", vd.Overall, "comment_url", url, "superseded_by", newer, "duration_ms", time.Since(start).Milliseconds(), "api_calls", out.APICalls)
	return out, nil
}

// stale asks, right before publishing, whether a newer event for the
// sign-off arrived while the verdict was decided. If so, the verdict is
// dropped and the marks Start left settled with the verdict that stands
// for the commit; the newer event's verification publishes.
func (v *Verifier) stale(ctx context.Context, req Request, pr *checks.PR, started publish.Started, log *slog.Logger) (string, error) {
	if req.Superseded == nil {
		return "", nil
	}
	why, err := req.Superseded(ctx)
	if err != nil || why == "" {
		return "", err
	}
	r, err := v.standing(ctx, req.Owner, req.Repo, req.Number, "", pr.HeadSHA)
	if err != nil {
		return "", err
	}
	if err := v.Publisher.Drop(ctx, started, standingOf(r), why); err != nil {
		return "", fmt.Errorf("settling a superseded verification: %w", err)
	}
	v.closedRun(ctx, req.Owner, req.Repo, pr.SignOff.Key, pr.HeadSHA)
	log.Info("verdict not published: superseded", "reason", why)
	return why, nil
}

func bodyHash(body string) string { return signoff.BodyHash(body) }

// bypasses are the verified admin bypasses on the assessed commit of the
// rows a verification ran, read from the same (memoized) comments the
// checks read. A lookup that fails records nothing: the rows say so.
func bypasses(ctx context.Context, pr *checks.PR, rows []checks.Outcome) []Bypass {
	var out []Bypass
	for _, r := range rows {
		b, err := commands.FindBypass(ctx, pr.Source, pr.HeadSHA, r.Number)
		if err != nil || !b.Verified {
			continue
		}
		out = append(out, Bypass{Check: r.Number, By: b.By, URL: b.URL, Reason: b.Reason})
	}
	return out
}

// unavailable is the error that stops a verification whose evidence was
// not (all) readable: the context's, or the evidence source's first
// transient failure.
func unavailable(ctx context.Context, snap *snapshot.Snapshot) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("verification interrupted: %w", err)
	}
	if snap == nil {
		return nil
	}
	if err := snap.Evidence.Transient(); err != nil {
		return fmt.Errorf("evidence unavailable, not assessed: %w", err)
	}
	return nil
}

// Abandon settles a verification that will not be retried: the status and
// check run of its sign-off fail closed with why (and a verdict comment an
// attempt published for the same commit says no valid verdict was
// produced), and the history records it. It settles the commit the
// last attempt pinned (found in cause, a PinnedError) or else the PR's
// current head, resolving the newest sign-off when req names none.
func (v *Verifier) Abandon(ctx context.Context, gh GitHub, req Request, cause error, why string) error {
	if v.Publisher == nil {
		return nil
	}
	cfg, err := v.configuration(ctx, gh, req.Owner, req.Repo, req.Number)
	if err != nil {
		return err
	}
	t := publish.Target{Client: gh, Config: cfg, Owner: req.Owner, Repo: req.Repo, Number: req.Number}
	var pe *PinnedError
	if errors.As(cause, &pe) {
		t.Key, t.HeadSHA = pe.Key, pe.HeadSHA
	} else {
		ghpr, err := gh.PullRequest(ctx, req.Owner, req.Repo, req.Number)
		if err != nil {
			return fmt.Errorf("reading PR #%d: %w", req.Number, err)
		}
		t.HeadSHA = ghpr.GetHead().GetSHA()
		ref := req.SignOff
		if ref.IsZero() {
			src := gh.Evidence(req.Owner, req.Repo, req.Number)
			defer snapshot.Release(src)
			if ref, err = newestSignOff(ctx, gh, src, req.Owner, req.Repo, req.Number, cfg.SignOffPhrase); err != nil {
				return err
			}
		}
		t.Key = ref.Key()
	}
	if err := v.Publisher.Abort(ctx, t, why); err != nil {
		return err
	}
	v.closedRun(ctx, req.Owner, req.Repo, t.Key, t.HeadSHA)
	if v.Recorder != nil {
		u := Unverified{Owner: req.Owner, Repo: req.Repo, Number: req.Number, DeliveryID: req.DeliveryID,
			Key: t.Key, HeadSHA: t.HeadSHA, Why: why, At: v.now()}
		if err := v.Recorder.RecordUnverified(ctx, u); err != nil {
			v.logger().Warn("recording audit entry", "repo", req.Owner+"/"+req.Repo, "pr", req.Number, "err", err)
		}
	}
	return nil
}

// prepare takes the snapshot, resolves the sign-off and applies the gates.
// A non-empty out.Status means the verification stops there. The snapshot
// is returned whenever it was taken, so the caller can tell whether its
// evidence failed transiently.
//
// Every read goes out as soon as what it needs is known: the snapshot, the
// sign-off (or the listings it is found in), the PR's files, commits and
// comments and the actor's permission all start together, and the checks
// start as soon as the snapshot and the sign-off are there, while the
// scope and the remaining gates are decided. A gate that stops the
// verification cancels them (run.cancelled); otherwise the caller waits
// for their rows.
func (v *Verifier) prepare(ctx context.Context, gh GitHub, req Request, log *slog.Logger) (kept *snapshot.Snapshot, _ *checkRun, _ Outcome, _ error) {
	var out Outcome
	src := gh.Evidence(req.Owner, req.Repo, req.Number)
	// Verify releases the evidence of the snapshot it is handed once the
	// checks are done; without one, nothing will.
	defer func() {
		if kept == nil {
			snapshot.Release(src)
		}
	}()
	var snap *snapshot.Snapshot
	var snapErr error
	took := make(chan struct{})
	go func() {
		defer close(took)
		snap, snapErr = snapshot.TakeWith(ctx, gh, src, v.Presets, req.Owner, req.Repo, req.Number, func(pull *github.PullRequest) {
			prefetchHead(ctx, src, pull.GetHead().GetSHA(), pull.GetBase().GetSHA())
		})
	}()
	ref := req.SignOff
	var fetched checks.SignOff
	var fetchedMeta signOffMeta
	var found []candidate
	var soErr error
	resolved := make(chan struct{})
	go func() {
		defer close(resolved)
		if ref.IsZero() {
			found, soErr = signOffCandidates(ctx, gh, src, req.Owner, req.Repo, req.Number)
			prefetchWriters(ctx, src, found)
		} else {
			fetched, fetchedMeta, soErr = fetchSignOff(ctx, gh, req.Owner, req.Repo, req.Number, ref)
			if soErr == nil {
				// The author gate's read, beside the snapshot.
				prefetchPermission(ctx, src, fetched.Author, fetchedMeta.userType)
			}
		}
	}()
	prefetch(ctx, src, req)
	<-took
	<-resolved
	if snapErr != nil {
		return nil, nil, out, v.configError(ctx, gh, req, snapErr, log)
	}
	snap.Config.BotLogins = append(snap.Config.BotLogins, v.BotLogins...)
	pr := snap.PR
	prefetchPinned(ctx, snap)
	if soErr != nil && req.Delivered.SHA256 != "" && ghclient.IsNotFound(soErr) {
		// A delivery's sign-off deleted before its verification ran: its
		// withdrawal (if it was ever a sign-off that counted) is the
		// deletion's own job. An explicit request naming a sign-off that
		// is not there (verdict check, a recheck by URL) stays an error.
		// Publishing "could not be verified" here would let anyone who
		// can comment flip a passing status by posting the phrase and
		// deleting it.
		log.Info("not verified", "reason", "the sign-off is gone", "signoff", ref.Key(), "err", soErr)
		return snap, nil, Outcome{Status: Skipped, SkipReason: "the sign-off was deleted before it was verified"}, nil
	}
	if soErr != nil {
		return snap, nil, out, soErr
	}
	so, meta := fetched, fetchedMeta
	if ref.IsZero() {
		c, err := newest(ctx, src, found, req.Number, snap.Config.SignOffPhrase)
		if err != nil {
			return snap, nil, out, err
		}
		so, meta = c.so, c.meta
	}
	log = log.With("signoff", so.Key, "head_sha", pr.HeadSHA)
	// A gate that refuses leaves nothing on GitHub for whoever edited or
	// asked; the log line says who and why.
	skipped := func(reason string) Outcome {
		log.Info("not verified", "reason", reason, "actor", req.Actor)
		return Outcome{Status: Skipped, SkipReason: reason}
	}
	if !signoff.IsCandidate(so.Body, snap.Config.SignOffPhrase) {
		return snap, nil, skipped("the sign-off no longer contains the sign-off phrase"), nil
	}
	if err := sanityGate(req.Owner+"/"+req.Repo, so.Author, req.Number); err != nil {
		return snap, nil, skipped(err.Error()), nil
	}
	rec, err := v.record(ctx, req, so.Key)
	if err != nil {
		return snap, nil, out, err
	}
	if reason := withdrawn(meta, rec); reason != "" {
		return snap, nil, skipped(reason), nil
	}
	// Who wrote the current body (the edit history, when it must be
	// asked) and for which commit is read beside the checks and the
	// gates; the row that judges who signed reads it (checks.Authored).
	type judged struct {
		in  Integrity
		err error
	}
	integrity := make(chan judged, 1)
	go func() {
		in, err := authenticity(ctx, lastEdit(gh), req, so, meta, rec, v.now())
		if err == nil {
			in.GivenFor, err = v.givenFor(ctx, req, so, in, pr.HeadSHA)
		}
		integrity <- judged{in, err}
	}()
	judgement := sync.OnceValue(func() judged { return <-integrity })
	pr.Authorship = func(ctx context.Context) (checks.Authorship, error) {
		j := judgement()
		return j.in.Authorship, j.err
	}
	reviewDate := req.ReviewDate
	if reviewDate.IsZero() {
		reviewDate = v.now()
	}
	pr.SignOff = so
	pr.ReviewDate = time.Date(reviewDate.Year(), reviewDate.Month(), reviewDate.Day(), 0, 0, 0, 0, time.UTC)

	reg, err := snap.Preset.Registry()
	if err != nil {
		return snap, nil, out, err
	}
	run := startChecks(ctx, reg, pr, snap.Config.Enabled)
	stop := func(o Outcome, err error) (*snapshot.Snapshot, *checkRun, Outcome, error) {
		run.stop()
		judgement() // no read outlives the verification
		return snap, run, o, err
	}
	sc, err := scope.Of(ctx, snap.Preset, pr)
	if err != nil {
		return stop(out, err)
	}
	if !sc.Required {
		log.Info("no sign-off required", "owners", sc.Owners)
		return stop(Outcome{Status: NotRequired, Scope: sc, SkipReason: "every changed file is owned by the core team or repository admins"}, nil)
	}
	// The scope must describe the PR we are about to assess: a push or a
	// base change in between would leave it deciding on other files.
	again, err := gh.PullRequest(ctx, req.Owner, req.Repo, req.Number)
	if err != nil {
		return stop(out, fmt.Errorf("re-reading PR #%d: %w", req.Number, err))
	}
	if again.GetHead().GetSHA() != pr.HeadSHA || again.GetBase().GetSHA() != pr.BaseSHA ||
		again.GetBase().GetRef() != pr.BaseRef || again.GetChangedFiles() != pr.ChangedFiles {
		return stop(out, ErrPRChanged)
	}
	if !req.Explicit && (pr.State != "open" || pr.Draft) {
		return stop(skipped(fmt.Sprintf("PR is %s (draft=%v)", pr.State, pr.Draft)), nil)
	}
	// Only an account that could trigger a verification can author a
	// sign-off (checks/inferencex/RULES.md, "Sign-off integrity").
	if err := actorGate(ctx, snap.Evidence, so.Author, meta.userType); err != nil {
		if retry.IsTransient(ghclient.Classify(err)) || ctx.Err() != nil {
			return stop(out, err)
		}
		return stop(skipped("sign-off author: "+err.Error()), nil)
	}
	if !req.SkipActor {
		if err := actorGate(ctx, snap.Evidence, req.Actor, req.ActorType); err != nil {
			if retry.IsTransient(ghclient.Classify(err)) || ctx.Err() != nil {
				return stop(out, err)
			}
			return stop(skipped(err.Error()), nil)
		}
	}
	j := judgement()
	if j.err != nil {
		return stop(out, j.err)
	}
	out.Integrity = j.in
	out.Scope = sc
	return snap, run, out, nil
}
