package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/replay"
)

// cmdReplay is verdict replay: re-verify every merged pull request of a
// local clone's default branch and report reader problems, rows per status
// and the changelog comparison. Exit 0 when the replay ran (whatever it
// found), 2 on bad usage or an unreadable repository.
func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("repo-dir", "", "local clone (work tree or bare) whose default branch is replayed")
	since := fs.String("since", "", "replay only the pull requests merged after this revision")
	limit := fs.Int("limit", 0, "replay only the newest N pull requests (0: all)")
	jobs := fs.Int("jobs", 2, "pull requests verified at once")
	format := fs.String("format", "text", "output format: text or json")
	repoFlag := fs.String("repo", "", "OWNER/NAME for links and run claims (default: the origin remote on github.com)")
	python := fs.String("python", "python3", "Python with PyYAML and pydantic, to run the repository's utils/process_changelog.py")
	toolMode := fs.String("changelog-tool", replay.ToolEntries, "how process_changelog.py runs: entries (its sweep-matrix generation answers an empty matrix; a refusal is re-run in full), full, or off")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	presetFlag := fs.String("preset", "", "verify every PR with this preset (default: what each parent's configuration names or detection finds)")
	expect := fs.String("expect", "", "scorecard file (testdata/scorecard/*.yaml): print how the rows agree with the judged ones; a file of judged branches (branch, sha, base) replays those branches instead of the history")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // -h asked for the usage; printing it is success
		}
		return exitError
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "verdict replay: "+format+"\n", a...)
		return exitError
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q", fs.Arg(0))
	case *dir == "":
		return fail("--repo-dir DIR is required")
	case *format != "text" && *format != "json":
		return fail("--format must be text or json, not %q", *format)
	case *toolMode != replay.ToolEntries && *toolMode != replay.ToolFull && *toolMode != replay.ToolOff:
		return fail("--changelog-tool must be entries, full or off, not %q", *toolMode)
	case *limit < 0 || *jobs < 1:
		return fail("--limit must not be negative and --jobs must be at least 1")
	}
	o := replay.Options{Since: *since, Limit: *limit, Jobs: *jobs, Python: *python, Tool: *toolMode, Presets: servedPresets, Preset: *presetFlag}
	if *repoFlag != "" {
		owner, name, ok := strings.Cut(*repoFlag, "/")
		if !ok || owner == "" || name == "" {
			return fail("--repo must be OWNER/NAME, not %q", *repoFlag)
		}
		o.Owner, o.Repo = owner, name
	}
	if !*quiet {
		o.Progress = stderr
	}
	var expectations []replay.Expectation
	if *expect != "" {
		data, err := os.ReadFile(*expect)
		if err != nil {
			return fail("%v", err)
		}
		if expectations, err = replay.LoadExpectations(data); err != nil {
			return fail("%s: %v", *expect, err)
		}
		for _, e := range expectations {
			if e.Branch == "" {
				continue
			}
			if e.SHA == "" || e.Base == "" {
				return fail("%s: branch %s needs its sha and base", *expect, e.Branch)
			}
			o.Branches = append(o.Branches, replay.Branch{Name: e.Branch, SHA: e.SHA, Base: e.Base})
		}
		if len(o.Branches) > 0 && (*since != "" || *limit > 0) {
			return fail("--since and --limit select merged PRs; %s names branches", *expect)
		}
	}
	repo, err := gitsource.Open(ctx, *dir, gitsource.Options{})
	if err != nil {
		return fail("%v", err)
	}
	defer repo.Close()
	rep, err := replay.Run(ctx, repo, o)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	var card *replay.Scorecard
	if expectations != nil {
		sc := replay.Score(rep, expectations)
		card = &sc
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		out := struct {
			*replay.Report
			Scorecard *replay.Scorecard `json:"scorecard,omitempty"`
		}{rep, card}
		if err := enc.Encode(out); err != nil {
			return fail("encoding the report: %v", err)
		}
		return exitPass
	}
	rep.Text(stdout)
	if card != nil {
		card.Text(stdout)
	}
	return exitPass
}
