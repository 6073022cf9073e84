package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/details"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// defaultDemoFixture is the shipped sample the demo serves, relative to a
// checkout's root.
const defaultDemoFixture = "testdata/fixtures/sample-e2e-agentic"

// cmdDemo runs `verdict serve` for real (webhook intake, queue, workers,
// SQLite, details pages) against the in-process fake GitHub serving a
// shipped fixture: it delivers the fixture's sign-off as GitHub would, prints
// the verdict comment serve publishes and the details page's address, and
// serves until interrupted. Nothing leaves the machine.
func cmdDemo(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("verdict demo", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dir := fs.String("fixture", defaultDemoFixture, "the fixture directory the fake GitHub serves")
	listen := fs.String("listen", "127.0.0.1:8080", "where serve listens (the details page is there)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: verdict demo [--fixture DIR] [--listen ADDR]\n\nRuns serve against an in-process fake GitHub with a sample PR, delivers its sign-off, prints the\nverdict and the details page's address, and serves until Ctrl-C.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "verdict demo: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "verdict demo: "+format+"\n", a...)
		return 1
	}
	fx, err := fixture.Load(*dir)
	if err != nil {
		return fail("loading the fixture (run from a checkout, or give --fixture): %v", err)
	}
	repo, number, ok := onlyPR(fx)
	if !ok {
		return fail("the fixture %s has no single pull request to demonstrate", *dir)
	}
	ref, event, err := demoSignOff(fx, repo, number)
	if err != nil {
		return fail("%v", err)
	}
	gh, err := githubtest.Start(fx)
	if err != nil {
		return fail("starting the fake GitHub: %v", err)
	}
	defer gh.Close()

	cfg, err := demoConfig(*listen, fx, gh.BaseURL(), env.Stderr)
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(filepath.Dir(strings.TrimPrefix(cfg.DatabaseURL, "sqlite://")))
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serve(ctx, cfg, log, appWiring(gh.PageTransport()), ready) }()
	select {
	case <-ready:
	case err := <-done:
		return fail("serve: %v", err)
	}
	gh.Webhook().Configure("http://"+cfg.Listen+"/webhook", cfg.WebhookSecrets[0])
	fmt.Fprintf(env.Stdout, "verdict demo: serve listens on http://%s, GitHub is a fake at %s (%s#%d)\n", cfg.Listen, gh.BaseURL(), repo, number)
	fmt.Fprintf(env.Stdout, "verdict demo: delivering the sign-off %s as GitHub would\n", ref.Key())
	if a := gh.Webhook().Deliver(event.name, event.payload(gh)); a.StatusCode != 202 {
		return fail("serve answered the delivery %d (%s)", a.StatusCode, a.Status)
	}
	body, err := waitVerdict(ctx, gh, repo, number, ref.Key(), done)
	if err != nil {
		return fail("%v", err)
	}
	owner, name, _ := strings.Cut(repo, "/")
	fmt.Fprintf(env.Stdout, "\n%s\n\nverdict demo: the verdict above is the comment serve published on %s#%d.\n", body, repo, number)
	fmt.Fprintf(env.Stdout, "verdict demo: details page: %s%s\n", cfg.PublicURL, details.PagePath(owner, name, number))
	fmt.Fprintln(env.Stdout, "verdict demo: serving until Ctrl-C")
	if err := <-done; err != nil {
		return fail("serve: %v", err)
	}
	return 0
}

// demoConfig is serve's configuration for the demo: a fresh key and
// webhook secret, a SQLite file in a temporary directory, the fake GitHub,
// and a public URL so that the check run links to the details page.
func demoConfig(listen string, fx *fixture.Fixture, githubURL string, stderr io.Writer) (config.Server, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return config.Server{}, fmt.Errorf("listening on %s (give --listen): %w", listen, err)
	}
	addr := ln.Addr().String()
	ln.Close()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return config.Server{}, err
	}
	var secret [16]byte
	rand.Read(secret[:])
	tmp, err := os.MkdirTemp("", "verdict-demo-")
	if err != nil {
		return config.Server{}, err
	}
	env := map[string]string{
		"VERDICT_APP_ID":             fmt.Sprint(fx.App.ID),
		"VERDICT_WEBHOOK_SECRET":     hex.EncodeToString(secret[:]),
		"VERDICT_PRIVATE_KEY":        string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
		"VERDICT_GITHUB_URL":         githubURL,
		"VERDICT_LISTEN":             addr,
		"VERDICT_PUBLIC_URL":         "http://" + addr,
		"VERDICT_REDELIVER_INTERVAL": "0",
		"VERDICT_DATABASE_URL":       "sqlite://" + filepath.Join(tmp, "verdict.db"),
	}
	cfg, err := config.LoadServer(nil, func(k string) string { return env[k] }, stderr)
	if err != nil {
		os.RemoveAll(tmp)
		return config.Server{}, err
	}
	return cfg, nil
}

// demoEvent is the delivery that carries the fixture's sign-off.
type demoEvent struct {
	name    string
	payload func(gh *githubtest.Server) map[string]any
}

// demoSignOff finds the newest review or conversation comment of the PR
// that holds the sign-off phrase, and the delivery GitHub sends for it.
func demoSignOff(fx *fixture.Fixture, repo string, number int) (signoff.Ref, demoEvent, error) {
	var pull *fixture.Pull
	for _, p := range fx.Repos[0].Pulls {
		if p.Number == number {
			pull = p
		}
	}
	for i := len(pull.Reviews) - 1; i >= 0; i-- {
		rv := pull.Reviews[i]
		if strings.Contains(rv.Body, signoff.DefaultPhrase) {
			return signoff.Ref{Kind: checks.KindReview, ID: rv.ID}, demoEvent{"pull_request_review", func(gh *githubtest.Server) map[string]any {
				return gh.PullRequestReviewEvent("submitted", repo, number,
					githubtest.EventReview{ID: rv.ID, Body: rv.Body, User: rv.User, Association: rv.Association}, rv.User)
			}}, nil
		}
	}
	for i := len(pull.Comments) - 1; i >= 0; i-- {
		c := pull.Comments[i]
		if strings.Contains(c.Body, signoff.DefaultPhrase) {
			return signoff.Ref{Kind: checks.KindConversation, ID: c.ID}, demoEvent{"issue_comment", func(gh *githubtest.Server) map[string]any {
				return gh.IssueCommentEvent("created", repo, number, githubtest.EventComment{ID: c.ID, Body: c.Body, User: c.User,
					Association: c.Association, UpdatedAt: c.UpdatedAt}, c.User, "User")
			}}, nil
		}
	}
	return signoff.Ref{}, demoEvent{}, fmt.Errorf("%s#%d has no review or comment with the sign-off phrase %q", repo, number, signoff.DefaultPhrase)
}

// waitVerdict waits for serve's verdict comment of the sign-off key and
// returns it without its marker.
func waitVerdict(ctx context.Context, gh *githubtest.Server, repo string, number int, key string, done <-chan error) (string, error) {
	marker := render.Marker(key) + "\n"
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, c := range gh.Comments(repo, number) {
			if rest, ok := strings.CutPrefix(c.Body, marker); ok {
				return strings.TrimSpace(rest), nil
			}
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case err := <-done:
			return "", fmt.Errorf("serve stopped before the verdict: %v", err)
		case <-deadline.C:
			return "", fmt.Errorf("no verdict within 2 minutes")
		case <-tick.C:
		}
	}
}
