package githubtest

import (
	"fmt"
	"time"

	"github.com/google/go-github/v62/github"
)

// checkRunOut is the check-run object of a stored run.
func (s *Server) checkRunOut(rs *repoState, cr *github.CheckRun) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/check-runs/%d", s.URL, rs.r.FullName, cr.GetID())
	out := cr.GetOutput()
	if out == nil {
		out = &github.CheckRunOutput{}
	}
	app := s.appJSON()
	if slug := cr.GetApp().GetSlug(); slug != s.fx.App.Slug {
		// Another App (GitHub Actions): same shape, its own identity.
		id := userID(slug)
		app["id"], app["slug"], app["name"], app["node_id"] = id, slug, slug, nodeID("A", id)
		app["html_url"] = "https://github.com/apps/" + slug
	}
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	tsOrNil := func(t *github.Timestamp) any {
		if t == nil {
			return nil
		}
		return iso(t.Time)
	}
	suite := userID(fmt.Sprint(cr.GetApp().GetSlug(), "/", cr.GetHeadSHA()))
	if m := jobRunRE.FindStringSubmatch(cr.GetDetailsURL()); m != nil {
		suite = userID(m[1])
	}
	return map[string]any{"id": cr.GetID(), "node_id": nodeID("CR", cr.GetID()), "head_sha": cr.GetHeadSHA(), "name": cr.GetName(),
		"url": api, "html_url": str(cr.HTMLURL), "details_url": str(cr.DetailsURL), "external_id": str(cr.ExternalID),
		"status": cr.GetStatus(), "conclusion": str(cr.Conclusion), "started_at": tsOrNil(cr.StartedAt),
		"completed_at": tsOrNil(cr.CompletedAt), "check_suite": map[string]any{"id": suite}, "app": app, "pull_requests": []any{},
		"output": map[string]any{"title": str(out.Title), "summary": str(out.Summary), "text": str(out.Text),
			"annotations_count": 0, "annotations_url": api + "/annotations"}}
}

// statusOut is the status object of a stored commit status.
func (s *Server) statusOut(rs *repoState, sha string, st *github.RepoStatus) map[string]any {
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	creator := s.userJSON(st.GetCreator().GetLogin(), st.GetCreator().GetType())
	return map[string]any{"id": st.GetID(), "node_id": nodeID("SC", st.GetID()),
		"url":   fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, rs.r.FullName, sha),
		"state": st.GetState(), "description": str(st.Description), "target_url": str(st.TargetURL), "context": st.GetContext(),
		"avatar_url": creator["avatar_url"], "creator": creator,
		"created_at": iso(st.GetCreatedAt().Time), "updated_at": iso(st.GetUpdatedAt().Time)}
}

// runJSON is the workflow-run object.
func (s *Server) runJSON(rs *repoState, run *WorkflowRun) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/actions/runs/%d", s.URL, rs.r.FullName, run.ID)
	sha := s.resolveSHA(rs, run.HeadCommit)
	msg, author := "commit "+run.HeadCommit, "octocat"
	tree := s.rootTrees[""]
	if c := rs.r.commit(run.HeadCommit); c != nil {
		msg, tree = c.Message, s.rootTrees[c.Tree]
		if c.Author != "" {
			author = c.Author
		}
	}
	var concl any
	if run.Conclusion != "" {
		concl = run.Conclusion
	}
	repo := s.minimalRepoJSON(rs.r.FullName, rs.r.Private)
	wf := userID(run.Path)
	return map[string]any{"id": run.ID, "node_id": nodeID("WFR", run.ID), "name": run.Name, "display_title": run.Name,
		"path": run.Path, "event": run.Event, "status": run.Status, "conclusion": concl, "head_sha": sha, "head_branch": run.HeadBranch,
		"run_number": run.ID % 100000, "run_attempt": run.RunAttempt, "workflow_id": wf, "check_suite_id": userID(fmt.Sprint(run.ID)),
		"url": api, "html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d", rs.r.FullName, run.ID),
		"created_at": iso(run.CreatedAt), "updated_at": iso(run.CreatedAt.Add(time.Hour)), "run_started_at": iso(run.CreatedAt),
		"actor": s.userJSON("octocat", ""), "triggering_actor": s.userJSON("octocat", ""),
		"jobs_url": api + "/jobs", "logs_url": api + "/logs", "check_suite_url": fmt.Sprintf("%s/repos/%s/check-suites/%d", s.URL, rs.r.FullName, userID(fmt.Sprint(run.ID))),
		"artifacts_url": api + "/artifacts", "cancel_url": api + "/cancel", "rerun_url": api + "/rerun",
		"workflow_url": fmt.Sprintf("%s/repos/%s/actions/workflows/%d", s.URL, rs.r.FullName, wf), "pull_requests": []any{},
		"head_commit": map[string]any{"id": sha, "tree_id": tree, "message": msg, "timestamp": iso(run.CreatedAt),
			"author":    map[string]any{"name": author, "email": author + "@users.noreply.github.com"},
			"committer": map[string]any{"name": author, "email": author + "@users.noreply.github.com"}},
		"repository": repo, "head_repository": repo}
}

// artifactJSON is the artifact object.
func (s *Server) artifactJSON(rs *repoState, a *Artifact) map[string]any {
	run := rs.artRun[a.ID]
	size := a.SizeBytes
	if size == 0 {
		size = s.artifactSize(rs, a)
	}
	sha := s.resolveSHA(rs, run.HeadCommit)
	return map[string]any{"id": a.ID, "node_id": nodeID("MDEwOkNoZWNrU3VpdGU", a.ID), "name": a.Name, "size_in_bytes": size,
		"url":                  fmt.Sprintf("%s/repos/%s/actions/artifacts/%d", s.URL, rs.r.FullName, a.ID),
		"archive_download_url": fmt.Sprintf("%s/repos/%s/actions/artifacts/%d/zip", s.URL, rs.r.FullName, a.ID),
		"expired":              a.Expired, "created_at": iso(run.CreatedAt), "updated_at": iso(run.CreatedAt),
		"expires_at": iso(run.CreatedAt.Add(90 * 24 * time.Hour)), "digest": nil,
		"workflow_run": map[string]any{"id": run.ID, "repository_id": userID(rs.r.FullName), "head_repository_id": userID(rs.r.FullName),
			"head_branch": run.HeadBranch, "head_sha": sha}}
}
