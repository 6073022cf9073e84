package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/localverify"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks"
)

// usesRepoDir reports whether verdict check was asked for a local check.
func usesRepoDir(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "repo-dir" {
			return true
		}
	}
	return false
}

// cmdCheckLocal is verdict check --repo-dir: verify a change in a local git
// repository offline, through the same checks, settings and renderer.
func cmdCheckLocal(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("repo-dir", "", "local git repository (work tree or bare)")
	base := fs.String("base", "", "branch or commit the change merges into (its rules are read there)")
	head := fs.String("head", "HEAD", "the change's commit")
	signoffFile := fs.String("signoff-file", "", "file holding the sign-off body (default: none; rows 0, 5 and 13 then say so)")
	prFlag := fs.Int("pr", 0, "pull request number (names the waiver file); 0 when there is none yet")
	repoFlag := fs.String("repo", "", "OWNER/NAME for links in the evidence (optional)")
	date := fs.String("date", "", "review date YYYY-MM-DD (default today, UTC)")
	format := fs.String("format", "markdown", "output format: markdown or json")
	presetFlag := fs.String("preset", "", "verify with this preset (default: what the base's configuration names or detection finds)")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "verdict check: "+format+"\n", a...)
		return exitError
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q", fs.Arg(0))
	case *dir == "":
		return fail("--repo-dir DIR is required")
	case *base == "":
		return fail("--base REV is required with --repo-dir")
	case *format != "markdown" && *format != "json":
		return fail("--format must be markdown or json, not %q", *format)
	case *prFlag < 0:
		return fail("--pr must not be negative")
	}
	req := localverify.Request{Base: *base, Head: *head, Number: *prFlag, Presets: servedPresets, Preset: *presetFlag}
	if *repoFlag != "" {
		owner, name, ok := strings.Cut(*repoFlag, "/")
		if !ok || owner == "" || name == "" {
			return fail("--repo must be OWNER/NAME, not %q", *repoFlag)
		}
		req.Owner, req.Repo = owner, name
	}
	if *date != "" {
		d, err := time.Parse("2006-01-02", *date)
		if err != nil {
			return fail("--date %q is not YYYY-MM-DD", *date)
		}
		req.ReviewDate = d
	}
	if *signoffFile != "" {
		b, err := os.ReadFile(*signoffFile)
		if err != nil {
			return fail("reading the sign-off: %v", err)
		}
		body := string(b)
		req.SignOff = &body
	}

	repo, err := gitsource.Open(ctx, *dir, gitsource.Options{})
	if err != nil {
		return fail("%v", err)
	}
	defer repo.Close()
	ch, err := localverify.Prepare(ctx, repo, req)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	out, err := ch.Verify(ctx, false)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	if !out.Scope.Required {
		reason := "every changed file is owned by the core team or repository admins"
		if *format == "json" {
			b, _ := json.Marshal(map[string]any{"verdict": "NOT_REQUIRED", "reason": reason})
			fmt.Fprintln(stdout, string(b))
		} else {
			fmt.Fprintf(stdout, "No sign-off required: %s.\n", reason)
		}
		return exitPass
	}
	if *format == "json" {
		b, err := render.JSON(out.Verdict)
		if err != nil {
			return fail("rendering JSON: %v", err)
		}
		fmt.Fprintln(stdout, string(b))
	} else {
		md, err := render.Markdown(out.Verdict)
		if md == "" {
			return fail("rendering the verdict: %v", err)
		}
		fmt.Fprint(stdout, md)
		if err != nil {
			// The guard refused the verdict; md is the fixed REJECTED body.
			fmt.Fprintf(stderr, "verdict check: %v\n", err)
			return exitRejected
		}
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
