package changeset

import (
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Questions rows ask of the change set that the model answers without
// reading anything more.

// Targets are the configs at H that keys name, else (when none of them
// exists at H) every affected config.
func (cs *Model) Targets(keys []string) []*repo.ConfigEntry {
	var out []*repo.ConfigEntry
	for _, k := range keys {
		if c := cs.MasterHead[k]; c != nil {
			out = append(out, c)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, c := range cs.Affected {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// SharedChanges lists changed files that existing points run through: the
// recipes their base search spaces name and every non-recipe effective file
// (scripts, helpers, launchers serve every point of a config), plus changed
// benchmark files no config maps to, for the configs keys.
func (cs *Model) SharedChanges(keys []string) []string {
	baseRecipes := map[string]bool{}
	for _, k := range keys {
		for _, sc := range cs.MasterBase[k].Scenarios {
			for _, ss := range sc.Search {
				if ss.SrtRecipe != "" {
					baseRecipes[path.Clean(ss.SrtRecipe)] = true
				}
				for _, f := range ss.ConfigFiles {
					baseRecipes[path.Clean(f)] = true
				}
			}
		}
	}
	usedByBase := func(p string) bool {
		for r := range baseRecipes {
			if p == r || strings.HasSuffix(p, "/"+r) {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, k := range keys {
		for _, f := range cs.Effective[k] {
			if f == nil || !f.Changed {
				continue
			}
			if f.Kind != "recipe" || usedByBase(f.Path) {
				add(f.Path)
			}
		}
	}
	for _, p := range cs.UnmappedFiles {
		add(p)
	}
	sort.Strings(out)
	return out
}

// AffectsBenchmarks reports whether the change set can move a benchmark
// curve: an affected config, a changed file that maps to no known config, or
// a changed benchmark, runner or non-master config file. A PR that only
// removes master entries removes curves entirely, which needs no coverage.
func (cs *Model) AffectsBenchmarks() bool {
	l := cs.Layout
	if len(cs.Affected) > 0 || len(cs.UnmappedFiles) > 0 {
		return true
	}
	under := func(p, dir string) bool { return dir != "" && strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/") }
	// Which configs a changed master config or changelog affects is known
	// only when both could be read.
	unread := len(cs.MasterAndChangelogProblems()) > 0
	for _, f := range cs.Files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" || repo.IsDocFile(p) {
				continue
			}
			if under(p, l.BenchmarksDir) || under(p, l.RunnersDir) {
				return true
			}
			if unread && (l.IsMasterConfig(p) || p == l.Changelog) {
				return true
			}
			if l.UnderConfigs(p) && !strings.HasSuffix(p, "-master.yaml") {
				return true
			}
		}
	}
	return false
}

// AllAppendOnly reports whether the PR adds changelog entries and all of
// them are append-only, so its run measures only points new to their curves.
// Mixed entries are Check 12's failure, not an append-only sweep.
func (cs *Model) AllAppendOnly() bool {
	if len(cs.ChangelogAdded) == 0 {
		return false
	}
	for _, e := range cs.ChangelogAdded {
		if !e.AppendOnly {
			return false
		}
	}
	return true
}
