// Package checklist is the checklist preset, for any repository: the
// maintainers keep their review checklist in the repository (a file they
// name, or the pull request template), and .github/verdict.yml binds each
// item to a verifier. A sign-off must hold every current item, checked;
// the signer must own the changed files; and every bound item is
// re-derived from the evidence, fail-closed. An item no verifier can check
// is shown as attested by the signer, never as verified. The rules are
// written down in RULES.md.
package checklist

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/codeowners"
)

// rows are the preset's rows in order: one per verifier kind, so that the
// verdict has the same rows in every repository; a row no item binds is
// N/A.
var rows = []*checks.Check{
	Owner,
	Complete,
	CIGreen,
	ChangedFiles,
	AddedLines,
	Linked,
	Labels,
	SignedOff,
	Attested,
}

// Preset is the checklist preset as the app reaches it.
var Preset = &checks.Preset{
	Name:      "checklist",
	Title:     checks.T("Review checklist", "评审清单"),
	Rows:      rows,
	Configure: configure,
	Owners:    owners,
	ReadAhead: readAhead,
	Sample:    sample,
}

// readAhead starts what the rows read first: the checklist, CODEOWNERS
// (through the facts the rows and the gate share), and the PR's commits
// when an item reads them.
func readAhead(ctx context.Context, pr *checks.PR) {
	go templateFact.Of(ctx, pr)
	go ownersFact.Of(ctx, pr)
	if len(bound(pr, KindDCO)) > 0 || len(bound(pr, KindChecks)) > 0 {
		go pr.Source.Commits(ctx)
	}
}

// codeOwnersPaths are where GitHub looks for CODEOWNERS, in its order.
var codeOwnersPaths = []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// TemplatePaths are where GitHub looks for the pull request template, in
// its order: the checklist when the settings name none.
var TemplatePaths = []string{
	".github/pull_request_template.md", ".github/PULL_REQUEST_TEMPLATE.md",
	"pull_request_template.md", "PULL_REQUEST_TEMPLATE.md",
	"docs/pull_request_template.md", "docs/PULL_REQUEST_TEMPLATE.md",
}

// codeOwners is CODEOWNERS as the gate and the owner row read it, and the
// parsed file, from which the sample sign-off's signer is picked.
type codeOwners struct {
	checks.Owners
	File codeowners.File
}

// ownersFact reads and parses CODEOWNERS at the base tip once for the gate,
// the owner row and the sample sign-off: the configured path, else the
// first of GitHub's.
var ownersFact = checks.NewFact("CODEOWNERS", nil, func(ctx context.Context, pr *checks.PR) (codeOwners, error) {
	s := settingsOf(pr)
	o := codeOwners{Owners: checks.Owners{CoreTeam: s.CoreTeam}}
	paths := codeOwnersPaths
	if s.CodeOwners != "" {
		paths = []string{s.CodeOwners}
	}
	path, data, err := firstFile(ctx, pr.Source, pr.BaseTip, paths)
	o.CodeOwners = path
	if err != nil {
		return o, err
	}
	o.File = codeowners.Parse(string(data))
	o.Empty = strings.TrimSpace(string(data)) == ""
	o.Match, o.Problems = o.File.Owners, o.File.ProblemLines()
	return o, nil
})

func owners(ctx context.Context, pr *checks.PR) (checks.Owners, error) {
	o, err := ownersFact.Of(ctx, pr)
	return o.Owners, err
}

// firstFile reads the first of paths that exists at ref. When none does,
// the error names them all and path is the first.
func firstFile(ctx context.Context, src checks.Source, ref string, paths []string) (string, []byte, error) {
	for _, p := range paths {
		data, err := src.ReadFile(ctx, ref, p)
		switch {
		case err == nil:
			return p, data, nil
		case !errors.Is(err, checks.ErrNotFound):
			return p, nil, err
		}
	}
	return paths[0], nil, fmt.Errorf("none of %s exists: %w", strings.Join(paths, ", "), checks.ErrNotFound)
}
