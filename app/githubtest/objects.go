package githubtest

import (
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// The objects whose JSON (written by ghjson) shows server state beyond the
// fixture: comment counts, reactions, git tree SHAs, archive sizes. Call
// them with s.mu held.

func (s *Server) pullJSON(rs *repoState, pr *fixture.Pull) map[string]any {
	return s.site.Pull(rs.r, pr, len(rs.issueCs[pr.Number]))
}

func (s *Server) issueJSON(rs *repoState, pr *fixture.Pull) map[string]any {
	return s.site.Issue(rs.r, pr, len(rs.issueCs[pr.Number]))
}

func (s *Server) commentJSON(cs *commentState) map[string]any {
	return s.site.Comment(cs.repo.r, cs.issue, cs.c, cs.reactions)
}

// commitJSON shows a commit the fixture declares verified as GitHub shows
// a signed one; any other commit unsigned.
func (s *Server) commitJSON(rs *repoState, sha, msg string, date time.Time, author string) map[string]any {
	c := rs.r.FindCommit(sha)
	return s.site.Commit(rs.r, sha, msg, date, author, s.treeSHA(rs, sha), c != nil && c.Verified)
}

func (s *Server) runJSON(rs *repoState, run *fixture.WorkflowRun) map[string]any {
	return s.site.WorkflowRun(rs.r, run, s.treeSHA(rs, run.HeadCommit))
}

func (s *Server) artifactJSON(rs *repoState, a *fixture.Artifact) map[string]any {
	size := a.SizeBytes
	if size == 0 {
		size = s.artifactSize(a)
	}
	return s.site.Artifact(rs.r, a, rs.artRun[a.ID], size)
}

// treeSHA is the git tree SHA of commit ref's tree: the empty tree's for a
// commit without one or that the fixture does not declare.
func (s *Server) treeSHA(rs *repoState, ref string) string {
	if c := rs.r.FindCommit(ref); c != nil {
		return s.rootTrees[c.Tree]
	}
	return s.rootTrees[""]
}
