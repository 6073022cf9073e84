package changeset

import (
	"context"
	"sort"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// SharedUsersFact follows the PR's unmapped changed files (helpers and
// launchers no config names, RULES.md "The change-set model") to the
// configs that run them: the configs at H whose effective files include
// one. A shared helper change affects every config that uses it; rows that
// must not miss such a config (Check 13) read it here. It is computed only
// when a row asks and the PR changes such a file, as it reads the effective
// files of every config at H; it takes the files the change set already
// parsed, and the helpers it already resolved, from the change set's cache.
var SharedUsersFact = checks.NewFact("configs using changed shared files", []checks.Requirement{Fact, repo.MastersFact},
	func(ctx context.Context, pr *checks.PR) (*SharedUsers, error) {
		cs, err := Fact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		ms, err := repo.MastersFact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		return sharedUsers(ctx, pr.HeadSHA, ms, cs), nil
	})

// SharedUsers are the configs that run a changed shared file.
type SharedUsers struct {
	// Users maps each unmapped changed file to the sorted keys of the
	// configs whose effective files include it.
	Users map[string][]string
	// Configs are every config at H whose effective files were read, by key,
	// classified with their recipes (a recipe with a speculative setting
	// makes its config spec-decode).
	Configs map[string]*repo.ConfigEntry
	// Effective are those configs' effective files at H.
	Effective map[string][]*repo.EffectiveFile
}

func sharedUsers(ctx context.Context, head string, ms *repo.Masters, cs *Model) *SharedUsers {
	out := &SharedUsers{Users: map[string][]string{}, Configs: map[string]*repo.ConfigEntry{}, Effective: map[string][]*repo.EffectiveFile{}}
	if len(cs.UnmappedFiles) == 0 || cs.MasterHead == nil {
		return out
	}
	// The scratch model shares cs's parse cache: the files the change set
	// already read for the affected configs are not read or parsed again.
	scratch := &Model{Layout: cs.Layout, Files: cs.Files, MasterHead: cs.MasterHead, Effective: map[string][]*repo.EffectiveFile{}, files: cs.files}
	for _, k := range sortedKeys(keySet(cs.MasterHead)) {
		c := *cs.MasterHead[k] // copied: recipe-based classification must not touch the shared map
		scratch.Affected = append(scratch.Affected, &c)
	}
	if scratch.files == nil {
		scratch.files = newFileCache() // a hand-built model
	}
	b := newBuilder(ctx, ms.Reader(), cs.Layout, head, scratch)
	b.effective()
	unmapped := map[string]bool{}
	for _, p := range cs.UnmappedFiles {
		unmapped[p] = true
	}
	for _, e := range scratch.Affected {
		files := scratch.Effective[e.Key]
		out.Configs[e.Key] = e
		out.Effective[e.Key] = files
		for _, f := range files {
			if f != nil && unmapped[f.Path] {
				out.Users[f.Path] = append(out.Users[f.Path], e.Key)
			}
		}
	}
	for p := range out.Users {
		sort.Strings(out.Users[p])
	}
	return out
}

func keySet(m map[string]*repo.ConfigEntry) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
