// Package verify runs one verification end to end: it pins the PR, resolves
// and re-reads the sign-off, applies the gates, gathers evidence through a
// GitHub-backed checks.Source, runs the checks, decides, renders and (when
// asked) publishes.
package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Errors callers tell apart.
var (
	// ErrNoSignOff: the PR has no sign-off (or the key's body lost the phrase).
	ErrNoSignOff = errors.New("no sign-off")
	// ErrIncomplete: GitHub returned an inconsistent view; retry later.
	ErrIncomplete = errors.New("incomplete evidence")
	// ErrPRChanged: the PR moved while the scope was determined; retry.
	ErrPRChanged = errors.New("PR changed while determining sign-off scope; retry on the current head")
)

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
)

// Request names one verification.
type Request struct {
	Owner, Repo string
	Number      int
	// SignOff is a key or URL; empty means the newest sign-off on the PR.
	SignOff string
	// Explicit verifications (verdict check, /verdict recheck, dispatch)
	// bypass the open/non-draft gate; the CLI also bypasses the actor gate.
	Explicit  bool
	SkipActor bool
	Actor     string
	ActorType string
	// ReviewDate fixes "today" for date-dependent checks; zero means now (UTC).
	ReviewDate time.Time
	DeliveryID string
	// Publish writes the comment, status and check run.
	Publish bool
	// Retry says an earlier attempt of this same verification ran (and
	// failed or died), so its marks on GitHub may be there already.
	Retry bool
}

// Outcome is the result of one verification.
type Outcome struct {
	Status     Status
	SkipReason string
	Scope      Scope
	Verdict    render.Verdict
	Markdown   string
	CommentURL string
	// APICalls is filled by callers that count requests (benchmarks, CLI -v).
	APICalls int
}

// Publisher writes a verdict. The App's implementation lives in app/publish.
type Publisher interface {
	// Start checks that a verdict can be published, writing nothing when it
	// cannot, and may mark the assessed commit as being verified (pending
	// status, in-progress check run). On a retry it must not set pending over
	// a final status an earlier attempt wrote.
	Start(ctx context.Context, p Publication) (any, error)
	// Finish publishes the verdict comment, status and check run. It returns
	// the verdict comment's URL.
	Finish(ctx context.Context, started any, p Publication) (string, error)
	// Abort settles a verification given up for good: the status and the
	// check run of p.Key on p.HeadSHA fail closed, "could not be verified:
	// why".
	Abort(ctx context.Context, p Publication, why string) error
}

// Publication is what gets published.
type Publication struct {
	Client  *github.Client
	Config  repoconfig.Config
	Owner   string
	Repo    string
	Number  int
	Key     string
	HeadSHA string
	Overall checks.Overall
	Body    string
	Summary string
	// Retry is Request.Retry.
	Retry bool
}

// PinnedError is a verification that failed after it pinned the head: it
// names the commit and sign-off whose marks a final failure must settle.
type PinnedError struct {
	Key, HeadSHA string
	Err          error
}

func (e *PinnedError) Error() string { return e.Err.Error() }
func (e *PinnedError) Unwrap() error { return e.Err }

// Recorder keeps an audit record of every published verdict.
type Recorder interface {
	RecordVerdict(ctx context.Context, owner, repo string, number int, key, sha, verdict, commentURL string) error
}

// Verifier holds what every verification shares.
type Verifier struct {
	Registry      *checks.Registry
	SourceOptions ghsource.Options
	Publisher     Publisher
	Recorder      Recorder
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

// Verify runs one verification with gh, a client authorized for the
// repository (an installation client in the App, a token client in the CLI).
// A transient GitHub failure anywhere (one the retrying transport could not
// get past) or a cancelled ctx returns an error and publishes nothing: no
// verdict is ever decided from evidence that was merely unavailable.
func (v *Verifier) Verify(ctx context.Context, gh *github.Client, req Request) (Outcome, error) {
	log := v.logger().With("repo", req.Owner+"/"+req.Repo, "pr", req.Number, "delivery_id", req.DeliveryID)
	start := time.Now()

	pr, cfg, out, src, err := v.prepare(ctx, gh, req, log)
	if terr := unavailable(ctx, src); terr != nil {
		return Outcome{}, terr
	}
	if err != nil || out.Status != "" {
		return out, err
	}
	log = log.With("head_sha", pr.HeadSHA, "signoff", pr.SignOff.Key)
	pinned := func(err error) error { return &PinnedError{Key: pr.SignOff.Key, HeadSHA: pr.HeadSHA, Err: err} }

	pub := Publication{Client: gh, Config: cfg, Owner: req.Owner, Repo: req.Repo, Number: req.Number, Key: pr.SignOff.Key,
		HeadSHA: pr.HeadSHA, Retry: req.Retry}
	var started any
	if req.Publish && v.Publisher != nil {
		// Start refuses, having written nothing, when no verdict could be
		// published; a failed pending mark it only logs.
		if started, err = v.Publisher.Start(ctx, pub); err != nil {
			return out, fmt.Errorf("publishing verdict: %w", err)
		}
	}

	rows := checks.Run(ctx, v.Registry, pr, cfg.Settings.Enabled)
	if terr := unavailable(ctx, src); terr != nil {
		return Outcome{}, pinned(terr)
	}
	overall := checks.Decide(rows)
	vd := render.Verdict{
		Key:        pr.SignOff.Key,
		Author:     pr.SignOff.Author,
		HeadSHA:    pr.HeadSHA,
		Rows:       rows,
		Overall:    overall,
		Escalation: cfg.EscalationHandles,
	}
	// §1.5: if the head moved while we worked, the verdict still describes
	// H; say that the newer commit was not assessed.
	cur, _, err := gh.PullRequests.Get(ctx, req.Owner, req.Repo, req.Number)
	switch {
	case err == nil && cur.GetHead().GetSHA() != pr.HeadSHA:
		vd.AdvancedTo = cur.GetHead().GetSHA()
	case err != nil && (ctx.Err() != nil || retry.IsTransient(ghclient.Classify(err))):
		return Outcome{}, pinned(fmt.Errorf("re-reading PR #%d: %w", req.Number, err))
	}
	md, rerr := render.Markdown(vd)
	if rerr != nil {
		// The guard refused our own output; Markdown returned the fixed
		// invalid-verdict body, which is published as REJECTED.
		log.Error("verdict failed self-validation", "err", rerr)
		vd.Overall = checks.VerdictRejected
	}
	out.Status, out.Verdict, out.Markdown = Verified, vd, md
	if !req.Publish || v.Publisher == nil {
		log.Info("assessed", "verdict", vd.Overall, "duration_ms", time.Since(start).Milliseconds())
		return out, nil
	}
	pub.Overall, pub.Body = vd.Overall, md
	url, err := v.Publisher.Finish(ctx, started, pub)
	if err != nil {
		return out, pinned(fmt.Errorf("publishing verdict: %w", err))
	}
	out.CommentURL = url
	if v.Recorder != nil {
		if err := v.Recorder.RecordVerdict(ctx, req.Owner, req.Repo, req.Number, pr.SignOff.Key, pr.HeadSHA, string(vd.Overall), url); err != nil {
			log.Warn("recording audit entry", "err", err)
		}
	}
	log.Info("verified", "verdict", vd.Overall, "comment", url, "duration_ms", time.Since(start).Milliseconds())
	return out, nil
}

// unavailable is the error that stops a verification whose evidence was
// not (all) readable: the context's, or the Source's first transient failure.
func unavailable(ctx context.Context, src *ghsource.Source) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("verification interrupted: %w", err)
	}
	if src == nil {
		return nil
	}
	if err := src.Transient(); err != nil {
		return fmt.Errorf("evidence unavailable, not assessed: %w", err)
	}
	return nil
}

// Abandon settles a verification that will not be retried: the status and
// check run of its sign-off fail closed with why. It settles the commit the
// last attempt pinned (found in cause, a PinnedError) or else the PR's
// current head, resolving the newest sign-off when req names none.
func (v *Verifier) Abandon(ctx context.Context, gh *github.Client, req Request, cause error, why string) error {
	if v.Publisher == nil {
		return nil
	}
	repo, _, err := gh.Repositories.Get(ctx, req.Owner, req.Repo)
	if err != nil {
		return fmt.Errorf("reading repository %s/%s: %w", req.Owner, req.Repo, err)
	}
	def := repo.GetDefaultBranch()
	defBranch, _, err := gh.Repositories.GetBranch(ctx, req.Owner, req.Repo, def, 1)
	if err != nil {
		return fmt.Errorf("reading default branch %s: %w", def, err)
	}
	src := ghsource.New(gh, req.Owner, req.Repo, req.Number, v.SourceOptions)
	cfg, err := repoconfig.Load(ctx, src, defBranch.GetCommit().GetSHA())
	if err != nil {
		return fmt.Errorf("reading the repository's configuration: %w", err)
	}
	cfg.BotLogins = append(cfg.BotLogins, v.BotLogins...)
	pub := Publication{Client: gh, Config: cfg, Owner: req.Owner, Repo: req.Repo, Number: req.Number}
	var pe *PinnedError
	if errors.As(cause, &pe) {
		pub.Key, pub.HeadSHA = pe.Key, pe.HeadSHA
	} else {
		ghpr, _, err := gh.PullRequests.Get(ctx, req.Owner, req.Repo, req.Number)
		if err != nil {
			return fmt.Errorf("reading PR #%d: %w", req.Number, err)
		}
		pub.HeadSHA = ghpr.GetHead().GetSHA()
		if pub.Key = req.SignOff; pub.Key == "" {
			if pub.Key, err = newestSignOff(ctx, gh, src, req.Owner, req.Repo, req.Number, cfg.SignOffPhrase); err != nil {
				return err
			}
		} else if pub.Key, err = ParseSignOffRef(pub.Key, req.Owner, req.Repo, req.Number); err != nil {
			return err
		}
	}
	return v.Publisher.Abort(ctx, pub, why)
}

// prepare pins the PR, resolves the sign-off and applies the gates. A
// non-empty out.Status means the verification stops there.
func (v *Verifier) prepare(ctx context.Context, gh *github.Client, req Request, log *slog.Logger) (*checks.PR, repoconfig.Config, Outcome, *ghsource.Source, error) {
	var out Outcome
	src := ghsource.New(gh, req.Owner, req.Repo, req.Number, v.SourceOptions)
	ghRepo, _, err := gh.Repositories.Get(ctx, req.Owner, req.Repo)
	if err != nil {
		return nil, repoconfig.Config{}, out, src, fmt.Errorf("reading repository %s/%s: %w", req.Owner, req.Repo, err)
	}
	ghpr, _, err := gh.PullRequests.Get(ctx, req.Owner, req.Repo, req.Number)
	if err != nil {
		return nil, repoconfig.Config{}, out, src, fmt.Errorf("reading PR #%d: %w", req.Number, err)
	}

	def := ghRepo.GetDefaultBranch()
	defBranch, _, err := gh.Repositories.GetBranch(ctx, req.Owner, req.Repo, def, 1)
	if err != nil {
		return nil, repoconfig.Config{}, out, src, fmt.Errorf("reading default branch %s: %w", def, err)
	}
	defSHA := defBranch.GetCommit().GetSHA()
	cfg, err := repoconfig.Load(ctx, src, defSHA)
	if err != nil {
		return nil, cfg, out, src, v.configError(ctx, gh, req, ghRepo.GetHTMLURL(), def, defSHA, err, log)
	}
	cfg.BotLogins = append(cfg.BotLogins, v.BotLogins...)

	// Resolve the sign-off and re-read it: the assessed body is the current one.
	key := req.SignOff
	if key == "" {
		if key, err = newestSignOff(ctx, gh, src, req.Owner, req.Repo, req.Number, cfg.SignOffPhrase); err != nil {
			return nil, cfg, out, src, err
		}
	} else if key, err = ParseSignOffRef(key, req.Owner, req.Repo, req.Number); err != nil {
		return nil, cfg, out, src, err
	}
	so, err := fetchSignOff(ctx, gh, req.Owner, req.Repo, req.Number, key)
	if err != nil {
		return nil, cfg, out, src, err
	}
	if !signoff.IsCandidate(so.Body, cfg.SignOffPhrase) {
		return nil, cfg, Outcome{Status: Skipped, SkipReason: "the sign-off no longer contains the sign-off phrase"}, src, nil
	}
	if err := sanityGate(req.Owner+"/"+req.Repo, so.Author, req.Number); err != nil {
		return nil, cfg, Outcome{Status: Skipped, SkipReason: err.Error()}, src, nil
	}

	baseBranch := defBranch
	if base := ghpr.GetBase().GetRef(); base != def {
		if baseBranch, _, err = gh.Repositories.GetBranch(ctx, req.Owner, req.Repo, base, 1); err != nil {
			return nil, cfg, out, src, fmt.Errorf("reading base branch %s: %w", base, err)
		}
	}
	labels := make([]string, 0, len(ghpr.Labels))
	for _, l := range ghpr.Labels {
		labels = append(labels, l.GetName())
	}
	reviewDate := req.ReviewDate
	if reviewDate.IsZero() {
		reviewDate = v.now()
	}
	settings := cfg.Settings
	pr := &checks.PR{
		Owner: req.Owner, Repo: req.Repo, Number: req.Number,
		Title: ghpr.GetTitle(), Body: ghpr.GetBody(),
		State: ghpr.GetState(), Draft: ghpr.GetDraft(),
		Author: ghpr.GetUser().GetLogin(), HTMLURL: ghpr.GetHTMLURL(),
		Labels: labels, ChangedFiles: ghpr.GetChangedFiles(),
		HeadSHA: ghpr.GetHead().GetSHA(), HeadRef: ghpr.GetHead().GetRef(),
		BaseRef: ghpr.GetBase().GetRef(), BaseSHA: ghpr.GetBase().GetSHA(),
		BaseTip:       baseBranch.GetCommit().GetSHA(),
		DefaultBranch: def, DefaultSHA: defSHA,
		SignOff:    so,
		ReviewDate: time.Date(reviewDate.Year(), reviewDate.Month(), reviewDate.Day(), 0, 0, 0, 0, time.UTC),
		Source:     src,
	}
	repo.SettingsParam.Set(pr, &settings)
	layout, err := repo.LayoutFact.Of(ctx, pr)
	if err != nil {
		return nil, cfg, out, src, err
	}

	scope, err := scopeGate(ctx, pr, layout)
	if err != nil {
		return nil, cfg, out, src, err
	}
	if !scope.Required {
		log.Info("no sign-off required", "owners", scope.Owners)
		return nil, cfg, Outcome{Status: NotRequired, Scope: scope, SkipReason: "every changed file is owned by the core team or repository admins"}, src, nil
	}
	// §1.3c.7: the scope must describe the PR we are about to assess.
	again, _, err := gh.PullRequests.Get(ctx, req.Owner, req.Repo, req.Number)
	if err != nil {
		return nil, cfg, out, src, fmt.Errorf("re-reading PR #%d: %w", req.Number, err)
	}
	if again.GetHead().GetSHA() != pr.HeadSHA || again.GetBase().GetSHA() != pr.BaseSHA ||
		again.GetBase().GetRef() != pr.BaseRef || again.GetChangedFiles() != pr.ChangedFiles {
		return nil, cfg, out, src, ErrPRChanged
	}
	if !req.Explicit && (pr.State != "open" || pr.Draft) {
		return nil, cfg, Outcome{Status: Skipped, SkipReason: fmt.Sprintf("PR is %s (draft=%v)", pr.State, pr.Draft)}, src, nil
	}
	if !req.SkipActor {
		if err := actorGate(ctx, src, req.Actor, req.ActorType); err != nil {
			return nil, cfg, Outcome{Status: Skipped, SkipReason: err.Error()}, src, nil
		}
	}
	out.Scope = scope
	return pr, cfg, out, src, nil
}
