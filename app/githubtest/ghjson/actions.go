package ghjson

import (
	"fmt"
	"regexp"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// jobRunRE finds the workflow run of an Actions job's details URL.
var jobRunRE = regexp.MustCompile(`/actions/runs/([0-9]+)/job/`)

// WorkflowRunID is the ID of the workflow run an Actions job's details URL
// names, "" for any other URL. A check run's suite is its workflow run.
func WorkflowRunID(detailsURL string) string {
	if m := jobRunRE.FindStringSubmatch(detailsURL); m != nil {
		return m[1]
	}
	return ""
}

// CheckRun is the check-run object of a stored run.
func (s Site) CheckRun(r *fixture.Repo, cr *github.CheckRun) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/check-runs/%d", s.URL, r.FullName, cr.GetID())
	out := cr.GetOutput()
	if out == nil {
		out = &github.CheckRunOutput{}
	}
	app := s.App()
	if slug := cr.GetApp().GetSlug(); slug != s.fx.App.Slug {
		// Another App (GitHub Actions): same shape, its own identity.
		id := ID(slug)
		app["id"], app["slug"], app["name"], app["node_id"] = id, slug, slug, NodeID("A", id)
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
		return ISO(t.Time)
	}
	suite := ID(fmt.Sprint(cr.GetApp().GetSlug(), "/", cr.GetHeadSHA()))
	if run := WorkflowRunID(cr.GetDetailsURL()); run != "" {
		suite = ID(run)
	}
	return map[string]any{"id": cr.GetID(), "node_id": NodeID("CR", cr.GetID()), "head_sha": cr.GetHeadSHA(), "name": cr.GetName(),
		"url": api, "html_url": str(cr.HTMLURL), "details_url": str(cr.DetailsURL), "external_id": str(cr.ExternalID),
		"status": cr.GetStatus(), "conclusion": str(cr.Conclusion), "started_at": tsOrNil(cr.StartedAt),
		"completed_at": tsOrNil(cr.CompletedAt), "check_suite": map[string]any{"id": suite}, "app": app, "pull_requests": []any{},
		"output": map[string]any{"title": str(out.Title), "summary": str(out.Summary), "text": str(out.Text),
			"annotations_count": 0, "annotations_url": api + "/annotations"}}
}

// Status is the status object of a stored commit status.
func (s Site) Status(r *fixture.Repo, sha string, st *github.RepoStatus) map[string]any {
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	creator := s.User(st.GetCreator().GetLogin(), st.GetCreator().GetType())
	return map[string]any{"id": st.GetID(), "node_id": NodeID("SC", st.GetID()),
		"url":   fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, r.FullName, sha),
		"state": st.GetState(), "description": str(st.Description), "target_url": str(st.TargetURL), "context": st.GetContext(),
		"avatar_url": creator["avatar_url"], "creator": creator,
		"created_at": ISO(st.GetCreatedAt().Time), "updated_at": ISO(st.GetUpdatedAt().Time)}
}

// WorkflowRun is the workflow-run object; tree is the SHA of its head
// commit's git tree.
func (s Site) WorkflowRun(r *fixture.Repo, run *fixture.WorkflowRun, tree string) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/actions/runs/%d", s.URL, r.FullName, run.ID)
	sha := r.ResolveSHA(run.HeadCommit)
	msg, author := "commit "+run.HeadCommit, "octocat"
	if c := r.FindCommit(run.HeadCommit); c != nil {
		msg = c.Message
		if c.Author != "" {
			author = c.Author
		}
	}
	var concl any
	if run.Conclusion != "" {
		concl = run.Conclusion
	}
	repo := s.MinimalRepo(r.FullName, r.Private)
	wf := ID(run.Path)
	return map[string]any{"id": run.ID, "node_id": NodeID("WFR", run.ID), "name": run.Name, "display_title": run.Name,
		"path": run.Path, "event": run.Event, "status": run.Status, "conclusion": concl, "head_sha": sha, "head_branch": run.HeadBranch,
		"run_number": run.ID % 100000, "run_attempt": run.RunAttempt, "workflow_id": wf, "check_suite_id": ID(fmt.Sprint(run.ID)),
		"url": api, "html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d", r.FullName, run.ID),
		"created_at": ISO(run.CreatedAt), "updated_at": ISO(run.CreatedAt.Add(time.Hour)), "run_started_at": ISO(run.CreatedAt),
		"actor": s.User("octocat", ""), "triggering_actor": s.User("octocat", ""),
		"jobs_url": api + "/jobs", "logs_url": api + "/logs", "check_suite_url": fmt.Sprintf("%s/repos/%s/check-suites/%d", s.URL, r.FullName, ID(fmt.Sprint(run.ID))),
		"artifacts_url": api + "/artifacts", "cancel_url": api + "/cancel", "rerun_url": api + "/rerun",
		"workflow_url": fmt.Sprintf("%s/repos/%s/actions/workflows/%d", s.URL, r.FullName, wf), "pull_requests": []any{},
		"head_commit": map[string]any{"id": sha, "tree_id": tree, "message": msg, "timestamp": ISO(run.CreatedAt),
			"author":    map[string]any{"name": author, "email": author + "@users.noreply.github.com"},
			"committer": map[string]any{"name": author, "email": author + "@users.noreply.github.com"}},
		"repository": repo, "head_repository": repo}
}

// Artifact is the artifact object of a, an artifact of run whose archive
// is size bytes.
func (s Site) Artifact(r *fixture.Repo, a *fixture.Artifact, run *fixture.WorkflowRun, size int64) map[string]any {
	sha := r.ResolveSHA(run.HeadCommit)
	return map[string]any{"id": a.ID, "node_id": NodeID("MDEwOkNoZWNrU3VpdGU", a.ID), "name": a.Name, "size_in_bytes": size,
		"url":                  fmt.Sprintf("%s/repos/%s/actions/artifacts/%d", s.URL, r.FullName, a.ID),
		"archive_download_url": fmt.Sprintf("%s/repos/%s/actions/artifacts/%d/zip", s.URL, r.FullName, a.ID),
		"expired":              a.Expired, "created_at": ISO(run.CreatedAt), "updated_at": ISO(run.CreatedAt),
		"expires_at": ISO(run.CreatedAt.Add(90 * 24 * time.Hour)), "digest": nil,
		"workflow_run": map[string]any{"id": run.ID, "repository_id": ID(r.FullName), "head_repository_id": ID(r.FullName),
			"head_branch": run.HeadBranch, "head_sha": sha}}
}
