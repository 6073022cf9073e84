package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Exit codes of verdict check.
const (
	exitPass     = 0
	exitRejected = 1
	exitError    = 2
	exitWarn     = 3
)

// cmdCheck verifies one PR and prints the verdict. It is read-only unless
// --publish is given.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if usesRepoDir(args) {
		return cmdCheckLocal(ctx, args, stdout, stderr)
	}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repoFlag := fs.String("repo", "", "repository as OWNER/NAME")
	prFlag := fs.Int("pr", 0, "pull request number")
	signoffFlag := fs.String("signoff", "", "sign-off key (issuecomment-N, pullrequestreview-N, discussion_rN) or URL; default: the newest sign-off")
	githubURL := fs.String("github-url", envOr("VERDICT_GITHUB_URL", "https://api.github.com/"), "GitHub REST API base URL")
	token := fs.String("token", "", "GitHub token (default $GITHUB_TOKEN)")
	date := fs.String("date", "", "review date YYYY-MM-DD (default today, UTC)")
	format := fs.String("format", "markdown", "output format: markdown or json")
	publishFlag := fs.Bool("publish", false, "publish the verdict comment, status and check run")
	appSlug := fs.String("app-slug", os.Getenv("VERDICT_APP_SLUG"), "with --publish and an installation token: the App's slug, whose <slug>[bot] comments are Verdict's")
	fixtureDir := fs.String("fixture", "", "serve a recorded PR from this fixture directory through the in-process fake GitHub")
	verbose := fs.Bool("v", false, "log progress to stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass // -h asked for the usage; printing it is success
		}
		return exitError
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "verdict check: "+format+"\n", a...)
		return exitError
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if *format != "markdown" && *format != "json" {
		return fail("--format must be markdown or json, not %q", *format)
	}
	var reviewDate time.Time
	if *date != "" {
		d, err := time.Parse("2006-01-02", *date)
		if err != nil {
			return fail("--date %q is not YYYY-MM-DD", *date)
		}
		reviewDate = d
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	base, tok := *githubURL, *token
	if tok == "" {
		tok = os.Getenv("GITHUB_TOKEN")
	}
	var srcOpts ghsource.Options
	slug := strings.TrimSuffix(*appSlug, "[bot]")
	if *fixtureDir != "" {
		fx, err := fixture.Load(*fixtureDir)
		if err != nil {
			return fail("loading fixture: %v", err)
		}
		srv, err := githubtest.Start(fx)
		if err != nil {
			return fail("starting the fake GitHub: %v", err)
		}
		defer srv.Close()
		if fixtureHook != nil {
			fixtureHook(srv)
		}
		// The fixture's App installation, unless --token names one of the
		// fixture's personal tokens; $GITHUB_TOKEN belongs to real GitHub.
		base, tok = srv.BaseURL(), *token
		if tok == "" {
			tok = srv.InstallationToken()
		}
		// Published pages come from the fixture too: nothing leaves the machine.
		srcOpts.PageClient = &http.Client{Transport: srv.PageTransport(), Timeout: 20 * time.Second}
		if slug == "" {
			slug = strings.TrimSuffix(botLogin(fx), "[bot]")
		}
		if *repoFlag == "" && *prFlag == 0 {
			if r, n, ok := onlyPR(fx); ok {
				*repoFlag, *prFlag = r, n
			}
		}
	}
	owner, name, ok := strings.Cut(*repoFlag, "/")
	if !ok || owner == "" || name == "" {
		return fail("--repo OWNER/NAME is required")
	}
	if *prFlag <= 0 {
		return fail("--pr N is required")
	}
	if tok == "" && *publishFlag {
		return fail("--publish needs a token (GITHUB_TOKEN or --token)")
	}
	timeout, err := envDuration("VERDICT_GITHUB_TIMEOUT", config.DefaultGitHubTimeout)
	if err != nil {
		return fail("%v", err)
	}
	backoff, err := envDuration("VERDICT_GITHUB_BACKOFF", config.DefaultGitHubBackoff)
	if err != nil {
		return fail("%v", err)
	}
	// An interactive check should answer within a minute or say why, so
	// it waits less for a struggling API than the App's workers do.
	ro := ghclient.RetryOptions{MaxWait: 30 * time.Second, AttemptTimeout: timeout, BaseDelay: backoff}
	srcOpts.Retry = ro
	gh, err := ghclient.NewToken(base, tok, ghclient.Options{Retry: ro})
	if err != nil {
		return fail("%v", err)
	}
	var ref signoff.Ref
	if *signoffFlag != "" {
		if ref, err = verify.ParseSignOffRef(*signoffFlag, owner, name, *prFlag); err != nil {
			return fail("%v", err)
		}
	}
	v := newVerifier(logger, nil, nil, nil)
	if *publishFlag {
		id, err := publisherOf(ctx, gh, slug)
		if err != nil {
			return fail("--publish: %v", oneLine(err))
		}
		if id.note != "" {
			fmt.Fprintln(stderr, "verdict check: "+id.note)
		}
		// Nothing is written before the verdict exists: no pending status
		// or in-progress check run that an error could leave behind.
		v.BotLogins = []string{id.login}
		v.Publisher = publish.Verdicts{Logger: logger, SkipCheckRuns: !id.app}
	}
	api := ghapi.New(gh, evidenceOptions(srcOpts))
	out, err := verifyRetrying(ctx, logger, 2*backoff, func(again bool) (verify.Outcome, error) {
		return v.Verify(ctx, api, verify.Request{
			Owner: owner, Repo: name, Number: *prFlag,
			SignOff: ref, Explicit: true, SkipActor: true,
			ReviewDate: reviewDate, Publish: *publishFlag, Retry: again,
		})
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fail("cancelled")
		}
		return fail("%v", oneLine(err))
	}
	switch out.Status {
	case verify.NotRequired:
		if *format == "json" {
			b, _ := json.Marshal(map[string]any{"verdict": "NOT_REQUIRED", "reason": out.SkipReason})
			fmt.Fprintln(stdout, string(b))
		} else {
			fmt.Fprintf(stdout, "No sign-off required: %s.\n", out.SkipReason)
		}
		return exitPass
	case verify.Skipped:
		return fail("not verified: %s", out.SkipReason)
	}
	if *format == "json" {
		b, err := render.JSON(out.Verdict)
		if err != nil {
			return fail("rendering JSON: %v", err)
		}
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprint(stdout, out.Markdown)
	}
	switch out.Verdict.Overall {
	case checks.VerdictPass:
		return exitPass
	case checks.VerdictWarn:
		return exitWarn
	default:
		return exitRejected
	}
}

// fixtureHook, when set (tests), sees the fake GitHub --fixture starts
// before anything is read from it, to inject faults or latency.
var fixtureHook func(*githubtest.Server)

// checkAttempts is how often verdict check verifies when GitHub keeps
// failing past the client's retries, as the App's queue would retry a job.
const checkAttempts = 3

// verifyRetrying runs verify again after a transient failure: an answer
// GitHub could not give is never a verdict, and usually comes on a retry.
func verifyRetrying(ctx context.Context, log *slog.Logger, pause time.Duration, run func(again bool) (verify.Outcome, error)) (verify.Outcome, error) {
	for attempt := 1; ; attempt++ {
		out, err := run(attempt > 1)
		if err == nil || attempt == checkAttempts || ctx.Err() != nil || !retry.IsTransient(ghclient.Classify(err)) {
			return out, err
		}
		wait := time.Duration(attempt) * pause
		log.Warn("GitHub failed transiently; verifying again", "attempt", attempt, "wait_ms", wait.Milliseconds(), "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

// envDuration reads one of serve's reliability settings that check shares.
func envDuration(k string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(k)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s %q: want a positive duration such as %s", k, v, def)
	}
	return d, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// onlyPR names the pull request of the fixture's first repository when it
// has exactly one, so the offline sample runs without flags. Later
// repositories are upstream projects read for evidence.
func onlyPR(fx *fixture.Fixture) (string, int, bool) {
	if len(fx.Repos) == 0 || len(fx.Repos[0].Pulls) != 1 {
		return "", 0, false
	}
	return fx.Repos[0].FullName, fx.Repos[0].Pulls[0].Number, true
}

// publisher is who --publish writes as.
type publisher struct {
	// login is the author of the verdict comments to update in place.
	login string
	// app is set for an installation token: only GitHub Apps can create
	// check runs.
	app bool
	// note is the one line that tells the user what is skipped and why.
	note string
}

// publisherOf asks GitHub whose token gh carries. A personal token reads
// its own user; an installation token may not (403), and then its comments
// are those of <slug>[bot].
func publisherOf(ctx context.Context, gh *github.Client, slug string) (publisher, error) {
	u, resp, err := gh.Users.Get(ctx, "")
	switch {
	case err == nil && u.GetLogin() != "":
		return publisher{login: u.GetLogin(),
			note: fmt.Sprintf("publishing the comment and status as %s; no check run: only GitHub Apps can create check runs, and this is a personal token", u.GetLogin())}, nil
	case resp != nil && resp.StatusCode == http.StatusForbidden:
		if slug == "" {
			return publisher{}, errors.New("this is an installation token (GET /user is refused): set --app-slug or VERDICT_APP_SLUG so that the App's own comments can be recognised")
		}
		return publisher{login: slug + "[bot]", app: true}, nil
	case err != nil:
		return publisher{}, fmt.Errorf("reading the token's user: %w", err)
	}
	return publisher{}, errors.New("reading the token's user: GitHub returned no login")
}

func botLogin(fx *fixture.Fixture) string {
	if fx.App.BotLogin != "" {
		return fx.App.BotLogin
	}
	slug := fx.App.Slug
	if slug == "" {
		slug = "verdict"
	}
	return slug + "[bot]"
}

// oneLine keeps CLI errors to one line, as go-github errors can span several.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
