// Command verdict is the Verdict GitHub App and its tools.
//
//	verdict serve     run the App (webhook intake, queue, workers)
//	verdict check     verify one PR and print the verdict (--repo-dir: a local change, offline)
//	verdict replay    re-verify a local clone's merged pull requests
//	verdict version   print the version
//
// Each subcommand lives in its own file; the commands table lists them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
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
	"version": {"print the version", func(_ context.Context, _ []string, env Env) int {
		fmt.Fprintln(env.Stdout, "verdict", versionString())
		return 0
	}},
}

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
		if bi.Main.Version != "" {
			return bi.Main.Version
		}
	}
	return "dev"
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], Env{Getenv: os.Getenv, Stdout: os.Stdout, Stderr: os.Stderr}))
}

func run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stderr)
		if len(args) == 0 {
			return 2
		}
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
}
