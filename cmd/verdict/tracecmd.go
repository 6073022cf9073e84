package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/checks/format/shell/trace"
	"github.com/verdict-bot/verdict/checks/inferencex/benchjob"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// cmdTrace is verdict trace: what the benchmark job of one config point
// would run, dry, from a local clone at one revision.
func cmdTrace(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dir := fs.String("repo-dir", "", "local clone (work tree or bare) of the benchmark repository")
	rev := fs.String("rev", "HEAD", "revision to read the repository at")
	config := fs.String("config", "", "master-config key to trace")
	point := fs.Int("point", 0, "which job of the config (see --list): search-space point and launcher")
	list := fs.Bool("list", false, "list the config's jobs instead of tracing one")
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitError
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "verdict trace: "+format+"\n", a...)
		return exitError
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q", fs.Arg(0))
	case *dir == "" || *config == "":
		return fail("--repo-dir DIR and --config KEY are required")
	case *format != "text" && *format != "json":
		return fail("--format must be text or json, not %q", *format)
	}
	r, err := gitsource.Open(ctx, *dir, gitsource.Options{})
	if err != nil {
		return fail("%v", err)
	}
	defer r.Close()
	sha, err := r.Resolve(ctx, *rev)
	if err != nil {
		return fail("%v", err)
	}
	files := gitFiles{r: r, rev: sha}
	entry, labels, err := findConfig(ctx, r, sha, *config)
	if err != nil {
		return fail("%v", err)
	}
	jobs := benchjob.Jobs(entry, labels)
	if *list {
		for i, j := range jobs {
			fmt.Fprintf(env.Stdout, "%d\t%s\t%s\n", i, j.Launcher, j.Point)
		}
		return 0
	}
	if *point < 0 || *point >= len(jobs) {
		return fail("--point %d: the config has %d jobs (see --list)", *point, len(jobs))
	}
	job := jobs[*point]
	tr := benchjob.Run(ctx, files, job, trace.Options{})
	if *format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Rev string `json:"rev"`
			benchjob.Job
			Trace *trace.Trace `json:"trace"`
		}{sha, job, tr}); err != nil {
			return fail("encoding the trace: %v", err)
		}
		return 0
	}
	printTrace(env.Stdout, sha, job, tr)
	return 0
}

func printTrace(w io.Writer, sha string, j benchjob.Job, tr *trace.Trace) {
	fmt.Fprintf(w, "%s at %s: %s via %s (%s)\n", j.Config, sha[:min(12, len(sha))], j.Point, j.Launcher, j.RunnerName)
	for i, s := range tr.Steps {
		at := ""
		if s.Line > 0 {
			at = fmt.Sprintf("  [%s:%d]", s.File, s.Line)
		}
		indent := strings.Repeat("  ", s.Depth)
		switch s.Kind {
		case trace.Write:
			fmt.Fprintf(w, "%4d %swrite %s (%d bytes)%s\n", i, indent, s.Path, len(s.Content), at)
		case trace.Source, trace.Script:
			fmt.Fprintf(w, "%4d %s%s %s %s%s\n", i, indent, s.Kind, s.Path, strings.Join(s.Argv, " "), at)
		default:
			fmt.Fprintf(w, "%4d %s%s%s\n", i, indent, strings.Join(s.Argv, " "), at)
		}
	}
	if len(tr.Unread) > 0 {
		fmt.Fprintf(w, "unread: %s\n", strings.Join(tr.Unread, ", "))
	}
	if tr.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s\n", tr.Stopped)
	}
	fmt.Fprintf(w, "exit %d\n", tr.Exit)
}

// findConfig reads the master configs and runner labels at sha and
// returns the entry key names.
func findConfig(ctx context.Context, r *gitsource.Repo, sha, key string) (*repo.ConfigEntry, map[string][]string, error) {
	var labels map[string][]string
	for _, dir := range []string{"configs", ".github/configs"} {
		data, err := r.ReadFile(ctx, sha, dir+"/runners.yaml")
		if err != nil {
			continue
		}
		if labels, err = benchjob.Runners(data); err != nil {
			return nil, nil, fmt.Errorf("%s/runners.yaml: %w", dir, err)
		}
		break
	}
	for _, dir := range []string{"configs", ".github/configs"} {
		ents, err := r.ListDir(ctx, sha, dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name, "-master.yaml") {
				continue
			}
			data, err := r.ReadFile(ctx, sha, dir+"/"+e.Name)
			if err != nil {
				return nil, nil, err
			}
			entries, problems := repo.ParseMasterConfig(dir+"/"+e.Name, data)
			for _, c := range entries {
				if c.Key == key {
					return c, labels, nil
				}
			}
			for _, p := range problems {
				if strings.Contains(p.Err, key) {
					return nil, nil, fmt.Errorf("%s: %s", p.Path, p.Err)
				}
			}
		}
	}
	return nil, nil, fmt.Errorf("no master config holds %q at %s", key, sha)
}

// gitFiles is a clone at one revision as the trace reads it.
type gitFiles struct {
	r   *gitsource.Repo
	rev string
}

func (g gitFiles) ReadFile(ctx context.Context, name string) ([]byte, error) {
	b, err := g.r.ReadFile(ctx, g.rev, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", fs.ErrNotExist, err)
	}
	return b, nil
}

func (g gitFiles) Stat(ctx context.Context, name string) (bool, bool) {
	exists, dir, err := g.r.Stat(ctx, g.rev, name)
	return exists && err == nil, dir
}
