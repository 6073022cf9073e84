package githubtest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// A PR's life after its first verdict: pushes, and the check-run and
// check-suite deliveries of "Re-run".

// Push adds commit name (the head's tree, so the PR's files stay as they
// are) on top of PR repo#number and moves its head there, as a push to the
// head branch does. It returns the new head's SHA.
func (s *Server) Push(repo string, number int, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.eventPull(repo, number)
	head := rs.r.FindCommit(pr.Head.Commit)
	if head == nil {
		panic(fmt.Sprintf("githubtest: Push: PR %s#%d has no head commit", repo, number))
	}
	if rs.r.FindCommit(name) != nil {
		panic(fmt.Sprintf("githubtest: Push: commit %q exists", name))
	}
	c := &fixture.Commit{Name: name, SHA: fixture.CommitSHA(rs.r.FullName, name), Tree: head.Tree, Message: "push " + name,
		Author: head.Author, Date: s.tick()}
	rs.r.Commits = append(rs.r.Commits, c)
	pr.Commits = append(pr.Commits, c.SHA)
	pr.Head.Commit = c.SHA
	pr.UpdatedAt = c.Date
	return c.SHA
}

// PullRequestSynchronizeEvent is the pull_request delivery of a push to PR
// repo#number whose head was before.
func (s *Server) PullRequestSynchronizeEvent(repo string, number int, before, sender string) map[string]any {
	ev := s.PullRequestEvent("synchronize", repo, number, sender)
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.eventPull(repo, number)
	ev["before"], ev["after"] = rs.r.ResolveSHA(before), rs.r.ResolveSHA(pr.Head.Commit)
	return ev
}

// checkPulls are the pull_requests of a check run or suite on sha: the
// PRs of the repository whose head is sha on a branch of the repository
// itself (GitHub leaves forks' PRs out).
func (s *Server) checkPulls(rs *repoState, sha string) []any {
	out := []any{}
	for _, n := range slices.Sorted(maps.Keys(rs.pulls)) {
		pr := rs.pulls[n]
		if pr.State == "closed" || rs.r.ResolveSHA(pr.Head.Commit) != sha || (pr.Head.Repo != "" && !strings.EqualFold(pr.Head.Repo, rs.r.FullName)) {
			continue
		}
		side := func(ref, commit string) map[string]any {
			return map[string]any{"ref": ref, "sha": rs.r.ResolveSHA(commit),
				"repo": map[string]any{"id": ghjson.ID(rs.r.FullName), "url": s.URL + "/repos/" + rs.r.FullName, "name": strings.SplitN(rs.r.FullName, "/", 2)[1]}}
		}
		id := int64(1800000000 + pr.Number)
		out = append(out, map[string]any{"id": id, "number": pr.Number,
			"url":  fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pr.Number),
			"head": side(pr.Head.Ref, pr.Head.Commit), "base": side(pr.Base.Ref, pr.Base.Commit)})
	}
	return out
}

// CheckRunEvent is the check_run delivery (action rerequested, say) of the
// check run id in repo, as sender asked for it.
func (s *Server) CheckRunEvent(action, repo string, id int64, sender string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		panic("githubtest: CheckRunEvent: no repo " + repo)
	}
	cr := s.findCheckRun(rs, id)
	if cr == nil {
		panic(fmt.Sprintf("githubtest: CheckRunEvent: no check run %d", id))
	}
	run := s.site.CheckRun(rs.r, cr)
	run["pull_requests"] = s.checkPulls(rs, cr.GetHeadSHA())
	if run["details_url"] == nil {
		// GitHub's default: the App's homepage.
		run["details_url"] = run["app"].(map[string]any)["external_url"]
	}
	ev := s.site.Event(rs.r, action, sender, "")
	ev["check_run"] = run
	return ev
}

// CheckSuiteEvent is the check_suite delivery of the App's suite on sha.
func (s *Server) CheckSuiteEvent(action, repo, sha, sender string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		panic("githubtest: CheckSuiteEvent: no repo " + repo)
	}
	sha = rs.r.ResolveSHA(sha)
	id := ghjson.ID(s.fx.App.Slug + "/" + sha)
	api := fmt.Sprintf("%s/repos/%s/check-suites/%d", s.URL, rs.r.FullName, id)
	c := rs.r.FindCommit(sha)
	var msg, author, tree string
	at := s.clock
	if c != nil {
		msg, author, tree = c.Message, c.Author, s.rootTrees[c.Tree]
		if !c.Date.IsZero() {
			at = c.Date
		}
	}
	if author == "" {
		author = "octocat"
	}
	git := map[string]any{"name": author, "email": author + "@users.noreply.github.com"}
	branch := any(nil)
	pulls := s.checkPulls(rs, sha)
	if len(pulls) > 0 {
		branch = pulls[0].(map[string]any)["head"].(map[string]any)["ref"]
	}
	ev := s.site.Event(rs.r, action, sender, "")
	ev["check_suite"] = map[string]any{"id": id, "node_id": ghjson.NodeID("CS", id), "head_branch": branch, "head_sha": sha,
		"status": "completed", "conclusion": "success", "url": api, "before": nil, "after": nil, "pull_requests": pulls,
		"app": s.site.App(), "created_at": ghjson.ISO(at), "updated_at": ghjson.ISO(s.clock), "latest_check_runs_count": 1,
		"check_runs_url": api + "/check-runs", "rerequestable": true, "runs_rerequestable": true,
		"head_commit": map[string]any{"id": sha, "tree_id": tree, "message": msg, "timestamp": ghjson.ISO(at), "author": git, "committer": git}}
	return ev
}

func init() {
	handle("GET", "/repos/{owner}/{repo}/commits/{sha}/pulls", (*Server).listCommitPulls)
}

// listCommitPulls lists the PRs whose commits include sha, as GitHub does
// for a commit not on the default branch (open and closed ones).
func (s *Server) listCommitPulls(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	sha := rs.r.ResolveSHA(p["sha"])
	out := []map[string]any{}
	for _, n := range slices.Sorted(maps.Keys(rs.pulls)) {
		pr := rs.pulls[n]
		for _, c := range append([]string{pr.Head.Commit}, pr.Commits...) {
			if rs.r.ResolveSHA(c) == sha {
				pj := s.pullJSON(rs, pr)
				// The simple PR's labels carry a description string.
				for _, l := range pj["labels"].([]map[string]any) {
					if l["description"] == nil {
						l["description"] = ""
					}
				}
				out = append(out, pj)
				break
			}
		}
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
}
