package githubtest

import (
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

func init() {
	handle("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", (*Server).listCheckRuns)
	handle("POST", "/repos/{owner}/{repo}/check-runs", (*Server).createCheckRun)
	handle("GET", "/repos/{owner}/{repo}/check-runs/{id}", (*Server).getCheckRun)
	handle("PATCH", "/repos/{owner}/{repo}/check-runs/{id}", (*Server).updateCheckRun)
	handle("POST", "/repos/{owner}/{repo}/statuses/{sha}", (*Server).createStatus)
	handle("GET", "/repos/{owner}/{repo}/commits/{ref}/statuses", (*Server).listStatuses)
}

func (s *Server) checkRunJSON(rs *repoState, sha string, cr *fixture.CheckRun) *github.CheckRun {
	out := &github.CheckRun{ID: github.Int64(cr.ID), Name: github.String(cr.Name), HeadSHA: github.String(sha),
		Status: github.String(cr.Status), StartedAt: ts(cr.StartedAt), CompletedAt: ts(cr.CompletedAt),
		DetailsURL: github.String(cr.DetailsURL), App: &github.App{Slug: github.String(cr.AppSlug)},
		HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/runs/%d", rs.r.FullName, cr.ID))}
	if cr.Conclusion != "" {
		out.Conclusion = github.String(cr.Conclusion)
	}
	return out
}

func (s *Server) listCheckRuns(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	sha := rs.r.ResolveSHA(p["ref"])
	if rs.r.FindCommit(p["ref"]) == nil && !fixture.IsSHA(p["ref"]) {
		ghjson.Error(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+p["ref"])
		return
	}
	q := r.URL.Query()
	runs := rs.checkRuns[sha]
	switch q.Get("filter") {
	case "", "latest":
		runs = latestCheckRuns(runs)
	case "all":
	default:
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: filter must be latest or all")
		return
	}
	all := []*github.CheckRun{}
	for _, cr := range runs {
		if n := q.Get("check_name"); n != "" && cr.GetName() != n {
			continue
		}
		if st := q.Get("status"); st != "" && cr.GetStatus() != st {
			continue
		}
		all = append(all, cr)
	}
	out := []map[string]any{}
	for _, cr := range paginate(w, r, all) {
		out = append(out, s.site.CheckRun(rs.r, cr))
	}
	ghjson.Write(w, http.StatusOK, map[string]any{"total_count": len(all), "check_runs": out})
}

// latestCheckRuns is GitHub's default filter=latest: of the runs of one
// check in one check suite (for Actions, one workflow run, whose re-run
// attempts replace their jobs' runs) only the newest is listed. Newer runs
// have larger IDs.
func latestCheckRuns(runs []*github.CheckRun) []*github.CheckRun {
	key := func(cr *github.CheckRun) string {
		return cr.GetApp().GetSlug() + "\x00" + ghjson.WorkflowRunID(cr.GetDetailsURL()) + "\x00" + cr.GetName()
	}
	newest := map[string]int64{}
	for _, cr := range runs {
		if k := key(cr); cr.GetID() > newest[k] {
			newest[k] = cr.GetID()
		}
	}
	var out []*github.CheckRun
	for _, cr := range runs {
		if newest[key(cr)] == cr.GetID() {
			out = append(out, cr)
		}
	}
	return out
}

type checkRunBody struct {
	Name        *string                `json:"name"`
	HeadSHA     *string                `json:"head_sha"`
	DetailsURL  *string                `json:"details_url"`
	ExternalID  *string                `json:"external_id"`
	Status      *string                `json:"status"`
	Conclusion  *string                `json:"conclusion"`
	StartedAt   *github.Timestamp      `json:"started_at"`
	CompletedAt *github.Timestamp      `json:"completed_at"`
	Output      *github.CheckRunOutput `json:"output"`
}

func (s *Server) applyCheckRun(cr *github.CheckRun, in checkRunBody) {
	if in.Name != nil {
		cr.Name = in.Name
	}
	if in.DetailsURL != nil {
		cr.DetailsURL = in.DetailsURL
	}
	if in.ExternalID != nil {
		cr.ExternalID = in.ExternalID
	}
	if in.Status != nil {
		cr.Status = in.Status
	}
	if in.Conclusion != nil {
		cr.Conclusion = in.Conclusion
		cr.Status = github.String("completed")
	}
	if in.StartedAt != nil {
		cr.StartedAt = in.StartedAt
	}
	if in.CompletedAt != nil {
		cr.CompletedAt = in.CompletedAt
	}
	if in.Output != nil {
		cr.Output = in.Output
	}
	if cr.GetStatus() == "completed" && cr.CompletedAt == nil {
		cr.CompletedAt = ts(s.clock)
	}
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request, p params) {
	if !requireApp(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	var in checkRunBody
	if !decodeBody(w, r, &in) {
		return
	}
	if in.Name == nil || in.HeadSHA == nil || !fixture.IsSHA(*in.HeadSHA) {
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: name and a 40-hex head_sha are required")
		return
	}
	if in.Conclusion != nil && (in.Status != nil && *in.Status != "completed") {
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: conclusion requires status completed")
		return
	}
	now := s.tick()
	id := s.newID("checkrun")
	cr := &github.CheckRun{ID: github.Int64(id), HeadSHA: in.HeadSHA, Status: github.String("queued"), StartedAt: ts(now),
		App: &github.App{Slug: github.String(s.fx.App.Slug)}, HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/runs/%d", rs.r.FullName, id))}
	s.applyCheckRun(cr, in)
	rs.checkRuns[*in.HeadSHA] = append(rs.checkRuns[*in.HeadSHA], cr)
	ghjson.Write(w, http.StatusCreated, s.site.CheckRun(rs.r, cr))
}

func (s *Server) findCheckRun(rs *repoState, id int64) *github.CheckRun {
	for _, list := range rs.checkRuns {
		for _, cr := range list {
			if cr.GetID() == id {
				return cr
			}
		}
	}
	return nil
}

func (s *Server) getCheckRun(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	if cr := s.findCheckRun(rs, p.int64("id")); cr != nil {
		ghjson.Write(w, http.StatusOK, s.site.CheckRun(rs.r, cr))
		return
	}
	ghjson.Error(w, http.StatusNotFound, "Not Found")
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request, p params) {
	if !requireApp(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	cr := s.findCheckRun(rs, p.int64("id"))
	if cr == nil {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	var in checkRunBody
	if !decodeBody(w, r, &in) {
		return
	}
	s.tick()
	s.applyCheckRun(cr, in)
	ghjson.Write(w, http.StatusOK, s.site.CheckRun(rs.r, cr))
}

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	var in struct {
		State       string  `json:"state"`
		TargetURL   *string `json:"target_url"`
		Description *string `json:"description"`
		Context     *string `json:"context"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	switch in.State {
	case "error", "failure", "pending", "success":
	default:
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: state is not included in the list")
		return
	}
	if !fixture.IsSHA(p["sha"]) {
		ghjson.Error(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+p["sha"])
		return
	}
	if in.Description != nil && len(*in.Description) > 140 {
		ghjson.Error(w, http.StatusUnprocessableEntity, "Validation Failed: description is too long (maximum is 140 characters)")
		return
	}
	ctx := "default"
	if in.Context != nil {
		ctx = *in.Context
	}
	now := s.tick()
	st := &github.RepoStatus{ID: github.Int64(s.newID("status")), State: github.String(in.State), TargetURL: in.TargetURL,
		Description: in.Description, Context: github.String(ctx), CreatedAt: ts(now), UpdatedAt: ts(now), Creator: ghUser(actor(r))}
	rs.statuses[p["sha"]] = append(rs.statuses[p["sha"]], st)
	ghjson.Write(w, http.StatusCreated, s.site.Status(rs.r, p["sha"], st))
}

func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	sha := rs.r.ResolveSHA(p["ref"])
	list := rs.statuses[sha]
	out := []map[string]any{}
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, s.site.Status(rs.r, sha, list[i]))
	}
	ghjson.Write(w, http.StatusOK, paginate(w, r, out))
}
