package ghsource

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// Reads ahead: a verification knows some of the evidence it will ask for
// before the check that asks is running, so it can start those reads as
// soon as their inputs are known and the asker finds the answer in flight
// or memoized. A read ahead is nobody's evidence until someone asks: its
// failure is memoized like any other answer (a transient one is noted
// for the verification only when an asker gets it, through do). Callers
// read ahead only what the verification goes on to read once it gets that
// far; each says what decides that.

// PrefetchTree starts reading the recursive git tree of commit sha, which
// answers every directory listing at that commit (see ListDir). Refs that
// are not full commit SHAs are not read ahead: their listings do not go
// through the tree.
func (s *Source) PrefetchTree(ctx context.Context, sha string) {
	if !immutable(sha) {
		return
	}
	ahead(s, s.treeKey(sha), s.readTree(ctx, sha))
}

// ReadAhead starts reading paths at branch by its name, while the caller
// reads which commit the branch points at; Pin then ties the two, so that
// reads of those paths at that commit are answered from the reads ahead
// instead of waiting for the commit to be known. When the shared cache
// already holds every path at the commit the branch pointed at last time,
// nothing is read ahead: if the branch has not moved, the cache answers.
//
// A branch can move between the two reads. A read ahead therefore stands
// for the commit only in this verification, and is kept in the shared
// cache as that commit's file (or its absence) only once the commit's git
// tree, when read, shows the same blob. A tree that shows another one
// means the branch moved in between: the verification has read two
// versions as one, so the Source reports a transient failure (see
// Transient) and a retry reads the branch again.
func (s *Source) ReadAhead(ctx context.Context, branch string, paths ...string) {
	if immutable(branch) || branch == "" {
		return
	}
	if v, ok := s.o.Cache.get(s.tipKey(branch)); ok {
		last, cached := v.(string), true
		for _, p := range paths {
			if _, ok := s.o.Cache.get(s.fileKey(last, strings.Trim(p, "/"))); !ok {
				cached = false
			}
		}
		if cached {
			return
		}
	}
	for _, p := range paths {
		p = strings.Trim(p, "/")
		what := fmt.Sprintf("%s/%s: reading %s at %s", s.owner, s.repo, p, branch)
		ahead(s, s.fileKey(branch, p), s.fileRead(ctx, branch, p, what))
	}
}

// Pin records that branch pointed at commit sha when it was read, for the
// reads ahead of branch (see ReadAhead).
func (s *Source) Pin(branch, sha string) {
	if !immutable(sha) {
		return
	}
	s.mu.Lock()
	if s.pinned == nil {
		s.pinned = map[string]string{}
	}
	s.pinned[sha] = branch
	s.mu.Unlock()
	// Only a hint of what ReadAhead may find cached next time.
	s.o.Cache.put(s.tipKey(branch), sha, int64(len(sha)))
}

func (s *Source) tipKey(branch string) string {
	return "tip\x00" + s.owner + "/" + s.repo + "\x00" + branch
}

// aheadRead is a read ahead that answered a read at a commit and that the
// commit's tree has not confirmed yet.
type aheadRead struct {
	branch, path string
	res          fileResult
}

// readAheadAt answers the read of path at commit sha from the read ahead
// of the branch pinned to sha, when there is one and it succeeded; a
// failed read ahead leaves the read to be made at sha.
func (s *Source) readAheadAt(ctx context.Context, sha, p string) (fileResult, bool) {
	s.mu.Lock()
	branch, ok := s.pinned[sha]
	var fl *flight
	if ok {
		fl = s.flights[s.fileKey(branch, p)]
	}
	s.mu.Unlock()
	if fl == nil {
		return fileResult{}, false
	}
	select {
	case <-fl.done:
	case <-ctx.Done():
		return fileResult{}, false
	}
	res, ok := fl.val.(fileResult)
	if fl.err != nil || !ok {
		return fileResult{}, false
	}
	r := aheadRead{branch: branch, path: p, res: res}
	s.mu.Lock()
	t, known := s.trees[sha]
	if !known {
		if s.unconfirmed == nil {
			s.unconfirmed = map[string][]aheadRead{}
		}
		s.unconfirmed[sha] = append(s.unconfirmed[sha], r)
	}
	s.mu.Unlock()
	if known {
		s.confirm(sha, t, r)
	}
	return res, true
}

// treeRead records the tree of commit sha (nil: none that can stand in
// for the contents API) and confirms the reads ahead it answers.
func (s *Source) treeRead(sha string, t *commitTree) {
	if t == nil {
		return
	}
	s.mu.Lock()
	if s.trees == nil {
		s.trees = map[string]*commitTree{}
	}
	s.trees[sha] = t
	pending := s.unconfirmed[sha]
	delete(s.unconfirmed, sha)
	s.mu.Unlock()
	for _, r := range pending {
		s.confirm(sha, t, r)
	}
}

// confirm keeps r as the file (or absence) at commit sha when the commit's
// tree t shows the same, and reports the branch as moved when it shows
// something else. A symlink (which the contents API may answer with its
// target) cannot be confirmed, nor can the absence of a file where the
// commit has a directory or a submodule; neither is kept.
func (s *Source) confirm(sha string, t *commitTree, r aheadRead) {
	typ := ""
	for _, e := range t.dirs[path.Dir("/" + r.path)[1:]] {
		if e.Path == r.path {
			typ = e.Type
		}
	}
	same := r.res.notFound && typ == "" || !r.res.notFound && typ == "file" && t.blobs[r.path] == gitBlob(r.res.data)
	switch {
	case same:
		s.o.Cache.put(s.fileKey(sha, r.path), r.res, int64(len(r.res.data)))
	case typ == "symlink", r.res.notFound && typ != "file":
	default:
		s.noteTransient(retry.Transient(fmt.Errorf("%s/%s: %s moved from %s while %s was read at it; read again",
			s.owner, s.repo, r.branch, short(sha), r.path)))
	}
}

// gitBlob is the git object ID of a blob holding data.
func gitBlob(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// PrefetchArtifacts sets the reads of a run's artifacts to make ahead
// once a check downloads any artifact of that run (checks download only
// from the run they assess): pick, given the run's artifacts as listed,
// returns the entries wanted of each artifact to read, by artifact ID.
// The reads ahead share the limit of Options.ArtifactDownloads with the
// checks' own downloads, and a check asking for the same entries finds
// them in flight or cached; one that failed ahead is made again when
// asked, and fails or succeeds on its own.
func (s *Source) PrefetchArtifacts(pick func(arts []checks.Artifact) map[int64]func(name string) bool) {
	s.mu.Lock()
	s.pick = pick
	s.mu.Unlock()
}

// readRunAhead starts the reads ahead of the run of artifact a, which a
// check is about to download, unless they were started already.
func (s *Source) readRunAhead(ctx context.Context, a checks.Artifact) {
	s.mu.Lock()
	pick := s.pick
	if pick == nil || s.runsAhead[a.RunID] {
		s.mu.Unlock()
		return
	}
	if s.runsAhead == nil {
		s.runsAhead = map[int64]bool{}
	}
	s.runsAhead[a.RunID] = true
	fl := s.flights[artifactsKey(a.RunID)]
	s.mu.Unlock()
	if fl == nil {
		return
	}
	select {
	case <-fl.done:
	default:
		return // a was not read from this Source's listing of the run
	}
	arts, ok := fl.val.([]checks.Artifact)
	if fl.err != nil || !ok {
		return
	}
	reads := pick(arts)
	for _, b := range arts {
		if want, ok := reads[b.ID]; ok && b.ID != a.ID {
			go s.artifactFiles(ctx, b, want, false)
		}
	}
}
