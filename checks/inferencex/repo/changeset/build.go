package changeset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/perfchangelog"
	"github.com/verdict-bot/verdict/checks/format/udiff"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// buildChangeSet computes the change-set model once per verification.
func buildChangeSet(ctx context.Context, pr *checks.PR, ms *repo.Masters) (*Model, error) {
	l, r := ms.Layout(), ms.Reader()
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the PR's changed files: %w", err)
	}
	cs := &Model{
		Layout:       l,
		Files:        files,
		AddedLines:   map[string][]udiff.Line{},
		RemovedLines: map[string][]udiff.Line{},
		Effective:    map[string][]*repo.EffectiveFile{},
	}
	cs.files = newFileCache()
	b := newBuilder(ctx, r, l, pr.HeadSHA, cs)
	b.base = pr.BaseSHA
	for _, f := range files {
		if f.PatchMissing || (f.Patch == "" && f.Additions+f.Deletions > 0) {
			// Every line of a file the PR adds is an added line: read it at
			// H instead of treating its lines as pre-existing.
			if a, ok := b.addedFileLines(f); ok {
				cs.AddedLines[f.Path] = a
				continue
			}
			if parsedWhole(l, f.Path) {
				// Master configs and the changelog are compared as parsed
				// documents at base and H; their patch adds nothing.
				continue
			}
			if b.notText(f, pr.BaseSHA) {
				cs.NotText = append(cs.NotText, f.Path)
				continue
			}
			cs.problem(f.Path, "GitHub returned no patch for this file (binary or too large a diff)")
			continue
		}
		added, removed, trunc := udiff.Parse(f.Patch)
		cs.AddedLines[f.Path], cs.RemovedLines[f.Path] = added, removed
		if trunc {
			cs.problem(f.Path, fmt.Sprintf("patch is over %d lines; the rest was not read", udiff.MaxLines))
		}
	}

	// Master configs at the three refs, concurrently, and alongside them
	// the changelog at base and H (used by b.changelog) and, when a
	// changed file can affect a config, the script and runner directories
	// (used by b.affected).
	refs := []string{pr.BaseSHA, pr.HeadSHA, pr.DefaultSHA}
	maps := make([]map[string]*repo.ConfigEntry, 3)
	probs := make([][]repo.InputProblem, 3)
	repo.Parallel(6, 6, func(i int) {
		if i == 5 {
			if b.mayAffectConfigs() {
				b.listDirs(true)
			}
			return
		}
		if i >= 3 {
			if ref := []string{pr.BaseSHA, pr.HeadSHA}[i-3]; ref != "" && l.Changelog != "" {
				r.Read(ctx, ref, l.Changelog)
			}
			return
		}
		if refs[i] == "" {
			return
		}
		m, ps, err := ms.At(ctx, refs[i])
		if err != nil {
			if i == 0 && errors.Is(err, checks.ErrNotFound) {
				return // no configs directory at the base: everything at H is new
			}
			ip := repo.InputProblem{Path: l.ConfigsDir, Err: err.Error()}
			if refs[i] != pr.HeadSHA {
				ip.Ref = refs[i]
			}
			ps = append(ps, ip)
		}
		maps[i], probs[i] = m, ps
	})
	cs.MasterBase, cs.MasterHead, cs.MasterDefault = maps[0], maps[1], maps[2]
	seen := map[repo.InputProblem]bool{}
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
			base = map[string]*repo.ConfigEntry{}
		}
		cs.AddedKeys, cs.ChangedKeys, cs.RemovedKeys = repo.DiffKeys(base, cs.MasterHead)
	}

	b.changelog(pr.BaseSHA)
	b.workflowRuns()
	b.affected()
	// Effective files are found concurrently and through maps; the order
	// the problems are reported in must not depend on that.
	sort.SliceStable(cs.Problems, func(i, j int) bool { return cs.Problems[i].Path < cs.Problems[j].Path })
	return cs, nil
}

// mayAffectConfigs reports whether a changed file is a master config, the
// changelog or a benchmark or runner file: what selects affected configs.
func (b *builder) mayAffectConfigs() bool {
	l := b.layout
	for _, f := range b.cs.Files {
		if f.Path == l.Changelog || b.isRuntimeFile(f.Path) || l.UnderConfigs(f.Path) {
			return true
		}
	}
	return false
}

// addedFileLines returns every line of a text file the PR adds, read at H,
// numbered from 1 like a patch's added lines. It reports false for other
// statuses, unreadable or binary files and files over the patch line cap.
func (b *builder) addedFileLines(f checks.ChangedFile) ([]udiff.Line, bool) {
	if f.Status != "added" || b.head == "" {
		return nil, false
	}
	data, err := b.reader.Read(b.ctx, b.head, f.Path)
	if err != nil || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) > udiff.MaxLines {
		return nil, false
	}
	out := make([]udiff.Line, len(lines))
	for i, l := range lines {
		out[i] = udiff.Line{Line: i + 1, Text: strings.TrimSuffix(l, "\r")}
	}
	return out, true
}

// notText reports whether a changed file without a patch is binary: its
// content (at H, or at base for a removed file) holds a NUL byte in the
// first 8,000 bytes, git's own test. A file that cannot be read is not known
// to be binary, so it stays a problem.
func (b *builder) notText(f checks.ChangedFile, base string) bool {
	ref := b.head
	if f.Status == "removed" {
		ref = base
	}
	if ref == "" {
		return false
	}
	data, err := b.reader.Read(b.ctx, ref, f.Path)
	if err != nil {
		return false
	}
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// builder computes one change set.
type builder struct {
	ctx    context.Context
	reader *repo.Reader
	layout repo.Layout
	head   string // H
	base   string // the PR's base commit, for the dry runs' differences
	cs     *Model
	// parsed are the files this build uses, by path, as first asked for.
	parsed map[string]*repo.EffectiveFile
	// files is the parse cache cs shares with SharedUsersFact.
	files *fileCache
}

func newBuilder(ctx context.Context, r *repo.Reader, l repo.Layout, head string, cs *Model) *builder {
	return &builder{ctx: ctx, reader: r, layout: l, head: head, cs: cs, parsed: map[string]*repo.EffectiveFile{}, files: cs.files}
}

// fileCache holds what one verification read and parsed of the files at H
// that define how configs run: each file parsed once per kind it is read as,
// the helpers each parsed file sources or runs, and the single-node script
// names. The change set fills it for the affected configs; SharedUsersFact,
// which follows every config at H, reuses it instead of reading and
// resolving the same files again.
type fileCache struct {
	mu      sync.Mutex
	parsed  map[effRef]*repo.EffectiveFile
	helpers map[*repo.EffectiveFile][]string
	// scripts are the file names of the single-node script directories at
	// H, listed on first use (nil until then).
	scripts map[string]bool
}

// cached returns m[k], computing it on a miss. The computation runs
// unlocked: two builds asking for the same key at once may both compute it,
// with the same result.
func cached[K comparable, V any](mu *sync.Mutex, m map[K]V, k K, compute func() V) V {
	mu.Lock()
	v, ok := m[k]
	mu.Unlock()
	if !ok {
		v = compute()
		mu.Lock()
		m[k] = v
		mu.Unlock()
	}
	return v
}

func newFileCache() *fileCache {
	return &fileCache{parsed: map[effRef]*repo.EffectiveFile{}, helpers: map[*repo.EffectiveFile][]string{}}
}

// changelog finds the changelog entries the PR adds, compared parsed with
// those at base, and the master keys they select.
func (b *builder) changelog(base string) {
	cs := b.cs
	p := b.layout.Changelog
	read := func(ref string) ([]perfchangelog.Entry, bool) {
		data, err := b.reader.Read(b.ctx, ref, p)
		if errors.Is(err, checks.ErrNotFound) {
			return nil, true
		}
		if err != nil {
			cs.problem(p, err.Error())
			return nil, false
		}
		es, _, err := perfchangelog.Parse(data)
		if err != nil {
			cs.problem(p, fmt.Sprintf("changelog at %s does not parse: %v", checks.Short(ref), err))
			return nil, false
		}
		return es, true
	}
	atBase, okB := read(base)
	atHead, okH := read(b.head)
	if !okB || !okH {
		return
	}
	added, gone := perfchangelog.Delta(atBase, atHead)
	if len(gone) > 0 {
		lines := make([]string, len(gone))
		for i, e := range gone {
			lines[i] = fmt.Sprint(e.Line)
		}
		cs.finding(p, ProblemChangelogEdit, fmt.Sprintf("changelog at %s no longer holds %d entr%s of the base unchanged (base line %s): entries were removed or edited",
			checks.Short(b.head), len(gone), plural(len(gone), "y", "ies"), strings.Join(lines, ", ")))
	}
	keys := make([]string, 0, len(cs.MasterHead))
	for k := range cs.MasterHead {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sel := map[string]bool{}
	for _, e := range added {
		// Only the entries this PR adds are its input; older entries
		// written to an older schema are not.
		for _, q := range e.Problems {
			cs.finding(p, ProblemChangelogSchema, "changelog at "+checks.Short(b.head)+": "+q)
		}
		var unmatched []string
		e.Matched, unmatched = perfchangelog.MatchKeys(e.ConfigKeys, keys)
		if len(unmatched) > 0 && cs.MasterHead != nil {
			cs.finding(p, ProblemChangelogNoMatch, fmt.Sprintf("changelog at %s, line %d: config-keys %s select no master config at %s",
				checks.Short(b.head), e.Line, strings.Join(unmatched, ", "), checks.Short(b.head)))
		}
		for _, k := range e.Matched {
			sel[k] = true
		}
		cs.ChangelogAdded = append(cs.ChangelogAdded, e)
	}
	cs.Selected = sortedKeys(sel)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
func parsedWhole(l repo.Layout, path string) bool {
	if path == l.Changelog {
		return true
	}
	return l.IsMasterConfig(path)
}
