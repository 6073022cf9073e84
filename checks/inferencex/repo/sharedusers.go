package repo

import (
	"context"
	"sort"

	"github.com/verdict-bot/verdict/checks"
)

// SharedUsersFact follows the PR's unmapped changed files (helpers and
// launchers no config names, RULES.md "The change-set model") to the
// configs that run them: the configs at H whose effective files include
// one. A shared helper change affects every config that uses it; rows that
// must not miss such a config (Check 13) read it here. It is computed only
// when a row asks and the PR changes such a file, as it reads the effective
// files of every config at H.
var SharedUsersFact = checks.NewFact("configs using changed shared files", []checks.Requirement{ChangeSetFact, MastersFact},
	func(ctx context.Context, pr *checks.PR) (*SharedUsers, error) {
		cs, err := ChangeSetFact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		ms, err := MastersFact.Of(ctx, pr)
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
	Configs map[string]*ConfigEntry
	// Effective are those configs' effective files at H.
	Effective map[string][]*EffectiveFile
}

func sharedUsers(ctx context.Context, head string, ms *Masters, cs *ChangeSet) *SharedUsers {
	out := &SharedUsers{Users: map[string][]string{}, Configs: map[string]*ConfigEntry{}, Effective: map[string][]*EffectiveFile{}}
	if len(cs.UnmappedFiles) == 0 || cs.MasterHead == nil {
		return out
	}
	scratch := &ChangeSet{Layout: cs.Layout, Files: cs.Files, MasterHead: cs.MasterHead, Effective: map[string][]*EffectiveFile{}}
	for _, k := range sortedKeys(keySet(cs.MasterHead)) {
		c := *cs.MasterHead[k] // copied: recipe-based classification must not touch the shared map
		scratch.Affected = append(scratch.Affected, &c)
	}
	b := &builder{ctx: ctx, reader: ms.reader, layout: cs.Layout, head: head, cs: scratch, parsed: map[string]*EffectiveFile{}}
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

func keySet(m map[string]*ConfigEntry) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
