package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/checks"
)

// cmdConfig dispatches verdict config's own subcommands.
func cmdConfig(ctx context.Context, args []string, env Env) int {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: verdict config check [FILE]   validate a verdict.yml (default "+repoconfig.Path+")")
		fmt.Fprintln(w, "       verdict config schema         print the JSON Schema of verdict.yml")
	}
	if len(args) == 0 {
		usage(env.Stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(env.Stdout)
		return 0
	case "check":
		return cmdConfigCheck(ctx, args[1:], env)
	case "schema":
		return cmdConfigSchema(args[1:], env)
	}
	fmt.Fprintf(env.Stderr, "verdict config: unknown subcommand %q\n", args[0])
	usage(env.Stderr)
	return 2
}

// cmdConfigCheck validates a verdict.yml offline: every problem on its own
// line as FILE:LINE:COLUMN: message (the form editors and CI annotations
// jump to), exit 1 if there is any, 0 with one "valid" line otherwise.
func cmdConfigCheck(_ context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("config check", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: verdict config check [FILE]\n\n"+
			"Validates FILE (default %s) as Verdict reads it from the default branch:\n"+
			"YAML syntax, unknown keys, value types and ranges, and the settings of the preset\n"+
			"it names (or, with none named, of the preset its preset_settings are for).\n"+
			"Prints FILE:LINE:COLUMN: message\n"+
			"for every problem and exits 1 if there is any, 0 if the file is valid.\n", repoconfig.Path)
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(env.Stderr, "verdict config check: one file at a time, got %d\n", fs.NArg())
		return 2
	}
	file := repoconfig.Path
	if fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(env.Stderr, "verdict config check: %v\n", err)
		return 1
	}
	cfg, probs := repoconfig.Check(data, servedPresets)
	if len(probs) == 0 {
		probs = presetProblems(cfg)
	}
	for _, p := range probs {
		switch {
		case p.Line == 0:
			fmt.Fprintf(env.Stdout, "%s: %s\n", file, p.Message)
		case p.Column == 0:
			fmt.Fprintf(env.Stdout, "%s:%d: %s\n", file, p.Line, p.Message)
		default:
			fmt.Fprintf(env.Stdout, "%s:%d:%d: %s\n", file, p.Line, p.Column, p.Message)
		}
	}
	if len(probs) > 0 {
		return 1
	}
	fmt.Fprintf(env.Stdout, "%s: valid\n", file)
	return 0
}

func cmdConfigSchema(args []string, env Env) int {
	fs := flag.NewFlagSet("config schema", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: verdict config schema\n\nPrints the JSON Schema of verdict.yml (the same as %s).\n", repoconfig.SchemaFile)
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	b, err := repoconfig.Schema(servedPresets)
	if err != nil {
		fmt.Fprintf(env.Stderr, "verdict config schema: %v\n", err)
		return 1
	}
	env.Stdout.Write(b)
	return 0
}

// presetProblems validates cfg against its preset: the one it names, or,
// when it names none, the first served preset that takes settings of its
// own if it gives any (offline, the layout cannot be detected).
func presetProblems(cfg repoconfig.Config) []repoconfig.Problem {
	scratch := &checks.PR{}
	if cfg.Preset != "" {
		for _, p := range servedPresets {
			if p.Name == cfg.Preset {
				return repoconfig.CheckFor(p, cfg, scratch)
			}
		}
		names := make([]string, len(servedPresets))
		for i, p := range servedPresets {
			names[i] = p.Name
		}
		err := &checks.UnknownPresetError{Name: cfg.Preset, Served: names}
		return []repoconfig.Problem{{Key: "preset", Message: err.Error(), MessageZH: err.Error()}}
	}
	for _, p := range servedPresets {
		if p.Configure != nil && len(cfg.PresetSettings.Content) > 0 {
			return repoconfig.CheckFor(p, cfg, scratch)
		}
	}
	return nil
}
