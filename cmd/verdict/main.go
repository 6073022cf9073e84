// Command verdict is the Verdict GitHub App and its tools.
//
//	verdict serve          run the App (webhook intake, queue, workers)
//	verdict check          verify one PR and print the verdict (--repo-dir: a local change, offline)
//	verdict replay         re-verify a local clone's merged pull requests
//	verdict history        print a PR's history from serve's database
//	verdict demo           run serve on a shipped sample, offline, and show its verdict
//	verdict setup          register the GitHub App through the manifest flow
//	verdict config check   validate a .github/verdict.yml
//	verdict version        print the module version and VCS revision
//
// Each subcommand lives in its own file; the commands table lists them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
)

// Env is what a subcommand may touch of the outside world, so tests can run
// subcommands in-process.
type Env struct {
	Getenv func(string) string
	Stdout io.Writer
	Stderr io.Writer
}

// command is one subcommand. run returns the process exit code: 0 success,
// 1 failure, 2 usage or configuration error.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, env Env) int
}

// commands is every subcommand: one line each.
var commands = map[string]command{
	"serve": {"run the GitHub App (webhook intake, job queue, workers)", cmdServe},
	"check": {"verify one PR and print the verdict (read-only unless --publish)", func(ctx context.Context, args []string, env Env) int {
		return cmdCheck(ctx, args, env.Stdout, env.Stderr)
	}},
	"replay": {"re-verify a local clone's merged pull requests and report what Verdict could not read", func(ctx context.Context, args []string, env Env) int {
		return cmdReplay(ctx, args, env.Stdout, env.Stderr)
	}},
	"trace":       {"dry-run what the benchmark job of one config point would execute (--repo-dir DIR --config KEY)", cmdTrace},
	"history":     {"print a PR's verifications, commands and bypasses from serve's database, newest first", cmdHistory},
	"demo":        {"run serve against an in-process fake GitHub with a sample PR: a verdict and its details page, offline", cmdDemo},
	"setup":       {"register the GitHub App through GitHub's manifest flow", cmdSetup},
	"config":      {"validate a .github/verdict.yml offline (verdict config check [FILE])", cmdConfig},
	"init":        {"write a starting .github/verdict.yml from the repository's review checklist (checklist preset)", cmdInit},
	"version":     {"print the module version, VCS revision and Go toolchain", cmdVersion},
	"healthcheck": {"exit 0 when the local serve answers /healthz (the image's HEALTHCHECK)", cmdHealthcheck},
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], Env{Getenv: os.Getenv, Stdout: os.Stdout, Stderr: os.Stderr}))
}

func run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 2 && args[0] == "help" {
			// verdict help check == verdict check -h
			if c, ok := commands[args[1]]; ok {
				return c.run(ctx, []string{"-h"}, env)
			}
		}
		usage(env.Stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "verdict: unknown command %q (try: verdict help)\n", args[0])
		return 2
	}
	return c.run(ctx, args[1:], env)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: verdict <command> [flags]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run verdict <command> -h for the flags of one command.")
}
