package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/details"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/webhook"
)

// handlers are the job handlers serve runs.
type handlers struct {
	Verifier queue.Verifier
	Reuse    queue.ReuseAcknowledger
	Welcomer queue.Welcomer
	// HeadMover and Recoverer are optional (lifecycle.go).
	HeadMover queue.HeadMover
	Recoverer queue.Recoverer
	Rerunner  queue.Rerunner
	// MergeGroups answers merge queues (optional).
	MergeGroups queue.MergeGrouper
	// Runs completes check runs verifications left in progress (optional).
	Runs queue.RunSettler
	// Visibility tells the details page which repositories are private.
	Visibility details.Visibility
	// Ready, when set, is asked by /readyz besides the database: the
	// App's credentials.
	Ready func() error
}

func cmdServe(ctx context.Context, args []string, env Env) int {
	cfg, err := config.LoadServer(args, env.Getenv, env.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "verdict serve: %s\n", strings.Join(strings.Fields(err.Error()), " "))
		return 2
	}
	log := newLogger(cfg.LogLevel, env)
	if err := serve(ctx, cfg, log, appWiring(nil), nil); err != nil {
		log.Error("verdict serve stopped", "err", err)
		return 1
	}
	return 0
}

func newLogger(level string, env Env) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) // validated by config
	return slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: l}))
}

// serve runs until ctx ends or SIGTERM/SIGINT arrives, then stops taking
// requests, stores what was accepted and lets running jobs finish within
// cfg.ShutdownGrace; jobs still running then are cancelled and resume at the
// next start without having spent an attempt. wire builds the job
// handlers. If ready is non-nil it receives the listening address. GitHub
// need not be reachable to start.
func serve(ctx context.Context, cfg config.Server, log *slog.Logger, wire wiring, ready chan<- string) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	setMemoryLimit(log, os.ReadFile)
	if cfg.MemoryBudget = memoryBudget(cfg.MemoryBudget, os.ReadFile); cfg.MemoryBudget > 0 {
		log.Info("memory budget for verifications", "memory_budget_bytes", cfg.MemoryBudget)
	}

	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	h, err := wire(ctx, cfg, st, log)
	if err != nil {
		return fmt.Errorf("setting up job handlers: %w", err)
	}
	q, err := queue.New(ctx, st, queue.Options{
		Verifier: h.Verifier, Reuse: h.Reuse, Welcomer: h.Welcomer,
		HeadMover: h.HeadMover, Recoverer: h.Recoverer, RecoverEvery: cfg.RedeliverEvery, Rerunner: h.Rerunner,
		MergeGroups: h.MergeGroups, Runs: h.Runs,
		Logger: log, Workers: cfg.Workers,
		JobTimeout: cfg.JobTimeout, RetryPolicy: queue.Backoff{Unit: cfg.RetryDelay},
	})
	if err != nil {
		return err
	}
	pages, err := detailsPages(cfg, st, h.Visibility, log)
	if err != nil {
		return err
	}
	// The queue outlives the signal: Stop below ends it gracefully.
	if err := q.Start(ctx); err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           routes(cfg, st, q, log, pages, h.Ready),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.ReadTimeout + 10*time.Second, // the answer comes after the whole request
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		q.Stop(context.Background())
		return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	log.Info("verdict serving", "addr", ln.Addr().String(), "database", string(st.Dialect()), "version", versionString())
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case serveErr = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownGrace)
	defer cancel()
	// Order matters: stop accepting webhooks, then commit what was
	// accepted, then let running jobs finish.
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("HTTP shutdown incomplete", "err", err)
	}
	if err := q.Stop(sctx); err != nil {
		log.Warn("job queue shutdown incomplete; interrupted jobs resume at the next start", "err", err)
	}
	log.Info("stopped")
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return nil
}

// routes is the HTTP surface of the App; pages (nil: none) are the
// details pages; ready (nil: none) is what /readyz asks besides the
// database.
func routes(cfg config.Server, st *store.Store, q webhook.Enqueuer, log *slog.Logger, pages *details.Handler, ready func() error) http.Handler {
	r := chi.NewRouter()
	if pages != nil {
		pages.Routes(r)
	}
	r.Method(http.MethodPost, "/webhook", &webhook.Handler{
		Secrets: cfg.WebhookSecrets,
		Router:  router.Router{Phrase: cfg.Phrase, AppSlug: strings.TrimSuffix(cfg.AppSlug, "[bot]"), AppID: cfg.AppID},
		Queue:   q,
		Logger:  log,
	})
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	r.Get("/readyz", func(w http.ResponseWriter, req *http.Request) {
		ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := st.Ping(ctx); err != nil {
			log.Warn("not ready", "err", err)
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
			return
		}
		if ready != nil {
			if err := ready(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ready")
	})
	r.Method(http.MethodGet, "/metrics", promhttp.Handler())
	return r
}
