package repo

import (
	"context"
	"errors"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/codeowners"
)

// CodeOwners is the CODEOWNERS file at the base-branch tip B, never at the
// PR head, so a PR cannot appoint its own owners (RULES.md, Check 0).
type CodeOwners struct {
	// Path is the file's path in the layout; At is B.
	Path, At string
	File     codeowners.File
}

// ErrEmptyCodeOwners is CodeOwnersFact's error for a file that exists but
// holds nothing but white space.
var ErrEmptyCodeOwners = errors.New("CODEOWNERS is empty")

// CodeOwnersFact reads and parses CODEOWNERS once per verification for
// every reader: Check 0, the application's "is a sign-off required?" gate
// and the welcome reminder. A read failure is the Source's error as is, so
// each reader can word it; Path and At are set whatever the error.
var CodeOwnersFact = checks.NewFact("CODEOWNERS", []checks.Requirement{LayoutFact}, func(ctx context.Context, pr *checks.PR) (CodeOwners, error) {
	l, err := LayoutFact.Of(ctx, pr)
	if err != nil {
		return CodeOwners{}, err
	}
	co := CodeOwners{Path: l.CodeOwners, At: pr.BaseTip}
	data, err := pr.Source.ReadFile(ctx, pr.BaseTip, l.CodeOwners)
	if err != nil {
		return co, err
	}
	if strings.TrimSpace(string(data)) == "" {
		return co, ErrEmptyCodeOwners
	}
	co.File = codeowners.Parse(string(data))
	return co, nil
})
