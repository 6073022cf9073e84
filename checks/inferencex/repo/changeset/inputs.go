package changeset

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Inputs are the change-set model's inputs it could not read or parse, the
// changed files it did not read as text, and the perf changelog's entries
// it took as added, building the model if no row did.
func Inputs(ctx context.Context, pr *checks.PR) (checks.Inputs, error) {
	l, err := repo.LayoutFact.Of(ctx, pr)
	if err != nil {
		return checks.Inputs{}, fmt.Errorf("reading the repository layout: %w", err)
	}
	cs, err := Fact.Of(ctx, pr)
	if err != nil {
		return checks.Inputs{}, fmt.Errorf("building the change-set model: %w", err)
	}
	if cs == nil {
		return checks.Inputs{}, errors.New("the change-set model is empty")
	}
	cl := &checks.Changelog{Layout: l.Name, Root: l.Root, Path: l.Changelog, Changed: cs.IsChanged(l.Changelog)}
	for _, e := range cs.ChangelogAdded {
		cl.Added = append(cl.Added, checks.ChangelogEntry{ConfigKeys: e.ConfigKeys, Description: e.Description, PRLink: e.PRLink, Line: e.Line})
	}
	in := checks.Inputs{Changelog: cl}
	seen := map[repo.InputProblem]bool{}
	for _, p := range cs.Problems {
		if seen[p] {
			continue
		}
		seen[p] = true
		in.Problems = append(in.Problems, checks.InputProblem{Path: p.Path, Reason: p.Err, Kind: p.Kind, Ref: p.Ref})
		if p.Path == l.Changelog {
			cl.Problems = append(cl.Problems, p.Err)
		}
	}
	// The model's order depends on which reads finished first; a report
	// must not.
	sort.SliceStable(in.Problems, func(i, j int) bool {
		if in.Problems[i].Path != in.Problems[j].Path {
			return in.Problems[i].Path < in.Problems[j].Path
		}
		return in.Problems[i].Reason < in.Problems[j].Reason
	})
	sort.Strings(cl.Problems)
	in.NotText = append([]string(nil), cs.NotText...)
	sort.Strings(in.NotText)
	return in, nil
}
