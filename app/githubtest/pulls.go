package githubtest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"
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

func (s *Server) pullJSON(rs *repoState, pr *Pull) *github.PullRequest {
	add, del := 0, 0
	for _, f := range pr.Files {
		add += f.Additions
		del += f.Deletions
	}
	var labels []*github.Label
	for _, l := range pr.Labels {
		labels = append(labels, &github.Label{Name: github.String(l)})
	}
	repoJSON := func(full string) *github.Repository {
		owner, name, _ := strings.Cut(full, "/")
		return &github.Repository{FullName: github.String(full), Name: github.String(name), Owner: ghUser(owner, "Organization"),
			DefaultBranch: github.String(rs.r.DefaultBranch)}
	}
	headRepo := pr.Head.Repo
	if headRepo == "" {
		headRepo = rs.r.FullName
	}
	out := &github.PullRequest{
		Number: github.Int(pr.Number), State: github.String(pr.State), Title: github.String(pr.Title), Body: github.String(pr.Body),
		Draft: github.Bool(pr.Draft), Merged: github.Bool(pr.Merged), MergedAt: ts(pr.MergedAt),
		User: ghUser(pr.User, pr.UserType), Labels: labels, CreatedAt: ts(pr.CreatedAt), UpdatedAt: ts(pr.UpdatedAt),
		HTMLURL:      github.String(fmt.Sprintf("https://github.com/%s/pull/%d", rs.r.FullName, pr.Number)),
		URL:          github.String(fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pr.Number)),
		IssueURL:     github.String(fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, rs.r.FullName, pr.Number)),
		ChangedFiles: github.Int(len(pr.Files)), Additions: github.Int(add), Deletions: github.Int(del),
		Commits: github.Int(len(pr.Commits)), Comments: github.Int(len(rs.issueCs[pr.Number])),
		Head: &github.PullRequestBranch{Ref: github.String(pr.Head.Ref), SHA: github.String(s.resolveSHA(rs, pr.Head.Commit)),
			Label: github.String(strings.Split(headRepo, "/")[0] + ":" + pr.Head.Ref), Repo: repoJSON(headRepo)},
		Base: &github.PullRequestBranch{Ref: github.String(pr.Base.Ref), SHA: github.String(s.resolveSHA(rs, pr.Base.Commit)),
			Label: github.String(strings.Split(rs.r.FullName, "/")[0] + ":" + pr.Base.Ref), Repo: repoJSON(rs.r.FullName)},
	}
	if pr.State == "closed" {
		out.ClosedAt = ts(pr.UpdatedAt)
	}
	return out
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
	pj := s.pullJSON(rs, pr)
	writeJSON(w, http.StatusOK, &github.Issue{Number: pj.Number, State: pj.State, Title: pj.Title, Body: pj.Body,
		User: pj.User, Labels: pj.Labels, CreatedAt: pj.CreatedAt, UpdatedAt: pj.UpdatedAt, HTMLURL: pj.HTMLURL,
		URL: pj.IssueURL, PullRequestLinks: &github.PullRequestLinks{URL: pj.URL, HTMLURL: pj.HTMLURL}})
}

func (s *Server) listPullFiles(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	var out []*github.CommitFile
	for _, f := range pr.Files {
		cf := &github.CommitFile{Filename: github.String(f.Filename), Status: github.String(f.Status),
			Additions: github.Int(f.Additions), Deletions: github.Int(f.Deletions), Changes: github.Int(f.Additions + f.Deletions),
			BlobURL: github.String(fmt.Sprintf("https://github.com/%s/blob/%s/%s", rs.r.FullName, s.resolveSHA(rs, pr.Head.Commit), f.Filename))}
		if f.PreviousFilename != "" {
			cf.PreviousFilename = github.String(f.PreviousFilename)
		}
		if !f.NoPatch && f.Patch != "" {
			cf.Patch = github.String(f.Patch)
		}
		out = append(out, cf)
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
	var out []*github.RepositoryCommit
	for _, ref := range pr.Commits {
		sha, msg, date, author := ref, "commit "+ref, s.fx.Now, pr.User
		if c := rs.r.commit(ref); c != nil {
			sha, msg, date = c.SHA, c.Message, c.Date
			if c.Author != "" {
				author = c.Author
			}
		}
		sig := &github.CommitAuthor{Name: github.String(author), Date: ts(date)}
		out = append(out, &github.RepositoryCommit{SHA: github.String(sha), Author: ghUser(author, ""),
			Commit:  &github.Commit{Message: github.String(msg), Author: sig, Committer: sig},
			HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/commit/%s", rs.r.FullName, sha))})
	}
	// GitHub lists at most 250 commits (the oldest ones).
	if len(out) > prCommitCap {
		out = out[:prCommitCap]
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) reviewJSON(rs *repoState, pr *Pull, rv *Review) *github.PullRequestReview {
	return &github.PullRequestReview{ID: github.Int64(rv.ID), User: ghUser(rv.User, ""), Body: github.String(rv.Body),
		State: github.String(rv.State), SubmittedAt: ts(rv.SubmittedAt), CommitID: github.String(s.resolveSHA(rs, rv.Commit)),
		AuthorAssociation: github.String(rv.Association),
		HTMLURL:           github.String(fmt.Sprintf("https://github.com/%s/pull/%d#pullrequestreview-%d", rs.r.FullName, pr.Number, rv.ID)),
		PullRequestURL:    github.String(fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pr.Number))}
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.pull(w, p)
	if pr == nil {
		return
	}
	out := []*github.PullRequestReview{}
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
	out := []*github.PullRequestComment{}
	for _, c := range pr.ReviewComments {
		out = append(out, s.reviewCommentJSON(rs, pr, c))
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) reviewCommentJSON(rs *repoState, pull *Pull, c *ReviewComment) *github.PullRequestComment {
	out := &github.PullRequestComment{ID: github.Int64(c.ID), User: ghUser(c.User, ""), Body: github.String(c.Body),
		Path: github.String(c.Path), Line: github.Int(c.Line), CommitID: github.String(s.resolveSHA(rs, c.Commit)),
		AuthorAssociation: github.String(c.Association), CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),
		HTMLURL:        github.String(fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", rs.r.FullName, pull.Number, c.ID)),
		PullRequestURL: github.String(fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pull.Number))}
	if c.ReviewID != 0 {
		out.PullRequestReviewID = github.Int64(c.ReviewID)
	}
	return out
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
