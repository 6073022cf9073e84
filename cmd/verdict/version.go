package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
)

// version and revision are set at build time by builds that have no VCS
// information to stamp (a Docker build copies the tree without .git):
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.revision=$(git rev-parse HEAD)"
var (
	version  = ""
	revision = ""
)

// buildVersion is what a binary knows about where it came from.
type buildVersion struct {
	Module   string // module version, "(devel)" for a build from a work tree
	Revision string // VCS commit, "" when not stamped
	Time     string // commit time, RFC 3339, "" when not stamped
	Modified bool   // the work tree had uncommitted changes
	Go       string // toolchain that built it
}

// describe reads bi (nil when the binary has no build information) and
// applies the -ldflags overrides, which win because they are deliberate.
func describe(bi *debug.BuildInfo, versionOverride, revisionOverride string) buildVersion {
	var b buildVersion
	if bi != nil {
		b.Module, b.Go = bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if versionOverride != "" {
		b.Module = versionOverride
	}
	if revisionOverride != "" {
		b.Revision, b.Modified = revisionOverride, false
	}
	if b.Module == "" {
		b.Module = "(devel)"
	}
	return b
}

func currentVersion() buildVersion {
	bi, _ := debug.ReadBuildInfo()
	return describe(bi, version, revision)
}

// versionString is the one-token version written to logs.
func versionString() string { return currentVersion().short() }

func (b buildVersion) short() string {
	if b.Revision == "" {
		return b.Module
	}
	rev := b.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.Modified {
		rev += "-modified"
	}
	return b.Module + "+" + rev
}

// lines is the output of verdict version.
func (b buildVersion) lines() []string {
	rev := b.Revision
	switch {
	case rev == "":
		rev = "unknown (built without VCS information)"
	case b.Modified:
		rev += " (modified)"
	}
	out := []string{"verdict " + b.Module, "revision " + rev}
	if b.Time != "" {
		out = append(out, "committed "+b.Time)
	}
	if b.Go != "" {
		out = append(out, "go "+b.Go)
	}
	return out
}

func cmdVersion(_ context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: verdict version\n\nPrints the module version, the VCS revision and the Go toolchain of this binary.")
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "verdict version: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	for _, l := range currentVersion().lines() {
		fmt.Fprintln(env.Stdout, l)
	}
	return 0
}

// parseFlags parses args into fs. done reports that the command should stop
// with code: 0 after -h/--help (usage was printed), 2 after a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case err == flag.ErrHelp:
		return 0, true
	default:
		return 2, true
	}
}
