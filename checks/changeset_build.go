package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	pathpkg "path"
	"sort"
	"strings"
	"unicode/utf8"
)

// buildChangeSet computes the change-set model of §4.0 once per
// verification. It fails only when the PR's file list cannot be read;
// every other unreadable input becomes an InputProblem, so each check can
// say what it could not verify while the others carry on.
func buildChangeSet(ctx context.Context, pr *PR) (*ChangeSet, error) {
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the PR's changed files: %w", err)
	}
	cs := &ChangeSet{
		Files:        files,
		AddedLines:   map[string][]DiffLine{},
		RemovedLines: map[string][]DiffLine{},
		Effective:    map[string][]*EffectiveFile{},
	}
	for _, f := range files {
		if f.PatchMissing || (f.Patch == "" && f.Additions+f.Deletions > 0) {
			// Every line of a file the PR adds is an added line: read it at
			// H instead of treating its lines as pre-existing.
			if a, ok := addedFileLines(ctx, pr, f); ok {
				cs.AddedLines[f.Path] = a
				continue
			}
			if parsedWhole(pr.Layout, f.Path) {
				// Master configs and the changelog are compared as parsed
				// documents at base and H; their patch adds nothing.
				continue
			}
			cs.problem(f.Path, "GitHub returned no patch for this file (binary or too large a diff)")
			continue
		}
		a, r, trunc := ParsePatch(f.Patch)
		cs.AddedLines[f.Path], cs.RemovedLines[f.Path] = a, r
		if trunc {
			cs.problem(f.Path, fmt.Sprintf("patch is over %d lines; the rest was not read", maxPatchLines))
		}
	}

	// Master configs at the three refs, concurrently.
	refs := []string{pr.BaseSHA, pr.HeadSHA, pr.DefaultSHA}
	maps := make([]map[string]*ConfigEntry, 3)
	probs := make([][]InputProblem, 3)
	csForEach(3, 3, func(i int) {
		if refs[i] == "" {
			return
		}
		m, ps, err := LoadMasterConfigs(ctx, pr, refs[i])
		if err != nil {
			if i == 0 && errors.Is(err, ErrNotFound) {
				return // no configs directory at the base: everything at H is new
			}
			ps = append(ps, InputProblem{Path: pr.Layout.ConfigsDir, Err: err.Error()})
		}
		maps[i], probs[i] = m, ps
	})
	cs.MasterBase, cs.MasterHead, cs.MasterDefault = maps[0], maps[1], maps[2]
	seen := map[InputProblem]bool{}
	for _, ps := range probs {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				cs.Problems = append(cs.Problems, p)
			}
		}
	}
	if cs.MasterHead != nil {
		base := cs.MasterBase
		if base == nil {
			base = map[string]*ConfigEntry{}
		}
		cs.AddedKeys, cs.ChangedKeys, cs.RemovedKeys = diffKeys(base, cs.MasterHead)
	}

	b := &csBuilder{ctx: ctx, pr: pr, cs: cs, parsed: map[string]*EffectiveFile{}}
	b.changelog()
	b.affected()
	return cs, nil
}

// addedFileLines returns every line of a text file the PR adds, read at H,
// numbered from 1 like a patch's added lines. It reports false for other
// statuses, unreadable or binary files and files over the patch line cap.
func addedFileLines(ctx context.Context, pr *PR, f ChangedFile) ([]DiffLine, bool) {
	if f.Status != "added" || pr.HeadSHA == "" {
		return nil, false
	}
	data, err := csRead(ctx, pr, pr.HeadSHA, f.Path)
	if err != nil || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) > maxPatchLines {
		return nil, false
	}
	out := make([]DiffLine, len(lines))
	for i, l := range lines {
		out[i] = DiffLine{Line: i + 1, Text: strings.TrimSuffix(l, "\r")}
	}
	return out, true
}

func (cs *ChangeSet) problem(p, msg string) {
	cs.Problems = append(cs.Problems, InputProblem{Path: p, Err: msg})
}

// ProblemsFor returns the problems whose path is one of paths or lies under
// one of them (a directory).
func (cs *ChangeSet) ProblemsFor(paths ...string) []InputProblem {
	var out []InputProblem
	for _, p := range cs.Problems {
		for _, q := range paths {
			if p.Path == q || strings.HasPrefix(p.Path, strings.TrimSuffix(q, "/")+"/") {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// IsChanged reports whether the PR changes path.
func (cs *ChangeSet) IsChanged(p string) bool {
	for _, f := range cs.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// Touched returns added ∪ changed master keys, sorted.
func (cs *ChangeSet) Touched() []string {
	out := append(append([]string(nil), cs.AddedKeys...), cs.ChangedKeys...)
	sort.Strings(out)
	return out
}

type csBuilder struct {
	ctx    context.Context
	pr     *PR
	cs     *ChangeSet
	parsed map[string]*EffectiveFile
}

func (b *csBuilder) changelog() {
	pr, cs := b.pr, b.cs
	p := pr.Layout.Changelog
	read := func(ref string) ([]ChangelogEntry, bool) {
		data, err := csRead(b.ctx, pr, ref, p)
		if errors.Is(err, ErrNotFound) {
			return nil, true
		}
		if err != nil {
			cs.problem(p, err.Error())
			return nil, false
		}
		es, ps, err := ParseChangelog(data)
		if err != nil {
			cs.problem(p, fmt.Sprintf("changelog at %s does not parse: %v", Short(ref), err))
			return nil, false
		}
		if ref == pr.HeadSHA {
			for _, q := range ps {
				cs.problem(p, "changelog at "+Short(ref)+": "+q)
			}
		}
		return es, true
	}
	base, okB := read(pr.BaseSHA)
	head, okH := read(pr.HeadSHA)
	if !okB || !okH {
		return
	}
	if len(head) < len(base) {
		cs.problem(p, fmt.Sprintf("changelog at %s has %d entries, fewer than the %d at the base: entries were removed", Short(pr.HeadSHA), len(head), len(base)))
		return
	}
	keys := make([]string, 0, len(cs.MasterHead))
	for k := range cs.MasterHead {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sel := map[string]bool{}
	for _, e := range head[len(base):] {
		e.Matched = MatchGlobs(e.ConfigKeys, keys)
		for _, k := range e.Matched {
			sel[k] = true
		}
		cs.ChangelogAdded = append(cs.ChangelogAdded, e)
	}
	cs.Selected = sortedKeys(sel)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// parsedWhole reports whether the change-set model reads path in full at
// both ends (master configs, the perf changelog) rather than through its
// patch.
func parsedWhole(l Layout, path string) bool {
	if path == l.Changelog {
		return true
	}
	dir, name := pathpkg.Split(path)
	return strings.TrimSuffix(dir, "/") == strings.TrimSuffix(l.ConfigsDir, "/") && strings.HasSuffix(name, "-master.yaml")
}
