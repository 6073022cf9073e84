package githubtest

import (
	"fmt"
	"net/http"
	"strings"
)

// GitHub lists at most 250 commits (/pulls/{n}/commits) and 3,000 files
// (/pulls/{n}/files) of a pull request; changed_files and commits still
// count them all.
const (
	prCommitCap = 250
	prFileCap   = 3000
)

func init() {
	handle("GET", "/repos/{owner}/{repo}/pulls/{number}", (*Server).getPull)
	handle("GET", "/repos/{owner}/{repo}/issues/{number}", (*Server).getIssue)
	handle("GET", "/repos/{owner}/{repo}/pulls/{number}/files", (*Server).listPullFiles)
	handle("GET", "/repos/{owner}/{repo}/pulls/{number}/commits", (*Server).listPullCommits)
	handle("GET", "/repos/{owner}/{repo}/pulls/{number}/reviews", (*Server).listReviews)
	handle("GET", "/repos/{owner}/{repo}/pulls/{number}/reviews/{id}", (*Server).getReview)
	handle("GET", "/repos/{owner}/{repo}/pulls/comments/{id}", (*Server).getReviewComment)
	handle("GET", "/repos/{owner}/{repo}/pulls/{number}/comments", (*Server).listReviewComments)
	handle("GET", "/repos/{owner}/{repo}/_raw/{sha}/{path...}", (*Server).getRaw)
}

func (s *Server) pull(w http.ResponseWriter, p params) (*repoState, *Pull) {
	rs := s.repo(w, p)
	if rs == nil {
		return nil, nil
	}
	pr := rs.pulls[p.int("number")]
	if pr == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil, nil
	}
	return rs, pr
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "application/vnd.github.diff") ||
		strings.Contains(r.Header.Get("Accept"), "application/vnd.github.v3.diff") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, diffText(pr.Files))
		return
	}
	writeJSON(w, http.StatusOK, s.pullJSON(rs, pr))
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	writeJSON(w, http.StatusOK, s.issueJSON(rs, pr))
}

func (s *Server) listPullFiles(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := []map[string]any{}
	for _, f := range pr.Files {
		out = append(out, s.fileJSON(rs, pr, f))
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out[:min(len(out), prFileCap)]))
}

func (s *Server) listPullCommits(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := []map[string]any{}
	for _, ref := range pr.Commits {
		sha, msg, date, author := ref, "commit "+ref, s.fx.Now, pr.User
		if c := rs.r.commit(ref); c != nil {
			sha, msg, date = c.SHA, c.Message, c.Date
			if c.Author != "" {
				author = c.Author
			}
		}
		out = append(out, s.commitJSON(rs, sha, msg, date, author))
	}
	// GitHub lists at most 250 commits (the oldest ones).
	if len(out) > prCommitCap {
		out = out[:prCommitCap]
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := []map[string]any{}
	for _, rv := range pr.Reviews {
		out = append(out, s.reviewJSON(rs, pr, rv))
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) getReview(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	for _, rv := range pr.Reviews {
		if rv.ID == p.int64("id") {
			writeJSON(w, http.StatusOK, s.reviewJSON(rs, pr, rv))
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) getReviewComment(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	ref := s.reviewCs[p.int64("id")]
	if ref == nil || ref.repo != rs {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.reviewCommentJSON(rs, ref.pull, ref.c))
}

// listReviewComments is GET /pulls/{n}/comments: the PR's inline review
// comments, oldest first.
func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := []map[string]any{}
	for _, c := range pr.ReviewComments {
		out = append(out, s.reviewCommentJSON(rs, pr, c))
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) getRaw(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	files, _, ok := s.treeAt(rs, p["sha"])
	data, found := files[p["path"]]
	if !ok || !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(data)
}
