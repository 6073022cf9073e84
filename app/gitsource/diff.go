package gitsource

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// diffOptions are shared by the two diff runs so that they list the same
// files in the same order: rename detection as GitHub does it (50%
// similarity, no copies), no external or text-conversion drivers.
var diffOptions = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--no-relative", "-O/dev/null", "-M", "--diff-algorithm=myers"}

// rawStatus maps git's status letters to GitHub's file statuses.
var rawStatus = map[byte]string{'A': "added", 'D': "removed", 'M': "modified", 'R': "renamed", 'C': "copied", 'T': "changed"}

// Diff lists the files that differ between two commits the way GitHub's
// /pulls/{n}/files does: sorted by path, renames detected, each with its
// status, previous name, added and deleted line counts and the hunk text
// GitHub puts in "patch" (no file header). Binary files get no patch
// (PatchMissing).
func (r *Repo) Diff(ctx context.Context, base, head string) ([]checks.ChangedFile, error) {
	raw, err := r.git.output(ctx, append(append([]string{"diff"}, diffOptions...), "--raw", "-z", "--no-abbrev", base, head, "--")...)
	if err != nil {
		return nil, fmt.Errorf("listing the files changed between %s and %s: %w", short(base), short(head), err)
	}
	files, err := parseRaw(raw)
	if err != nil {
		return nil, fmt.Errorf("listing the files changed between %s and %s: %w", short(base), short(head), err)
	}
	if len(files) == 0 {
		return []checks.ChangedFile{}, nil
	}
	patch, err := r.git.output(ctx, append(append([]string{"diff"}, diffOptions...), "-p", "-U3", "--full-index", base, head, "--")...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading the diff between %s and %s: %w", short(base), short(head), err)
		}
		// One unreadable blob (absent from a partial clone or mirror) fails
		// the whole patch; each file's is read on its own instead, and a
		// file whose patch cannot be read has none, as GitHub leaves out
		// the patch of a file it cannot diff.
		return r.diffEach(ctx, base, head, files)
	}
	sections := splitSections(patch)
	if len(sections) != len(files) {
		return nil, fmt.Errorf("reading the diff between %s and %s: %d files in the patch but %d in the file list", short(base), short(head), len(sections), len(files))
	}
	out := make([]checks.ChangedFile, len(files))
	for i, f := range files {
		s := sections[i]
		if f.newOID != "" && s.index != "" && !strings.HasSuffix(s.index, f.newOID) {
			return nil, fmt.Errorf("reading the diff between %s and %s: patch %d is not %s", short(base), short(head), i, f.cf.Path)
		}
		cf := f.cf
		cf.Patch, cf.PatchMissing = s.hunks, s.binary
		if !s.binary {
			cf.Additions, cf.Deletions = countLines(s.hunks)
		}
		out[i] = cf
	}
	return out, nil
}

// diffEach is Diff's patch step file by file.
func (r *Repo) diffEach(ctx context.Context, base, head string, files []rawFile) ([]checks.ChangedFile, error) {
	out := make([]checks.ChangedFile, len(files))
	for i, f := range files {
		paths := []string{f.cf.Path}
		if f.cf.PreviousPath != "" {
			paths = []string{f.cf.PreviousPath, f.cf.Path}
		}
		cf := f.cf
		patch, err := r.git.output(ctx, append(append(append([]string{"diff"}, diffOptions...), "-p", "-U3", "--full-index", base, head, "--"), paths...)...)
		sections := splitSections(patch)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("reading the diff between %s and %s: %w", short(base), short(head), ctx.Err())
		case err != nil || len(sections) != 1:
			cf.PatchMissing = true
		default:
			cf.Patch, cf.PatchMissing = sections[0].hunks, sections[0].binary
			if !sections[0].binary {
				cf.Additions, cf.Deletions = countLines(sections[0].hunks)
			}
		}
		out[i] = cf
	}
	return out, nil
}

type rawFile struct {
	cf     checks.ChangedFile
	newOID string // "" when the file was removed
}

// parseRaw reads `git diff --raw -z` output: for each file
// ":<mode> <mode> <oid> <oid> <status>\0<path>\0" with a second path after
// renames and copies.
func parseRaw(raw []byte) ([]rawFile, error) {
	fields := strings.Split(string(raw), "\x00")
	var out []rawFile
	for i := 0; i < len(fields); {
		meta := fields[i]
		if meta == "" {
			i++
			continue
		}
		m := strings.Fields(strings.TrimPrefix(meta, ":"))
		if !strings.HasPrefix(meta, ":") || len(m) != 5 || m[4] == "" {
			return nil, fmt.Errorf("unexpected diff line %q", meta)
		}
		status, ok := rawStatus[m[4][0]]
		if !ok {
			return nil, fmt.Errorf("unexpected diff status %q", m[4])
		}
		f := rawFile{newOID: m[3]}
		if strings.Trim(m[3], "0") == "" {
			f.newOID = ""
		}
		f.cf.Status = status
		if status == "renamed" || status == "copied" {
			if i+2 >= len(fields) {
				return nil, fmt.Errorf("truncated diff entry %q", meta)
			}
			f.cf.PreviousPath, f.cf.Path = fields[i+1], fields[i+2]
			i += 3
		} else {
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("truncated diff entry %q", meta)
			}
			f.cf.Path = fields[i+1]
			i += 2
		}
		out = append(out, f)
	}
	return out, nil
}

type section struct {
	index  string // the "index <old>..<new>" range, when present
	hunks  string
	binary bool
}

// splitSections cuts a patch into its per-file sections ("diff --git"
// headers) and keeps, for each, the hunk text from the first "@@" line on,
// without the final newline, as GitHub's patch field has it.
func splitSections(patch []byte) []section {
	var out []section
	lines := bytes.SplitAfter(patch, []byte("\n"))
	cur := -1
	inHunks := false
	var hunks []byte
	flush := func() {
		if cur >= 0 {
			out[cur].hunks = strings.TrimSuffix(string(hunks), "\n")
		}
	}
	for _, l := range lines {
		if bytes.HasPrefix(l, []byte("diff --git ")) {
			flush()
			out = append(out, section{})
			cur, inHunks, hunks = len(out)-1, false, nil
			continue
		}
		if cur < 0 {
			continue
		}
		if !inHunks {
			switch {
			case bytes.HasPrefix(l, []byte("@@")):
				inHunks = true
			case bytes.HasPrefix(l, []byte("index ")):
				f := strings.Fields(string(l[len("index "):]))
				if len(f) > 0 {
					out[cur].index = f[0]
				}
				continue
			case bytes.HasPrefix(l, []byte("Binary files ")), bytes.HasPrefix(l, []byte("GIT binary patch")):
				out[cur].binary = true
				continue
			default:
				continue
			}
		}
		hunks = append(hunks, l...)
	}
	flush()
	return out
}

// countLines counts added and deleted lines of hunk text.
func countLines(hunks string) (adds, dels int) {
	for _, l := range strings.Split(hunks, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
		case strings.HasPrefix(l, "+"):
			adds++
		case strings.HasPrefix(l, "-"):
			dels++
		}
	}
	return adds, dels
}
