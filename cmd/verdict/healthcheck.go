package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/verdict-bot/verdict/app/config"
)

// cmdHealthcheck is verdict healthcheck: exit 0 when the serve process
// listening at VERDICT_LISTEN (or --listen) answers /healthz with 200, 1
// otherwise. The image's HEALTHCHECK runs it: the distroless base has no
// shell and no curl.
func cmdHealthcheck(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	def := env.Getenv("VERDICT_LISTEN")
	if def == "" {
		def = config.DefaultListen
	}
	listen := fs.String("listen", def, "the address serve listens on (VERDICT_LISTEN)")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	host, port, err := net.SplitHostPort(*listen)
	if err != nil {
		fmt.Fprintf(env.Stderr, "verdict healthcheck: --listen %q: %v\n", *listen, err)
		return 2
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(env.Stderr, "verdict healthcheck: %v\n", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(env.Stderr, "verdict healthcheck: /healthz answered %s\n", resp.Status)
		return 1
	}
	return 0
}
