// Package scope is the gate before a verification: does the pull request
// need a sign-off at all? It does when a changed file (or the old name of a
// renamed one) is owned, by the CODEOWNERS file at the base-branch tip,
// by someone other than the core team and the repository's admins. The App
// asks it before verifying, the welcome reminder to decide whether to
// mention the review, and a local check like the App.
package scope

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/verdict-bot/verdict/checks"
)

// ErrIncomplete marks an answer GitHub gave inconsistently (a file list
// shorter than the PR's own count); asking again later may succeed.
var ErrIncomplete = errors.New("incomplete evidence")

// Scope is the gate's answer.
type Scope struct {
	Required bool
	// Owners are the owners that make a sign-off required, lowercased.
	Owners []string
	// Problems are CODEOWNERS lines that could not be used.
	Problems []string
}

// Of decides whether pr needs a sign-off. It reads the PR's files, the
// CODEOWNERS file the preset names (at the base tip) and GitHub's
// diagnostics of that file through pr.Source; the core team is the
// preset's.
func Of(ctx context.Context, p *checks.Preset, pr *checks.PR) (Scope, error) {
	src := pr.Source
	files, err := src.Files(ctx)
	if errors.Is(err, checks.ErrTooLarge) {
		// Past GitHub's listing cap the unlisted files could need any
		// owner, so "no sign-off required" cannot be shown: verify, and
		// let the rows that need the whole list fail closed.
		return Scope{Required: true, Problems: []string{err.Error() + "; a sign-off is taken to be required"}}, nil
	}
	if err != nil {
		return Scope{}, fmt.Errorf("listing PR files: %w", err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[f.Path] = true
	}
	if pr.ChangedFiles > 0 && len(names) != pr.ChangedFiles {
		return Scope{}, fmt.Errorf("%w: the file list has %d files but the PR reports %d changed files", ErrIncomplete, len(names), pr.ChangedFiles)
	}
	if p.Owners == nil {
		return Scope{}, fmt.Errorf("the %s preset names no ownership rules", p.Name)
	}
	where, err := p.Owners(ctx, pr)
	switch {
	case err != nil:
		return Scope{}, fmt.Errorf("reading %s at base tip %s: %w", where.CodeOwners, checks.Short(pr.BaseTip), err)
	case where.Match == nil:
		return Scope{}, fmt.Errorf("the %s preset read %s but gave no rules", p.Name, where.CodeOwners)
	case where.Empty:
		return Scope{}, fmt.Errorf("%s at base tip %s is empty", where.CodeOwners, checks.Short(pr.BaseTip))
	}
	// GitHub's own diagnostics at the base tip must be empty. A line
	// GitHub rejects is ignored by GitHub but not by our parser, so
	// ownership (and with it "no sign-off required") would be decided on
	// rules that do not apply; refuse instead of guessing.
	// A server without the diagnostics endpoint (older GHES, compatible
	// servers) cannot report errors: the gate then relies on its own parser,
	// which skips broken lines, and says so in the scope's problems.
	cerrs, cerr := src.CodeownersErrors(ctx, pr.BaseTip)
	if len(cerrs) > 0 {
		var lines []string
		for _, e := range cerrs {
			lines = append(lines, fmt.Sprintf("line %d: %s", e.Line, e.Message))
		}
		return Scope{}, fmt.Errorf("%s at base tip %s has %d error(s) reported by GitHub (%s); fix it before verifying",
			where.CodeOwners, checks.Short(pr.BaseTip), len(cerrs), strings.Join(lines, "; "))
	}
	var sc Scope
	if cerr != nil {
		sc.Problems = append(sc.Problems, "GitHub's CODEOWNERS diagnostics unavailable: "+cerr.Error())
	}
	sc.Problems = append(sc.Problems, where.Problems...)
	owned := map[string]bool{}
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			if owners, ok := where.Match(p); ok {
				for _, o := range owners {
					owned[strings.ToLower(o)] = true
				}
			}
		}
	}
	core := strings.ToLower(where.CoreTeam)
	delete(owned, core)
	keys := make([]string, 0, len(owned))
	for o := range owned {
		keys = append(keys, o)
	}
	sort.Strings(keys)
	// Individual admins need no sign-off; teams (other than core) and
	// email owners always do. A failed lookup never exempts. The
	// permissions are read all at once.
	admin := make([]bool, len(keys))
	var wg sync.WaitGroup
	for i, o := range keys {
		if login, ok := strings.CutPrefix(o, "@"); ok && !strings.Contains(login, "/") {
			wg.Add(1)
			go func() {
				defer wg.Done()
				perm, err := src.Permission(ctx, login)
				admin[i] = err == nil && perm.IsAdmin()
			}()
		}
	}
	wg.Wait()
	for i, o := range keys {
		if !admin[i] {
			sc.Owners = append(sc.Owners, o)
		}
	}
	sc.Required = len(sc.Owners) > 0
	return sc, nil
}
