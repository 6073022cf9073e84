package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/metrics"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/recovery"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/reuse"
	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/app/welcome"
)

// evidenceCacheBytes bounds immutable evidence (files by commit SHA,
// artifact contents by ID) kept across verifications.
const evidenceCacheBytes = 256 << 20

// verificationCalls is what a verification is expected to cost of its
// installation's rate limit: a cold one of the samples takes 18-38 calls,
// the measurement about 55 on a larger PR; the margin covers a
// re-read of what changed meanwhile.
const verificationCalls = 60

// memoryWait is how long a verification waits for room in the memory
// budget before it gives up for now and the queue retries it later.
const memoryWait = 10 * time.Second

// newVerifier is the verification pipeline shared by serve and check:
// the InferenceX preset, publishing through publish.Verdicts.
func newVerifier(logger *slog.Logger, pub verify.Publisher, rec verify.Recorder, botLogins []string) *verify.Verifier {
	return &verify.Verifier{
		Presets:   servedPresets,
		Publisher: pub,
		Recorder:  rec,
		BotLogins: botLogins,
		Logger:    logger,
	}
}

// withLedger gives v the store's sign-off records (serve only: verdict
// check judges every sign-off's edit history afresh).
func withLedger(v *verify.Verifier, st *store.Store) *verify.Verifier {
	v.Ledger = ledger{st}
	return v
}

// storeBudget is the installations' write budget kept in the database,
// shared by every replica.
type storeBudget struct {
	st   *store.Store
	rule ghclient.TokenBucket
}

func (b storeBudget) ReserveWrite(ctx context.Context, installation int64) (time.Duration, error) {
	return b.st.ReserveWrite(ctx, installation, time.Now(), b.rule.Rate, b.rule.Burst)
}

// storeCalls is the installations' rate-limit reservations kept in the
// database, shared by every replica.
type storeCalls struct{ st *store.Store }

func (c storeCalls) SetAside(ctx context.Context, a ghclient.RateAsk) (bool, int, time.Time, error) {
	ans, err := c.st.SetAsideCalls(ctx, store.CallAsk{Installation: a.Installation, ID: a.ID, Cost: a.Cost,
		Remaining: a.Remaining, Reset: a.Reset, Seen: a.Seen, Now: a.Now, Hold: a.Hold})
	return ans.Admitted, ans.Left, ans.Reset, err
}

func (c storeCalls) GiveBack(ctx context.Context, id string) error {
	return c.st.GiveBackCalls(ctx, id)
}

// evidenceOptions gives opts the shared evidence cache when it has none.
func evidenceOptions(opts ghsource.Options) ghsource.Options {
	if opts.Cache == nil {
		opts.Cache = ghsource.NewCache(evidenceCacheBytes)
	}
	return opts
}

// wiring builds the job handlers of verdict serve from its settings; st
// records the audit trail. appWiring is the production one.
type wiring func(ctx context.Context, cfg config.Server, st *store.Store, log *slog.Logger) (handlers, error)

// appWiring builds the job handlers of verdict serve: one App client, one
// evidence cache, and the verifier, reuse acknowledger and welcomer on top.
// Nothing here calls GitHub: the App's identity is resolved when first
// needed (and in the background from the start), so serve starts and
// stores deliveries while GitHub is unreachable. pages, when set (tests),
// answers the documentation page fetches instead of the network.
func appWiring(pages http.RoundTripper) wiring {
	return func(ctx context.Context, cfg config.Server, st *store.Store, log *slog.Logger) (handlers, error) {
		ro := ghclient.RetryOptions{AttemptTimeout: cfg.GitHubTimeout, BaseDelay: cfg.GitHubBackoff}
		writes := storeBudget{st: st, rule: ghclient.TokenBucket{Rate: float64(cfg.WritesPerMinute) / 60, Burst: float64(cfg.WriteBurst)}}
		rates := ghclient.NewRateBook()
		// Reservations shared by the replicas; one a dead process left
		// lapses after the longest a verification may run (the queue's
		// budget on a late retry, 8× the job timeout, and its publishing).
		rates.Ledger, rates.Hold = storeCalls{st}, 8*cfg.JobTimeout+2*time.Minute
		apps, err := ghclient.NewApps(cfg.GitHubURL, cfg.AppID, cfg.PrivateKey, ghclient.Options{Retry: ro, Writes: writes, MaxInFlight: cfg.MaxInFlight, Rates: rates})
		if err != nil {
			return handlers{}, err
		}
		id := &appIdentity{app: apps.App(), slug: strings.TrimSuffix(cfg.AppSlug, "[bot]"), log: log}
		go id.warm(ctx)
		creds := &credentials{app: apps.App(), every: credentialsEvery, log: log}
		go creds.run(ctx)
		opts := evidenceOptions(ghsource.Options{Retry: ro, ArtifactDownloads: cfg.ArtifactDownloads})
		if cfg.MemoryBudget > 0 {
			opts.Memory = ghsource.NewMemory(cfg.MemoryBudget, memoryWait)
		}
		if pages != nil {
			opts.PageClient = &http.Client{Transport: pages, Timeout: 20 * time.Second}
		}
		installation := func(_ context.Context, iid int64) (*ghapi.Client, error) {
			gh, err := apps.Installation(iid)
			if err != nil {
				return nil, ghclient.Classify(err)
			}
			return ghapi.New(gh, opts), nil
		}
		acknowledgerClient := func(ctx context.Context, iid int64) (reuse.GitHub, error) {
			gh, err := installation(ctx, iid)
			if err != nil {
				return nil, err
			}
			return gh, nil
		}
		pub := publish.Verdicts{Logger: log, Pending: true, DetailsBase: cfg.PublicURL}
		trail := auditTrail{st}
		verifier := appVerifier{v: withLedger(newVerifier(log, pub, trail, nil), st), rates: rates, client: installation, id: id, trail: trail, log: log}
		return handlers{
			Verifier:    verifier,
			HeadMover:   appHeadMover{v: verifier, log: log},
			Rerunner:    verifier,
			MergeGroups: appMergeGroups{v: verifier},
			Runs:        verifier,
			Recoverer:   newRecoverer(apps.App(), st, log),
			Reuse:       appReuse{a: reuse.Acknowledger{Client: acknowledgerClient, Logger: log, Recorder: trail, Presets: servedPresets}, id: id},
			Welcomer:    appWelcomer{client: installation, id: id, log: log},
			Visibility:  appVisibility{apps},
			Ready:       creds.Ready,
		}, nil
	}
}

// appIdentity is the App's bot login, "<slug>[bot]": configured, or read
// from GET /app once GitHub answers.
type appIdentity struct {
	app *github.Client
	log *slog.Logger

	mu   sync.Mutex
	slug string
}

// bots returns the App's identities, asking GitHub when they are not known
// yet. A failure is transient: the job waits for GitHub like any other.
func (a *appIdentity) bots(ctx context.Context) ([]string, error) {
	a.mu.Lock()
	slug := a.slug
	a.mu.Unlock()
	if slug == "" {
		app, _, err := a.app.Apps.Get(ctx, "")
		if err != nil {
			return nil, retry.Transient(fmt.Errorf("reading the App's identity (GET /app; VERDICT_APP_SLUG skips it): %w", err))
		}
		if slug = app.GetSlug(); slug == "" {
			return nil, errors.New("GET /app returned no slug; set VERDICT_APP_SLUG")
		}
		a.mu.Lock()
		if a.slug == "" {
			a.log.Info("App identity resolved", "bot", slug+"[bot]")
		}
		a.slug = slug
		a.mu.Unlock()
	}
	return []string{slug + "[bot]"}, nil
}

// warm resolves the identity in the background with a growing pause
// between tries, so the first job need not wait for it.
func (a *appIdentity) warm(ctx context.Context) {
	wait := time.Second
	for {
		_, err := a.bots(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		a.log.Warn("GitHub App identity not resolved yet; retrying", "err", err, "wait_ms", wait.Milliseconds())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Minute)
	}
}

// appVerifier runs queued verifications with the installation's client and
// tells the queue which failures are worth a retry.
type appVerifier struct {
	v      *verify.Verifier
	rates  *ghclient.RateBook // nil admits every verification
	client func(context.Context, int64) (*ghapi.Client, error)
	id     *appIdentity
	trail  auditTrail
	log    *slog.Logger
}

func (a appVerifier) request(j jobs.VerifyArgs, at jobs.Attempt) verify.Request {
	return verify.Request{
		Owner: j.Owner, Repo: j.Name, Number: j.PR,
		SignOff:  j.SignOff,
		Explicit: j.Manual,
		Actor:    j.ActorLogin, ActorType: j.ActorType,
		Action:       j.Action,
		Delivered:    j.Delivered,
		DeliveryID:   j.DeliveryID,
		Publish:      true,
		Retry:        at.Retry(),
		AssessBy:     at.AssessBy,
		Installation: j.InstallationID,
		Superseded:   a.superseded(j),
	}
}

// superseded asks the store whether an event newer than the one j answers
// arrived for its sign-off: its job verifies the newer state and
// publishes, so j's verdict must not be published after it.
func (a appVerifier) superseded(j jobs.VerifyArgs) func(context.Context) (string, error) {
	if a.trail.st == nil || j.Generation == 0 {
		return nil
	}
	return func(ctx context.Context) (string, error) {
		g, err := a.trail.st.Generation(ctx, j.CoalesceKey())
		if err != nil {
			return "", retry.Transient(err)
		}
		if g > j.Generation {
			return fmt.Sprintf("a newer event for %s arrived while it was verified (event %d after %d); its verification publishes", j.CoalesceKey(), g, j.Generation), nil
		}
		return "", nil
	}
}

// admit sets a verification's calls aside from its installation's rate
// limit (release gives them back), or says how long to wait for the reset.
func (a appVerifier) admit(ctx context.Context, installation int64) (release func(), err error) {
	release, wait, left, err := a.rates.Admit(ctx, installation, verificationCalls)
	if err != nil {
		return nil, retry.Transient(err)
	}
	if wait > 0 {
		metrics.RateBudgetDeferred()
		return nil, &retry.RateLimitError{RetryAfter: wait, Err: fmt.Errorf(
			"installation %d has %d API calls left until its rate limit resets; a verification takes about %d", installation, left, verificationCalls)}
	}
	return release, nil
}

// verifier is the shared verifier with the App's identities.
func (a appVerifier) verifier(ctx context.Context) (*verify.Verifier, error) {
	bots, err := a.id.bots(ctx)
	if err != nil {
		return nil, err
	}
	v := *a.v
	v.BotLogins = bots
	return &v, nil
}

func (a appVerifier) Verify(ctx context.Context, j jobs.VerifyArgs, at jobs.Attempt) error {
	v, err := a.verifier(ctx)
	if err != nil {
		return err
	}
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return err
	}
	release, err := a.admit(ctx, j.InstallationID)
	if err != nil {
		if d := (*retry.RateLimitError)(nil); errors.As(err, &d) {
			// The PR's page says why no verdict came yet.
			if rerr := a.trail.recordDeferred(ctx, j, d); rerr != nil {
				a.log.Warn("recording the deferral in the history", "repo", j.FullName(), "pr", j.PR, "delivery_id", j.DeliveryID, "err", rerr)
			}
		}
		return err
	}
	defer release()
	out, err := v.Verify(ctx, gh, a.request(j, at))
	switch {
	case err == nil:
		if j.Manual {
			// The command is history once answered, whatever the answer.
			if err := a.trail.recordRecheck(ctx, j, out); err != nil {
				a.log.Warn("recording the command in the history", "repo", j.FullName(), "pr", j.PR, "delivery_id", j.DeliveryID, "err", err)
			}
		}
		return nil
	case errors.Is(err, verify.ErrPRChanged), errors.Is(err, scope.ErrIncomplete):
		return retry.Transient(err)
	default:
		return ghclient.Classify(err)
	}
}

// openRunGrace is how long a check run stays open before a pass may
// complete it: a verification that just opened it is pending anyway.
const openRunGrace = time.Minute

// SettleRuns completes the check runs verifications opened in progress and
// never completed, on PRs with no verification pending.
func (a appVerifier) SettleRuns(ctx context.Context, pending func(prKey string) bool) error {
	runs, err := a.trail.st.OpenRuns(ctx, time.Now().Add(-openRunGrace), 200)
	if err != nil || len(runs) == 0 {
		return err
	}
	v, err := a.verifier(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range runs {
		owner, name, _ := strings.Cut(r.Repo, "/")
		if pending(jobs.PRKey(jobs.Repo{Owner: owner, Name: name}, r.PR)) {
			continue
		}
		gh, err := a.client(ctx, r.Installation)
		if err == nil {
			err = v.SettleRun(ctx, gh, verify.OpenRun{Owner: owner, Repo: name, Number: r.PR, Key: r.Key, HeadSHA: r.HeadSHA, Installation: r.Installation})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s#%d %s@%s: %w", r.Repo, r.PR, r.Key, r.HeadSHA, err))
		}
	}
	return errors.Join(errs...)
}

// Withdraw settles a sign-off that was deleted or whose review was
// dismissed.
func (a appVerifier) Withdraw(ctx context.Context, j jobs.WithdrawArgs) error {
	v, err := a.verifier(ctx)
	if err != nil {
		return err
	}
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return err
	}
	err = v.Withdraw(ctx, gh, verify.WithdrawRequest{Owner: j.Owner, Repo: j.Name, Number: j.PR, SignOff: j.SignOff,
		How: j.How, By: j.ActorLogin, DeliveryID: j.DeliveryID})
	return ghclient.Classify(err)
}

// Abandon settles a verification the queue gives up on: its status and
// check run say it could not be verified, and why.
func (a appVerifier) Abandon(ctx context.Context, j jobs.VerifyArgs, cause error) error {
	v, err := a.verifier(ctx)
	if err != nil {
		return err
	}
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return err
	}
	return v.Abandon(ctx, gh, a.request(j, jobs.Attempt{}), cause, abandonReason(cause))
}

// abandonReason is the one line a status shows for a verification given up.
func abandonReason(err error) string {
	if retry.IsTransient(err) {
		return "GitHub kept failing: " + oneLine(err)
	}
	return oneLine(err)
}

type appReuse struct {
	a  reuse.Acknowledger
	id *appIdentity
}

func (r appReuse) Acknowledge(ctx context.Context, j jobs.ReuseArgs) error {
	bots, err := r.id.bots(ctx)
	if err != nil {
		return err
	}
	a := r.a
	a.BotLogins = bots
	return a.Acknowledge(ctx, j)
}

type appWelcomer struct {
	client func(context.Context, int64) (*ghapi.Client, error)
	id     *appIdentity
	log    *slog.Logger
}

func (a appWelcomer) Welcome(ctx context.Context, j jobs.WelcomeArgs) error {
	bots, err := a.id.bots(ctx)
	if err != nil {
		return err
	}
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return err
	}
	wrote, err := welcome.Poster{BotLogins: bots, Presets: servedPresets}.Post(ctx, gh, j.Owner, j.Name, j.PR)
	if err != nil {
		return ghclient.Classify(err)
	}
	log := a.log.With("repo", j.FullName(), "pr", j.PR, "head_sha", j.HeadSHA, "delivery_id", j.DeliveryID)
	log.Info("welcome", "posted", wrote)
	return nil
}

// newRecoverer is missed-webhook recovery through the App's JWT client:
// only deliveries the router can act on are redelivered.
func newRecoverer(app *github.Client, st *store.Store, log *slog.Logger) *recovery.Recoverer {
	return &recovery.Recoverer{GitHub: ghapi.NewAppHooks(app), Log: st, Wanted: router.Acts, Logger: log}
}

// appHeadMover marks pushed PRs with the installation's client.
type appHeadMover struct {
	v   appVerifier
	log *slog.Logger
}

func (a appHeadMover) HeadMoved(ctx context.Context, j jobs.HeadMovedArgs) error {
	v, err := a.v.verifier(ctx)
	if err != nil {
		return err
	}
	gh, err := a.v.client(ctx, j.InstallationID)
	if err != nil {
		return err
	}
	res, err := v.HeadMoved(ctx, gh, j.Owner, j.Name, j.PR)
	switch {
	case errors.Is(err, verify.ErrPRChanged), errors.Is(err, scope.ErrIncomplete):
		return retry.Transient(err)
	case err != nil:
		return ghclient.Classify(err)
	}
	a.log.Info("head moved", "repo", j.FullName(), "pr", j.PR, "head_sha", j.After, "delivery_id", j.DeliveryID,
		"marked", res.Edited, "covered", res.Covered, "outcome", res.Status)
	return nil
}

// PullsOf finds the open PRs of the repository that contain a re-run's
// commit (GET /repos/{owner}/{repo}/commits/{sha}/pulls).
func (a appVerifier) PullsOf(ctx context.Context, j jobs.RerunArgs) ([]int, error) {
	gh, err := a.client(ctx, j.InstallationID)
	if err != nil {
		return nil, err
	}
	prs, err := gh.PullsOfCommit(ctx, j.Owner, j.Name, j.HeadSHA)
	if err != nil {
		return nil, ghclient.Classify(fmt.Errorf("finding the pull requests of %s: %w", j.HeadSHA, err))
	}
	var out []int
	for _, pr := range prs {
		if pr.GetState() == "open" && strings.EqualFold(pr.GetBase().GetRepo().GetFullName(), j.FullName()) {
			out = append(out, pr.GetNumber())
		}
	}
	return out, nil
}
