package githubtest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

func init() {
	handle("GET", "/repos/{owner}/{repo}/compare/{basehead...}", (*Server).compare)
}

// compare answers GET /repos/{owner}/{repo}/compare/{base}...{head} for a
// pull request's range: head is a PR's head commit and base its base
// commit (or a commit of the base it was opened on), and the commits are
// the PR's, oldest first, paginated as GitHub paginates a comparison
// (per_page up to 100; files only on the first page). The fake has no
// commit graph, so any other range is answered 404.
func (s *Server) compare(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	base, head, ok := strings.Cut(p["basehead"], "...")
	if !ok {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	baseSHA, headSHA := rs.r.ResolveSHA(base), rs.r.ResolveSHA(head)
	for _, n := range slices.Sorted(maps.Keys(rs.pulls)) {
		pr := rs.pulls[n]
		if rs.r.ResolveSHA(pr.Head.Commit) != headSHA || rs.r.ResolveSHA(pr.Base.Commit) != baseSHA {
			continue
		}
		all := s.pullCommitsJSON(rs, pr)
		page := paginate(w, r, all)
		api := fmt.Sprintf("%s/repos/%s/compare/%s", s.URL, rs.r.FullName, p["basehead"])
		ghjson.Write(w, http.StatusOK, map[string]any{"url": api, "html_url": "https://github.com/" + rs.r.FullName + "/compare/" + p["basehead"],
			"permalink_url": "https://github.com/" + rs.r.FullName + "/compare/" + p["basehead"], "diff_url": api + ".diff", "patch_url": api + ".patch",
			"base_commit": s.commitJSON(rs, baseSHA, "base", s.fx.Now, ""), "merge_base_commit": s.commitJSON(rs, baseSHA, "base", s.fx.Now, ""),
			"status": "ahead", "ahead_by": len(all), "behind_by": 0, "total_commits": len(all), "commits": page, "files": []any{}})
		return
	}
	ghjson.Error(w, http.StatusNotFound, "Not Found")
}
