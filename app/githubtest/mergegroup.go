package githubtest

import (
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// A merge queue: each entry's group is a commit on a temporary branch
// gh-readonly-queue/<base>/pr-<N>-<parent SHA>, built on the base branch's
// tip or on the group ahead of it.

// AddMergeGroup queues PR repo#number on parent (a commit name or SHA: the
// base branch's tip, or the head of the group ahead): a commit named name
// with the PR head's tree (its changes merged), and the group's branch. It
// returns the group's ref and commit SHA.
func (s *Server) AddMergeGroup(repo string, number int, parent, name string) (ref, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, pr := s.eventPull(repo, number)
	head, base := rs.r.FindCommit(pr.Head.Commit), rs.r.FindCommit(parent)
	if head == nil || base == nil || rs.r.FindCommit(name) != nil {
		panic(fmt.Sprintf("githubtest: AddMergeGroup: PR %s#%d on %q as %q", repo, number, parent, name))
	}
	c := &fixture.Commit{Name: name, SHA: fixture.CommitSHA(rs.r.FullName, name), Tree: head.Tree,
		Message: fmt.Sprintf("Merge pull request #%d", number), Author: "github-merge-queue[bot]", Date: s.tick()}
	rs.r.Commits = append(rs.r.Commits, c)
	branch := fmt.Sprintf("gh-readonly-queue/%s/pr-%d-%s", pr.Base.Ref, number, base.SHA)
	rs.r.Branches[branch] = c.SHA
	return "refs/heads/" + branch, c.SHA
}

// MergeGroupEvent is the merge_group delivery (checks_requested, or
// destroyed with reason) of the group on ref, as GitHub sends it.
func (s *Server) MergeGroupEvent(action, repo, ref, reason string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		panic("githubtest: MergeGroupEvent: no repo " + repo)
	}
	branch := strings.TrimPrefix(ref, "refs/heads/")
	c := rs.r.FindCommit(rs.r.Branches[branch])
	rest, ok := strings.CutPrefix(branch, "gh-readonly-queue/")
	i := strings.LastIndex(rest, "/pr-")
	if c == nil || !ok || i < 0 {
		panic("githubtest: MergeGroupEvent: no merge group " + ref)
	}
	baseBranch, entry := rest[:i], rest[i+len("/pr-"):]
	parent := entry[strings.LastIndex(entry, "-")+1:]
	ev := s.site.Event(rs.r, action, "github-merge-queue[bot]", "Bot")
	bot := map[string]any{"name": "GitHub", "email": "noreply@github.com"}
	ev["merge_group"] = map[string]any{"head_sha": c.SHA, "head_ref": ref, "base_sha": parent, "base_ref": "refs/heads/" + baseBranch,
		"head_commit": map[string]any{"id": c.SHA, "tree_id": s.treeSHA(rs, c.SHA), "message": c.Message,
			"timestamp": ghjson.ISO(c.Date), "author": bot, "committer": bot}}
	if action == "destroyed" {
		ev["reason"] = reason
	}
	return ev
}

// MoveBranch points branch of repo at commit (a name or SHA), as a push or
// a merge to it does.
func (s *Server) MoveBranch(repo, branch, commit string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil || rs.r.FindCommit(commit) == nil {
		panic(fmt.Sprintf("githubtest: MoveBranch: no commit %q in %s", commit, repo))
	}
	rs.r.Branches[branch] = commit
}
