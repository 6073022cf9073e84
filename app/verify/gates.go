package verify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/codeowners"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

var (
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	loginRE    = regexp.MustCompile(`^[A-Za-z0-9-]+(\[bot\])?$`)
)

// sanityGate is §1.3b: the identifiers that reach URLs and logs have the
// shapes GitHub gives them.
func sanityGate(fullName, author string, number int) error {
	if !repoNameRE.MatchString(fullName) {
		return fmt.Errorf("repository name %q is malformed", fullName)
	}
	if !loginRE.MatchString(author) {
		return fmt.Errorf("sign-off author %q is malformed", author)
	}
	if number <= 0 {
		return fmt.Errorf("PR number %d is not positive", number)
	}
	return nil
}

// Scope is the answer of the "sign-off required?" gate (§1.3c).
type Scope struct {
	Required bool
	// Owners are the owners that make a sign-off required, lowercased.
	Owners []string
	// Problems are CODEOWNERS lines that could not be used.
	Problems []string
}

// ScopeOf is the scope gate for callers outside a verification (the
// welcome comment's review bullet).
func ScopeOf(ctx context.Context, pr *checks.PR, layout repo.Layout) (Scope, error) {
	return scopeGate(ctx, pr, layout)
}

// scopeGate decides whether the PR needs a sign-off at all: it does when a
// changed file (or the old name of a renamed one) is owned by someone other
// than the core team and repository admins.
func scopeGate(ctx context.Context, pr *checks.PR, layout repo.Layout) (Scope, error) {
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
	text, err := src.ReadFile(ctx, pr.BaseTip, layout.CodeOwners)
	if err != nil {
		return Scope{}, fmt.Errorf("reading %s at base tip %s: %w", layout.CodeOwners, checks.Short(pr.BaseTip), err)
	}
	if strings.TrimSpace(string(text)) == "" {
		return Scope{}, fmt.Errorf("%s at base tip %s is empty", layout.CodeOwners, checks.Short(pr.BaseTip))
	}
	// §1.3c.3: GitHub's own diagnostics at B must be empty. A line GitHub
	// rejects is ignored by GitHub but not by our parser, so ownership (and
	// with it "no sign-off required") would be decided on rules that do not
	// apply; refuse instead of guessing.
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
			layout.CodeOwners, checks.Short(pr.BaseTip), len(cerrs), strings.Join(lines, "; "))
	}
	co := codeowners.Parse(string(text))
	var sc Scope
	if cerr != nil {
		sc.Problems = append(sc.Problems, "GitHub's CODEOWNERS diagnostics unavailable: "+cerr.Error())
	}
	for _, p := range co.Problems {
		sc.Problems = append(sc.Problems, fmt.Sprintf("line %d: %s", p.Line, p.Message))
	}
	owners := map[string]bool{}
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			if rule, ok := co.Match(p); ok {
				for _, o := range rule.Owners {
					owners[strings.ToLower(o)] = true
				}
			}
		}
	}
	core := strings.ToLower(repo.SettingsParam.Get(pr).CoreTeam)
	delete(owners, core)
	keys := make([]string, 0, len(owners))
	for o := range owners {
		keys = append(keys, o)
	}
	sort.Strings(keys)
	for _, o := range keys {
		// Individual admins need no sign-off; teams (other than core) and
		// email owners always do. A failed lookup never exempts.
		if login, ok := strings.CutPrefix(o, "@"); ok && !strings.Contains(login, "/") {
			perm, err := src.Permission(ctx, login)
			if err == nil && perm.IsAdmin() {
				continue
			}
		}
		sc.Owners = append(sc.Owners, o)
	}
	sc.Required = len(sc.Owners) > 0
	return sc, nil
}

// actorGate is §1.3f: whoever triggered the verification must have write
// access. The sign-off author is judged separately by Check 0.
func actorGate(ctx context.Context, src checks.Source, actor, actorType string) error {
	if actor == "" {
		return errors.New("no triggering actor")
	}
	if strings.HasSuffix(actor, "[bot]") || actorType == "Bot" {
		return fmt.Errorf("actor %s is a bot", actor)
	}
	p, err := src.Permission(ctx, actor)
	if err != nil {
		return fmt.Errorf("reading %s's permission: %w", actor, err)
	}
	okPerm := p.Permission == "admin" || p.Permission == "write"
	okRole := p.RoleName == "admin" || p.RoleName == "maintain" || p.RoleName == "write"
	if !okPerm || !okRole {
		return fmt.Errorf("actor %s has permission %q role %q, not write", actor, p.Permission, p.RoleName)
	}
	return nil
}
