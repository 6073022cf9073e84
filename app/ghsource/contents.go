package ghsource

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// immutable reports whether ref pins content forever (a full commit SHA),
// which is what makes a result cacheable across verifications.
func immutable(ref string) bool { return fullSHA.MatchString(ref) }

type fileResult struct {
	data     []byte
	notFound bool
}

// ReadFile returns a file's bytes at ref.
func (s *Source) ReadFile(ctx context.Context, ref, path string) ([]byte, error) {
	path = strings.Trim(path, "/")
	what := fmt.Sprintf("%s/%s: reading %s at %s", s.owner, s.repo, path, short(ref))
	res, err := do(s, s.fileKey(ref, path), s.fileRead(ctx, ref, path, what))
	if err != nil {
		return nil, err
	}
	if res.notFound {
		return nil, fmt.Errorf("%s: %w", what, checks.ErrNotFound)
	}
	if int64(len(res.data)) > s.o.MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit: %w", what, len(res.data), s.o.MaxFileBytes, checks.ErrTooLarge)
	}
	if err := s.book(ctx, s.fileKey(ref, path), int64(len(res.data))*fileExpansion, what); err != nil {
		return nil, err
	}
	// Callers get their own copy: the bytes are shared with the cache.
	return append([]byte(nil), res.data...), nil
}

func (s *Source) fileKey(ref, path string) string {
	return "file\x00" + s.owner + "/" + s.repo + "\x00" + ref + "\x00" + path
}

// fileRead is ReadFile's read of path at ref, for do or for a read ahead
// of its askers. At a commit a branch was pinned to, a read of the branch
// made ahead answers it (see ReadAhead).
func (s *Source) fileRead(ctx context.Context, ref, path, what string) func() (fileResult, error) {
	key := s.fileKey(ref, path)
	return func() (fileResult, error) {
		if v, ok := s.o.Cache.get(key); ok {
			return v.(fileResult), nil
		}
		if res, ok := s.readAheadAt(ctx, ref, path); ok {
			return res, nil
		}
		res, err := s.readFile(ctx, ref, path, what)
		if err == nil && immutable(ref) {
			s.o.Cache.put(key, res, int64(len(res.data)))
		}
		return res, err
	}
}

// readFile returns notFound (not an error) for a missing file so that the
// answer can be cached; other failures are errors.
func (s *Source) readFile(ctx context.Context, ref, path, what string) (fileResult, error) {
	fc, dir, resp, err := s.gh.Repositories.GetContents(ctx, s.owner, s.repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if statusOf(resp) == 404 {
			return fileResult{notFound: true}, nil
		}
		if tooLarge(err) {
			// 1-100 MB: GitHub serves these only with the raw media type.
			data, err := s.readRaw(ctx, ref, path, what)
			if err != nil {
				return fileResult{}, err
			}
			return fileResult{data: data}, nil
		}
		return fileResult{}, apiErr(what, resp, err)
	}
	if fc == nil || dir != nil {
		return fileResult{}, fmt.Errorf("%s: is a directory: %w", what, checks.ErrNotFound)
	}
	if fc.GetType() != "file" {
		return fileResult{}, fmt.Errorf("%s: is a %s, not a file: %w", what, fc.GetType(), checks.ErrMalformed)
	}
	if int64(fc.GetSize()) > s.o.MaxFileBytes {
		return fileResult{}, fmt.Errorf("%s: %d bytes, over the %d-byte limit: %w", what, fc.GetSize(), s.o.MaxFileBytes, checks.ErrTooLarge)
	}
	if fc.GetEncoding() == "base64" {
		data, err := fc.GetContent()
		if err != nil {
			return fileResult{}, fmt.Errorf("%s: decoding content: %w: %w", what, checks.ErrMalformed, err)
		}
		return fileResult{data: []byte(data)}, nil
	}
	// A server that answers large files with encoding "none" and no content
	// (GitHub's object media type does) still serves them raw.
	data, err := s.readRaw(ctx, ref, path, what)
	if err != nil {
		return fileResult{}, err
	}
	return fileResult{data: data}, nil
}

func tooLarge(err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		for _, e := range er.Errors {
			if e.Code == "too_large" {
				return true
			}
		}
	}
	return false
}

// capWriter fails once more than max bytes are written.
type capWriter struct {
	buf []byte
	max int64
	// held, when set, is charged for every byte written.
	held *budget
}

var errCap = errors.New("size cap exceeded")

func (w *capWriter) Write(p []byte) (int, error) {
	if int64(len(w.buf)+len(p)) > w.max {
		return 0, errCap
	}
	if w.held != nil && !w.held.take(int64(len(p))) {
		return 0, errBudget
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (s *Source) readRaw(ctx context.Context, ref, path, what string) ([]byte, error) {
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", s.owner, s.repo, escapePath(path), url.QueryEscape(ref))
	req, err := s.gh.NewRequest("GET", u, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	w := &capWriter{max: s.o.MaxFileBytes}
	resp, err := s.gh.Do(ctx, req, w)
	if errors.Is(err, errCap) {
		return nil, fmt.Errorf("%s: over the %d-byte limit: %w", what, s.o.MaxFileBytes, checks.ErrTooLarge)
	}
	if tooLarge(err) {
		return nil, fmt.Errorf("%s: GitHub serves no blob over 100 MB through the API: %w", what, checks.ErrTooLarge)
	}
	if err != nil {
		return nil, apiErr(what+" (raw)", resp, err)
	}
	return w.buf, nil
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func short(ref string) string {
	if immutable(ref) {
		return ref[:7]
	}
	return ref
}

// ListDir lists a directory at ref.
func (s *Source) ListDir(ctx context.Context, ref, dir string) ([]checks.DirEntry, error) {
	dir = strings.Trim(dir, "/")
	what := fmt.Sprintf("%s/%s: listing %s/ at %s", s.owner, s.repo, dir, short(ref))
	key := "dir\x00" + s.owner + "/" + s.repo + "\x00" + ref + "\x00" + dir
	entries, err := do(s, key, func() ([]checks.DirEntry, error) {
		if v, ok := s.o.Cache.get(key); ok {
			if l, ok := v.(dirListing); ok && l.notFound {
				return nil, fmt.Errorf("%s: %w", what, checks.ErrNotFound)
			}
			return v.(dirListing).entries, nil
		}
		if immutable(ref) {
			// One recursive tree of the commit answers every listing at it.
			t, err := s.treeAt(ctx, ref)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			if t != nil {
				l, ok := t.dirs[dir]
				if !ok {
					return nil, fmt.Errorf("%s: %w", what, checks.ErrNotFound)
				}
				return l, nil
			}
		}
		fc, list, resp, err := s.gh.Repositories.GetContents(ctx, s.owner, s.repo, dir, &github.RepositoryContentGetOptions{Ref: ref})
		if err != nil {
			if statusOf(resp) == 404 && immutable(ref) {
				// Absence at a commit is as permanent as presence.
				s.o.Cache.put(key, dirListing{notFound: true}, 0)
			}
			return nil, apiErr(what, resp, err)
		}
		if fc != nil {
			return nil, fmt.Errorf("%s: is a file: %w", what, checks.ErrNotFound)
		}
		out := make([]checks.DirEntry, 0, len(list))
		for _, e := range list {
			out = append(out, checks.DirEntry{Name: e.GetName(), Path: e.GetPath(), Type: e.GetType()})
		}
		if len(list) >= contentsDirCap {
			// The contents API stops at 1,000 entries; the trees API does not.
			if out, err = s.listTree(ctx, ref, dir, what); err != nil {
				return nil, err
			}
		}
		var size int64
		for _, e := range out {
			size += int64(len(e.Name)+len(e.Path)) + 48
		}
		if immutable(ref) {
			s.o.Cache.put(key, dirListing{entries: out}, size)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return append([]checks.DirEntry(nil), entries...), nil
}

// dirListing is a directory listing at a commit as cached: its entries, or
// that there is no such directory.
type dirListing struct {
	entries  []checks.DirEntry
	notFound bool
}

// commitTree is every directory of a commit, by path ("" is the root),
// with its entries as the contents API lists them, and the git blob SHA
// of every file, by path (which confirms reads made ahead; see ReadAhead).
type commitTree struct {
	dirs  map[string][]checks.DirEntry
	blobs map[string]string
}

// maxTreeEntries bounds the recursive trees read whole; a larger commit is
// listed directory by directory.
const maxTreeEntries = 20000

// treeAt reads the recursive git tree of commit sha once (cached: a
// commit's tree never changes). It is nil, without error, when the tree
// cannot stand in for the contents API: GitHub truncated it, it is over
// maxTreeEntries, or the server has no such tree.
func (s *Source) treeAt(ctx context.Context, sha string) (*commitTree, error) {
	return do(s, s.treeKey(sha), s.readTree(ctx, sha))
}

func (s *Source) treeKey(sha string) string {
	return "tree\x00" + s.owner + "/" + s.repo + "\x00" + sha
}

// readTree is treeAt's read, for do or for a read ahead of its askers.
func (s *Source) readTree(ctx context.Context, sha string) func() (*commitTree, error) {
	key := s.treeKey(sha)
	return func() (*commitTree, error) {
		if v, ok := s.o.Cache.get(key); ok {
			t := v.(*commitTree)
			s.treeRead(sha, t)
			return t, nil
		}
		tree, resp, err := s.gh.Git.GetTree(ctx, s.owner, s.repo, sha, true)
		if err != nil {
			if t := apiErr("reading the git tree at "+short(sha), resp, err); retry.IsTransient(t) {
				return nil, t
			}
			return nil, nil
		}
		if tree.GetTruncated() || len(tree.Entries) > maxTreeEntries {
			s.o.Cache.put(key, (*commitTree)(nil), 0)
			return nil, nil
		}
		t := &commitTree{dirs: map[string][]checks.DirEntry{"": {}}, blobs: map[string]string{}}
		var size int64
		for _, e := range tree.Entries {
			p := e.GetPath()
			dir, name := "", p
			if i := strings.LastIndex(p, "/"); i >= 0 {
				dir, name = p[:i], p[i+1:]
			}
			typ := "file"
			switch {
			case e.GetType() == "tree":
				typ = "dir"
				if _, ok := t.dirs[p]; !ok {
					t.dirs[p] = []checks.DirEntry{}
				}
			case e.GetType() == "commit":
				typ = "submodule"
			case e.GetMode() == "120000":
				typ = "symlink"
			default:
				t.blobs[p] = e.GetSHA()
				size += int64(len(p)) + 56
			}
			t.dirs[dir] = append(t.dirs[dir], checks.DirEntry{Name: name, Path: p, Type: typ})
			size += int64(len(p)+len(name)) + 48
		}
		for _, es := range t.dirs {
			// Listed by name, as the contents API lists a directory.
			sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
		}
		s.o.Cache.put(key, t, size)
		s.treeRead(sha, t)
		return t, nil
	}
}

// contentsDirCap is how many entries of a directory the contents API lists.
const contentsDirCap = 1000

// listTree lists dir at ref through the git trees API, one non-recursive
// tree per path segment from the commit's root tree down, so no listing
// cap applies.
func (s *Source) listTree(ctx context.Context, ref, dir, what string) ([]checks.DirEntry, error) {
	tree, resp, err := s.gh.Git.GetTree(ctx, s.owner, s.repo, ref, false)
	if err != nil {
		return nil, apiErr(what+" (git tree)", resp, err)
	}
	for _, seg := range strings.Split(dir, "/") {
		if seg == "" {
			break
		}
		var sha string
		for _, e := range tree.Entries {
			if e.GetPath() == seg && e.GetType() == "tree" {
				sha = e.GetSHA()
			}
		}
		if sha == "" {
			return nil, fmt.Errorf("%s: no directory %s in the git tree: %w", what, seg, checks.ErrNotFound)
		}
		if tree, resp, err = s.gh.Git.GetTree(ctx, s.owner, s.repo, sha, false); err != nil {
			return nil, apiErr(what+" (git tree)", resp, err)
		}
	}
	if tree.GetTruncated() {
		return nil, fmt.Errorf("%s: GitHub truncated the git tree: %w", what, checks.ErrTooLarge)
	}
	out := make([]checks.DirEntry, 0, len(tree.Entries))
	for _, e := range tree.Entries {
		typ := "file"
		switch {
		case e.GetType() == "tree":
			typ = "dir"
		case e.GetType() == "commit":
			typ = "submodule"
		case e.GetMode() == "120000":
			typ = "symlink"
		}
		out = append(out, checks.DirEntry{Name: e.GetPath(), Path: strings.TrimPrefix(dir+"/"+e.GetPath(), "/"), Type: typ})
	}
	return out, nil
}

// CodeownersErrors returns GitHub's CODEOWNERS diagnostics at ref.
func (s *Source) CodeownersErrors(ctx context.Context, ref string) ([]checks.CodeownersError, error) {
	key := "codeowners-errors\x00" + s.owner + "/" + s.repo + "\x00" + ref
	out, err := do(s, key, func() ([]checks.CodeownersError, error) {
		// GitHub's diagnostics of the file at a commit are as fixed as the
		// file there.
		if v, ok := s.o.Cache.get(key); ok {
			return v.([]checks.CodeownersError), nil
		}
		res, resp, err := s.gh.Repositories.GetCodeownersErrors(ctx, s.owner, s.repo, &github.GetCodeownersErrorsOptions{Ref: ref})
		if err != nil {
			return nil, apiErr(fmt.Sprintf("%s/%s: reading CODEOWNERS errors at %s", s.owner, s.repo, short(ref)), resp, err)
		}
		out := []checks.CodeownersError{}
		var size int64
		for _, e := range res.Errors {
			out = append(out, checks.CodeownersError{Line: e.Line, Kind: e.Kind, Message: e.Message, Path: e.Path})
			size += int64(len(e.Kind)+len(e.Message)+len(e.Path)) + 32
		}
		if immutable(ref) {
			s.o.Cache.put(key, out, size)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return append([]checks.CodeownersError{}, out...), nil
}
