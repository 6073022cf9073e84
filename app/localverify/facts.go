package localverify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks/format/codeowners"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	infxrepo "github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Facts are what the change-set model made of a change: the inputs it could
// not read or parse, and the changelog entries it took as added. The
// history replay reports them.
type Facts struct {
	// Layout is the detected layout's name; Root its path prefix.
	Layout, Root string
	// Changelog is the changelog's path; ChangelogChanged whether the
	// change touches it.
	Changelog        string
	ChangelogChanged bool
	// ChangelogAdded are the entries the model judged added by the change.
	ChangelogAdded []ChangelogEntry
	// ChangelogProblems are the problems reported on the changelog itself:
	// when there are any, ChangelogAdded may be incomplete.
	ChangelogProblems []string
	// Problems are all inputs the model could not use, without
	// duplicates, sorted by path and reason.
	Problems []Problem
	// Affected are the config keys the model judged affected, sorted.
	Affected []string
	// NotText are changed files without a patch that are not text (no row
	// reads their lines; not problems).
	NotText []string
}

// Problem is one input the change-set model could not use.
type Problem struct {
	Path string
	Err  string
	// Kind is the change-set model's InputProblem.Kind: empty when the
	// input could not be read.
	Kind string
	// Ref is the commit the input was read at, when not the change's head.
	Ref string
}

// ChangelogEntry is the part of a changelog entry that identifies it.
type ChangelogEntry struct {
	ConfigKeys  []string
	Description []string
	PRLink      string
	Line        int
}

// Facts returns the change-set model's facts (building the model if no
// check has yet).
func (c *Change) Facts(ctx context.Context) (Facts, error) {
	cs, err := c.ChangeSet(ctx)
	if err != nil {
		return Facts{}, err
	}
	if cs == nil {
		return Facts{}, errors.New("the change-set model is empty")
	}
	l := c.Layout
	f := Facts{Layout: l.Name, Root: l.Root, Changelog: l.Changelog, ChangelogChanged: cs.IsChanged(l.Changelog)}
	for _, e := range cs.ChangelogAdded {
		f.ChangelogAdded = append(f.ChangelogAdded, ChangelogEntry{ConfigKeys: e.ConfigKeys, Description: e.Description, PRLink: e.PRLink, Line: e.Line})
	}
	seen := map[infxrepo.InputProblem]bool{}
	for _, p := range cs.Problems {
		if seen[p] {
			continue
		}
		seen[p] = true
		f.Problems = append(f.Problems, Problem{Path: p.Path, Err: p.Err, Kind: p.Kind, Ref: p.Ref})
		if p.Path == l.Changelog {
			f.ChangelogProblems = append(f.ChangelogProblems, p.Err)
		}
	}
	// The model's order depends on which reads finished first; a report
	// must not.
	sort.SliceStable(f.Problems, func(i, j int) bool {
		if f.Problems[i].Path != f.Problems[j].Path {
			return f.Problems[i].Path < f.Problems[j].Path
		}
		return f.Problems[i].Err < f.Problems[j].Err
	})
	sort.Strings(f.ChangelogProblems)
	for _, e := range cs.Affected {
		if e != nil {
			f.Affected = append(f.Affected, e.Key)
		}
	}
	sort.Strings(f.Affected)
	f.NotText = append([]string(nil), cs.NotText...)
	sort.Strings(f.NotText)
	return f, nil
}

// SynthesizeSignOff writes the sign-off a code owner of this change would
// post: every item of the checklist template at the trusted revision,
// checked, and signed by the individual CODEOWNER (at the base tip) who
// owns the most changed paths through specific rules. Ties go to the
// owner listed first in the file; without an individual specific owner the
// catch-all rule's first individual owner signs, then the first individual
// listed anywhere. It returns the body and the signer ("" when CODEOWNERS
// names no individual); a template that cannot be read gives a sign-off
// with no items, which Check 5 reports.
func (c *Change) SynthesizeSignOff(ctx context.Context) (string, string) {
	pr := c.PR
	var b strings.Builder
	b.WriteString(c.Config.Settings.SignOffPhrase + "\n")
	if data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, c.Layout.Checklist); err == nil {
		if items, err := signoff.ExtractTemplate(string(data)); err == nil {
			for _, it := range items {
				fmt.Fprintf(&b, "%s- [x] %s\n", strings.Repeat("  ", it.Depth), it.Text)
			}
		}
	}
	signer := c.owner(ctx)
	b.WriteString("\n### Additional detail section:\n- insert any additional info here\n\n")
	fmt.Fprintf(&b, "Signed: `%s`\n", signer)
	return b.String(), signer
}

func (c *Change) owner(ctx context.Context) string {
	pr := c.PR
	data, err := pr.Source.ReadFile(ctx, pr.BaseTip, c.Layout.CodeOwners)
	if err != nil {
		return ""
	}
	co := codeowners.Parse(string(data))
	individual := func(o string) bool { return strings.HasPrefix(o, "@") && !codeowners.IsTeam(o) }
	order := map[string]int{}
	var listed []string
	for _, r := range co.Rules {
		for _, o := range r.Owners {
			if k := strings.ToLower(o); individual(o) && order[k] == 0 {
				listed = append(listed, o)
				order[k] = len(listed)
			}
		}
	}
	files, _ := c.Source.Files(ctx)
	owns := map[string]int{}
	var catchAll []string
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			r, ok := co.Match(p)
			if !ok {
				continue
			}
			for _, o := range r.Owners {
				if !individual(o) {
					continue
				}
				if r.CatchAll {
					catchAll = append(catchAll, o)
				} else {
					owns[strings.ToLower(o)]++
				}
			}
		}
	}
	best := ""
	for _, o := range listed {
		k := strings.ToLower(o)
		if owns[k] > 0 && (best == "" || owns[k] > owns[strings.ToLower(best)]) {
			best = o
		}
	}
	switch {
	case best != "":
	case len(catchAll) > 0:
		best = catchAll[0]
	case len(listed) > 0:
		best = listed[0]
	}
	return strings.TrimPrefix(best, "@")
}
