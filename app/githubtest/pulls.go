package githubtest

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
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

func (s *Server) pull(w http.ResponseWriter, p params) (*repoState, *fixture.Pull) {
	rs := s.repo(w, p)
	if rs == nil {
		return nil, nil
	}
	pr := rs.pulls[p.int("number")]
	if pr == nil {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
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
	ghjson.Write(w, http.StatusOK, s.pullJSON(rs, pr))
}

// getIssue answers for a pull request's number and for an issue's: they
// share one sequence, and GitHub's issues endpoint serves both.
func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	n := p.int("number")
	if pr := rs.pulls[n]; pr != nil {
		ghjson.Write(w, http.StatusOK, s.issueJSON(rs, pr))
		return
	}
	if is := rs.issues[n]; is != nil {
		ghjson.Write(w, http.StatusOK, s.site.PlainIssue(rs.r, is, len(rs.issueCs[n])))
		return
	}
	ghjson.Error(w, http.StatusNotFound, "Not Found")
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
		out = append(out, s.site.File(rs.r, pr, f))
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out[:min(len(out), prFileCap)]))
}

func (s *Server) listPullCommits(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := s.pullCommitsJSON(rs, pr)
	// GitHub lists at most 250 commits (the oldest ones).
	if len(out) > prCommitCap {
		out = out[:prCommitCap]
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
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
		out = append(out, s.site.Review(rs.r, pr, rv))
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
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
			ghjson.Write(w, http.StatusOK, s.site.Review(rs.r, pr, rv))
			return
		}
	}
	ghjson.Error(w, http.StatusNotFound, "Not Found")
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
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	ghjson.Write(w, http.StatusOK, s.site.ReviewComment(rs.r, ref.pull, ref.c))
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
		out = append(out, s.site.ReviewComment(rs.r, pr, c))
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) getRaw(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	files, _, ok := s.fx.Files(rs.r, p["sha"])
	data, found := files[p["path"]]
	if !ok || !found {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(data)
}

// diffText renders the whole PR diff for Accept: application/vnd.github.diff.
func diffText(files []*fixture.File) string {
	var sb strings.Builder
	fs := append([]*fixture.File(nil), files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Filename < fs[j].Filename })
	for _, f := range fs {
		old := f.Filename
		if f.PreviousFilename != "" {
			old = f.PreviousFilename
		}
		fmt.Fprintf(&sb, "diff --git a/%s b/%s\n", old, f.Filename)
		a, b := "a/"+old, "b/"+f.Filename
		switch f.Status {
		case "added":
			sb.WriteString("new file mode 100644\n")
			a = "/dev/null"
		case "removed":
			sb.WriteString("deleted file mode 100644\n")
			b = "/dev/null"
		}
		if f.NoPatch || f.Patch == "" {
			fmt.Fprintf(&sb, "Binary files %s and %s differ\n", a, b)
			continue
		}
		fmt.Fprintf(&sb, "--- %s\n+++ %s\n%s\n", a, b, f.Patch)
	}
	return sb.String()
}

// pullCommitsJSON is every commit of a PR, oldest first, as GitHub lists
// commits (a fixture commit's message, date and author; a bare SHA's
// placeholders).
func (s *Server) pullCommitsJSON(rs *repoState, pr *fixture.Pull) []map[string]any {
	out := []map[string]any{}
	for _, ref := range pr.Commits {
		sha, msg, date, author := ref, "commit "+ref, s.fx.Now, pr.User
		if c := rs.r.FindCommit(ref); c != nil {
			sha, msg, date = c.SHA, c.Message, c.Date
			if c.Author != "" {
				author = c.Author
			}
		}
		out = append(out, s.commitJSON(rs, sha, msg, date, author))
	}
	return out
}
