package checklist

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// sample writes the sign-off a code owner of the change would post: the
// phrase, every item of the checklist at the default branch, checked, and
// the Signed: line of the individual CODEOWNER (at the base tip) who owns
// the most changed paths (codeowners.File.LeadOwner). A checklist or
// CODEOWNERS that cannot be read leaves the items or the signer out, for
// rows 1 and 0 to report.
func sample(ctx context.Context, pr *checks.PR, phrase string) (checks.SampleSignOff, error) {
	var b strings.Builder
	b.WriteString(phrase + "\n")
	if tpl, err := templateFact.Of(ctx, pr); err == nil {
		for _, it := range tpl.Items {
			fmt.Fprintf(&b, "%s- [x] %s\n", strings.Repeat("  ", it.Depth), it.Text)
		}
	}
	signer := ""
	if o, err := ownersFact.Of(ctx, pr); err == nil {
		// A file list that cannot be read leaves the catch-all's owner,
		// or the first one listed, to sign.
		files, _ := pr.Source.Files(ctx)
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path, f.PreviousPath)
		}
		signer = strings.TrimPrefix(o.File.LeadOwner(paths), "@")
	}
	fmt.Fprintf(&b, "\nSigned: `%s`\n", signer)
	return checks.SampleSignOff{Body: b.String(), Signer: signer}, nil
}
