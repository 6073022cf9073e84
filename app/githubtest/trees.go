package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// gitTreeMax is GitHub's cap on the entries of one (recursive) tree answer.
const gitTreeMax = 100000

func init() {
	handle("GET", "/repos/{owner}/{repo}/git/trees/{sha}", (*Server).getGitTree)
}

// gitTree is one git tree object: a directory of a fixture tree.
type gitTree struct {
	sha     string
	entries []gitEntry
}

type gitEntry struct {
	name, mode, typ, sha string
	size                 int // blobs only
}

// addGitTrees stores the git tree objects of files (a whole repository
// tree) in into and returns the root tree's SHA. SHAs are computed the way
// git computes them, so equal directories share one object.
func addGitTrees(files map[string][]byte, into map[string]*gitTree) string {
	blobs := map[string][]byte{}
	dirs := map[string]map[string][]byte{}
	for p, data := range files {
		name, rest, isDir := strings.Cut(p, "/")
		if !isDir {
			blobs[name] = data
			continue
		}
		if dirs[name] == nil {
			dirs[name] = map[string][]byte{}
		}
		dirs[name][rest] = data
	}
	var entries []gitEntry
	for name, data := range blobs {
		entries = append(entries, gitEntry{name: name, mode: "100644", typ: "blob", sha: fixture.BlobSHA(data), size: len(data)})
	}
	for name, sub := range dirs {
		entries = append(entries, gitEntry{name: name, mode: "040000", typ: "tree", sha: addGitTrees(sub, into)})
	}
	// git orders entries by name, a directory sorting as if it ended in "/".
	key := func(e gitEntry) string {
		if e.typ == "tree" {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	h := sha1.New()
	var body []byte
	for _, e := range entries {
		raw, _ := hex.DecodeString(e.sha)
		mode := strings.TrimPrefix(e.mode, "0")
		body = append(append(body, mode+" "+e.name+"\x00"...), raw...)
	}
	fmt.Fprintf(h, "tree %d\x00", len(body))
	h.Write(body)
	sha := hex.EncodeToString(h.Sum(nil))
	into[sha] = &gitTree{sha: sha, entries: entries}
	return sha
}

// subtreeSHA is the git tree SHA of directory dir of the named fixture tree.
func (s *Server) subtreeSHA(tree, dir string) string {
	t := s.gitTrees[s.rootTrees[tree]]
	for _, seg := range strings.Split(dir, "/") {
		var next *gitTree
		for _, e := range t.entries {
			if e.name == seg && e.typ == "tree" {
				next = s.gitTrees[e.sha]
			}
		}
		if next == nil {
			return ""
		}
		t = next
	}
	return t.sha
}

// getGitTree serves GET /git/trees/{sha}: sha is a tree SHA or a commit
// (SHA, fixture name or branch), which stands for its root tree.
func (s *Server) getGitTree(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	sha := p["sha"]
	if c := rs.r.FindCommit(sha); c != nil {
		sha = s.rootTrees[c.Tree]
	}
	t := s.gitTrees[sha]
	if t == nil {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	var out []map[string]any
	var walk func(t *gitTree, prefix string)
	walk = func(t *gitTree, prefix string) {
		for _, e := range t.entries {
			ent := map[string]any{"path": prefix + e.name, "mode": e.mode, "type": e.typ, "sha": e.sha,
				"url": fmt.Sprintf("%s/repos/%s/git/%ss/%s", s.URL, rs.r.FullName, e.typ, e.sha)}
			if e.typ == "blob" {
				ent["size"] = e.size
			}
			out = append(out, ent)
			if e.typ == "tree" && r.URL.Query().Get("recursive") != "" {
				walk(s.gitTrees[e.sha], prefix+e.name+"/")
			}
		}
	}
	walk(t, "")
	truncated := len(out) > gitTreeMax
	if truncated {
		out = out[:gitTreeMax]
	}
	if out == nil {
		out = []map[string]any{}
	}
	ghjson.Write(w, http.StatusOK, map[string]any{"sha": t.sha, "url": fmt.Sprintf("%s/repos/%s/git/trees/%s", s.URL, rs.r.FullName, t.sha),
		"tree": out, "truncated": truncated})
}
