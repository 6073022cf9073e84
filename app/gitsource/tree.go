package gitsource

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// maxSymlinkHops bounds symlink chains (and cycles).
const maxSymlinkHops = 8

// treeEntry is one entry of a tree object.
type treeEntry struct {
	Mode string
	Name string
	OID  string
}

// kind is the GitHub contents API's name for an entry's type.
func (e treeEntry) kind() string {
	switch e.Mode {
	case "40000", "040000":
		return "dir"
	case "120000":
		return "symlink"
	case "160000":
		return "submodule"
	default:
		return "file"
	}
}

// parseTree decodes a binary tree object: entries of
// "<mode> <name>\x00<binary object ID>".
func parseTree(data []byte, oidLen int) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+oidLen {
			return nil, errors.New("truncated tree entry")
		}
		out = append(out, treeEntry{
			Mode: string(data[:sp]),
			Name: string(data[sp+1 : nul]),
			OID:  hex.EncodeToString(data[nul+1 : nul+1+oidLen]),
		})
		data = data[nul+1+oidLen:]
	}
	return out, nil
}

// tree reads a tree object by ID.
func (r *Repo) tree(ctx context.Context, oid string) ([]treeEntry, error) {
	return r.trees.get(oid, func() ([]treeEntry, int64, error) {
		o, err := r.cat.read(ctx, oid, 64<<20)
		if err != nil {
			return nil, 0, fmt.Errorf("reading tree %s: %w", short(oid), err)
		}
		if o.Type != "tree" || o.Data == nil {
			return nil, 0, fmt.Errorf("object %s is a %s, not a tree", short(oid), o.Type)
		}
		es, err := parseTree(o.Data, r.oidLen)
		if err != nil {
			return nil, 0, fmt.Errorf("reading tree %s: %w", short(oid), err)
		}
		return es, int64(len(o.Data)) + int64(len(es))*64, nil
	})
}

// lookup walks from the root tree of commit rev to path. It returns the
// entry and true, or false when some component does not exist. The root
// itself is a "dir" entry with the root tree's ID.
func (r *Repo) lookup(ctx context.Context, rev, p string) (treeEntry, bool, error) {
	c, err := r.Commit(ctx, rev)
	if err != nil {
		return treeEntry{}, false, err
	}
	cur := treeEntry{Mode: "40000", OID: c.Tree}
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return cur, true, nil
	}
	for _, name := range strings.Split(p, "/") {
		if cur.kind() != "dir" {
			return treeEntry{}, false, nil
		}
		es, err := r.tree(ctx, cur.OID)
		if err != nil {
			return treeEntry{}, false, err
		}
		found := false
		for _, e := range es {
			if e.Name == name {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false, nil
		}
	}
	return cur, true, nil
}

// ReadFile returns the bytes of path at commit rev, following symlinks to
// files inside the repository. A missing path (or a directory) wraps
// checks.ErrNotFound, a file over the cap checks.ErrTooLarge, any other
// symlink or a submodule checks.ErrMalformed, as the GitHub-backed Source
// answers.
func (r *Repo) ReadFile(ctx context.Context, rev, p string) ([]byte, error) {
	p = strings.Trim(p, "/")
	what := fmt.Sprintf("reading %s at %s", p, short(rev))
	e, ok, err := r.lookup(ctx, rev, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	// A symlink to a file of the repository reads as that file, as GitHub's
	// contents API answers; any other symlink is refused below.
	for hops, at := 0, p; ok && e.kind() == "symlink" && hops < maxSymlinkHops; hops++ {
		target, err := r.blob(ctx, e.OID)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		next := path.Join(path.Dir(at), string(target))
		if path.IsAbs(string(target)) || next == ".." || strings.HasPrefix(next, "../") {
			break
		}
		t, found, err := r.lookup(ctx, rev, next)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if !found || (t.kind() != "file" && t.kind() != "symlink") {
			break
		}
		e, at = t, next
	}
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: %w", what, checks.ErrNotFound)
	case e.kind() == "dir":
		return nil, fmt.Errorf("%s: is a directory: %w", what, checks.ErrNotFound)
	case e.kind() != "file":
		return nil, fmt.Errorf("%s: is a %s, not a file: %w", what, e.kind(), checks.ErrMalformed)
	}
	data, err := r.blob(ctx, e.OID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	// Callers get their own copy: the bytes are shared with the cache.
	return append([]byte(nil), data...), nil
}

// blob reads a blob by ID, once: every later request is served from the
// cache while it fits.
func (r *Repo) blob(ctx context.Context, oid string) ([]byte, error) {
	return r.blobs.get(oid, func() ([]byte, int64, error) {
		o, err := r.cat.read(ctx, oid, r.maxFile)
		if err != nil {
			return nil, 0, err
		}
		if o.Type != "blob" {
			return nil, 0, fmt.Errorf("object %s is a %s, not a blob: %w", short(oid), o.Type, checks.ErrMalformed)
		}
		if o.Data == nil {
			return nil, 0, fmt.Errorf("%d bytes, over the %d-byte limit: %w", o.Size, r.maxFile, checks.ErrTooLarge)
		}
		return o.Data, int64(len(o.Data)), nil
	})
}

// ListDir lists directory dir ("" for the root) at commit rev, sorted by
// name. A missing directory or a file wraps checks.ErrNotFound.
func (r *Repo) ListDir(ctx context.Context, rev, dir string) ([]checks.DirEntry, error) {
	dir = strings.Trim(dir, "/")
	what := fmt.Sprintf("listing %s/ at %s", dir, short(rev))
	e, ok, err := r.lookup(ctx, rev, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", what, checks.ErrNotFound)
	}
	if e.kind() != "dir" {
		return nil, fmt.Errorf("%s: is a %s: %w", what, e.kind(), checks.ErrNotFound)
	}
	es, err := r.tree(ctx, e.OID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out := make([]checks.DirEntry, 0, len(es))
	for _, te := range es {
		kind := te.kind()
		if kind == "submodule" {
			kind = "file" // as GitHub's directory listings name submodules
		}
		out = append(out, checks.DirEntry{Name: te.Name, Path: path.Join(dir, te.Name), Type: kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Exists reports whether path names a file or directory at commit rev.
func (r *Repo) Exists(ctx context.Context, rev, p string) (bool, error) {
	_, ok, err := r.lookup(ctx, rev, p)
	return ok, err
}

// Stat reports whether path names a file or a directory at commit rev.
func (r *Repo) Stat(ctx context.Context, rev, p string) (exists, dir bool, err error) {
	e, ok, err := r.lookup(ctx, rev, p)
	if err != nil || !ok {
		return false, false, err
	}
	return true, e.Mode == "40000" || e.Mode == "040000", nil
}
