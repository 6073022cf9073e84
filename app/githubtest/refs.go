package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

func init() {
	handle("GET", "/repos/{owner}/{repo}/git/matching-refs/{ref...}", (*Server).matchingRefs)
}

// matchingRefs lists the branches whose ref (heads/<name>) starts with the
// given prefix, sorted by name, as GitHub lists matching refs (an empty
// array when none match).
func (s *Server) matchingRefs(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	var names []string
	for b := range rs.r.Branches {
		if strings.HasPrefix("heads/"+b, p["ref"]) {
			names = append(names, b)
		}
	}
	slices.Sort(names)
	out := []any{}
	for _, b := range names {
		c := rs.r.FindCommit(rs.r.Branches[b])
		if c == nil {
			continue
		}
		api := fmt.Sprintf("%s/repos/%s/git/refs/heads/%s", s.URL, rs.r.FullName, b)
		out = append(out, map[string]any{"ref": "refs/heads/" + b, "node_id": ghjson.NodeID("REF", int64(len(b))), "url": api,
			"object": map[string]any{"type": "commit", "sha": c.SHA,
				"url": fmt.Sprintf("%s/repos/%s/git/commits/%s", s.URL, rs.r.FullName, c.SHA)}})
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
}
