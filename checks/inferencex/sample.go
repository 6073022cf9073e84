package inferencex

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// sample writes the sign-off a code owner of the change would post: every
// item of the checklist template at the default branch, checked, and
// signed by the individual CODEOWNER (at the base tip) who owns the most
// changed paths (codeowners.File.LeadOwner). A template or CODEOWNERS that
// cannot be read leaves the items or the signer out, which Checks 5 and 0
// report.
func sample(ctx context.Context, pr *checks.PR, phrase string) (checks.SampleSignOff, error) {
	l, err := repo.LayoutFact.Of(ctx, pr)
	if err != nil {
		return checks.SampleSignOff{}, fmt.Errorf("reading the repository layout: %w", err)
	}
	var b strings.Builder
	b.WriteString(phrase + "\n")
	if data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, l.Checklist); err == nil {
		if items, err := signoff.ExtractTemplate(string(data)); err == nil {
			for _, it := range items {
				fmt.Fprintf(&b, "%s- [x] %s\n", strings.Repeat("  ", it.Depth), it.Text)
			}
		}
	}
	signer := leadOwner(ctx, pr)
	b.WriteString("\n### Additional detail section:\n- insert any additional info here\n\n")
	fmt.Fprintf(&b, "Signed: `%s`\n", signer)
	return checks.SampleSignOff{Body: b.String(), Signer: signer}, nil
}

// leadOwner is the login of the individual CODEOWNER who owns the most
// changed paths, "" when CODEOWNERS or the file list cannot be read or the
// file names no individual.
func leadOwner(ctx context.Context, pr *checks.PR) string {
	co, err := repo.CodeOwnersFact.Of(ctx, pr)
	if err != nil {
		return ""
	}
	files, _ := pr.Source.Files(ctx)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path, f.PreviousPath)
	}
	return strings.TrimPrefix(co.File.LeadOwner(paths), "@")
}
