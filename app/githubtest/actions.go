package githubtest

import (
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

func init() {
	handle("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", (*Server).listCheckRuns)
	handle("POST", "/repos/{owner}/{repo}/check-runs", (*Server).createCheckRun)
	handle("GET", "/repos/{owner}/{repo}/check-runs/{id}", (*Server).getCheckRun)
	handle("PATCH", "/repos/{owner}/{repo}/check-runs/{id}", (*Server).updateCheckRun)
	handle("POST", "/repos/{owner}/{repo}/statuses/{sha}", (*Server).createStatus)
	handle("GET", "/repos/{owner}/{repo}/commits/{ref}/statuses", (*Server).listStatuses)
	handle("GET", "/repos/{owner}/{repo}/actions/runs/{id}", (*Server).getRun)
	handle("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow}/runs", (*Server).listWorkflowRuns)
	handle("GET", "/repos/{owner}/{repo}/actions/runs/{id}/artifacts", (*Server).listArtifacts)
	handle("GET", "/repos/{owner}/{repo}/actions/artifacts/{id}", (*Server).getArtifact)
	handle("GET", "/repos/{owner}/{repo}/actions/artifacts/{id}/zip", (*Server).downloadArtifact)
	handle("GET", "/_blob/{owner}/{repo}/artifacts/{file}", (*Server).artifactBlob)
}

func (s *Server) checkRunJSON(rs *repoState, sha string, cr *CheckRun) *github.CheckRun {
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
	sha := s.resolveSHA(rs, p["ref"])
	if rs.r.commit(p["ref"]) == nil && !hexSHA.MatchString(p["ref"]) {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+p["ref"])
		return
	}
	q := r.URL.Query()
	runs := rs.checkRuns[sha]
	switch q.Get("filter") {
	case "", "latest":
		runs = latestCheckRuns(runs)
	case "all":
	default:
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: filter must be latest or all")
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
		out = append(out, s.checkRunOut(rs, cr))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "check_runs": out})
}

// jobRunRE finds the workflow run of an Actions job's details URL.
var jobRunRE = regexp.MustCompile(`/actions/runs/([0-9]+)/job/`)

// latestCheckRuns is GitHub's default filter=latest: of the runs of one
// check in one check suite (for Actions, one workflow run, whose re-run
// attempts replace their jobs' runs) only the newest is listed. Newer runs
// have larger IDs.
func latestCheckRuns(runs []*github.CheckRun) []*github.CheckRun {
	key := func(cr *github.CheckRun) string {
		suite := ""
		if m := jobRunRE.FindStringSubmatch(cr.GetDetailsURL()); m != nil {
			suite = m[1]
		}
		return cr.GetApp().GetSlug() + "\x00" + suite + "\x00" + cr.GetName()
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
	if in.Name == nil || in.HeadSHA == nil || !hexSHA.MatchString(*in.HeadSHA) {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: name and a 40-hex head_sha are required")
		return
	}
	if in.Conclusion != nil && (in.Status != nil && *in.Status != "completed") {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: conclusion requires status completed")
		return
	}
	now := s.tick()
	id := s.newID("checkrun")
	cr := &github.CheckRun{ID: github.Int64(id), HeadSHA: in.HeadSHA, Status: github.String("queued"), StartedAt: ts(now),
		App: &github.App{Slug: github.String(s.fx.App.Slug)}, HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/runs/%d", rs.r.FullName, id))}
	s.applyCheckRun(cr, in)
	rs.checkRuns[*in.HeadSHA] = append(rs.checkRuns[*in.HeadSHA], cr)
	writeJSON(w, http.StatusCreated, s.checkRunOut(rs, cr))
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
		writeJSON(w, http.StatusOK, s.checkRunOut(rs, cr))
		return
	}
	writeError(w, http.StatusNotFound, "Not Found")
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
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in checkRunBody
	if !decodeBody(w, r, &in) {
		return
	}
	s.tick()
	s.applyCheckRun(cr, in)
	writeJSON(w, http.StatusOK, s.checkRunOut(rs, cr))
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
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: state is not included in the list")
		return
	}
	if !hexSHA.MatchString(p["sha"]) {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+p["sha"])
		return
	}
	if in.Description != nil && len(*in.Description) > 140 {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: description is too long (maximum is 140 characters)")
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
	writeJSON(w, http.StatusCreated, s.statusOut(rs, p["sha"], st))
}

func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	sha := s.resolveSHA(rs, p["ref"])
	list := rs.statuses[sha]
	out := []map[string]any{}
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, s.statusOut(rs, sha, list[i]))
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	run := rs.runs[p.int64("id")]
	if run == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.runJSON(rs, run))
}

var runStatuses = map[string]bool{"completed": true, "in_progress": true, "queued": true, "requested": true,
	"waiting": true, "pending": true, "action_required": true}

func (s *Server) listWorkflowRuns(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	wf := p["workflow"]
	known := false
	q := r.URL.Query()
	var runs []*WorkflowRun
	for _, run := range rs.r.WorkflowRuns {
		if path.Base(run.Path) != wf && strconv.FormatInt(userID(run.Path), 10) != wf {
			continue
		}
		known = true
		if e := q.Get("event"); e != "" && run.Event != e {
			continue
		}
		if b := q.Get("branch"); b != "" && run.HeadBranch != b {
			continue
		}
		if st := q.Get("status"); st != "" {
			if runStatuses[st] && run.Status != st || !runStatuses[st] && run.Conclusion != st {
				continue
			}
		}
		if h := q.Get("head_sha"); h != "" && s.resolveSHA(rs, run.HeadCommit) != h {
			continue
		}
		runs = append(runs, run)
	}
	if !known {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.After(runs[j].CreatedAt)
		}
		return runs[i].ID > runs[j].ID
	})
	out := []map[string]any{}
	for _, run := range runs {
		out = append(out, s.runJSON(rs, run))
	}
	page := paginate(w, r, out)
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": page})
}

func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	run := rs.runs[p.int64("id")]
	if run == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	name := r.URL.Query().Get("name")
	out := []map[string]any{}
	for _, a := range run.Artifacts {
		if name == "" || a.Name == name {
			out = append(out, s.artifactJSON(rs, a))
		}
	}
	page := paginate(w, r, out)
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(out), "artifacts": page})
}

func (s *Server) getArtifact(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	a := rs.artifacts[p.int64("id")]
	if a == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.artifactJSON(rs, a))
}

func (s *Server) downloadArtifact(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	a := rs.artifacts[p.int64("id")]
	if a == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if a.Expired {
		writeError(w, http.StatusGone, "Artifact has expired")
		return
	}
	// Like GitHub, redirect to a short-lived blob URL that needs no token.
	w.Header().Set("Location", fmt.Sprintf("%s/_blob/%s/artifacts/%d.zip?sig=fake", s.URL, rs.r.FullName, a.ID))
	w.WriteHeader(http.StatusFound)
}

func (s *Server) artifactBlob(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	rs := s.repo(w, p)
	if rs == nil {
		s.mu.Unlock()
		return
	}
	id, _ := strconv.ParseInt(strings.TrimSuffix(p["file"], ".zip"), 10, 64)
	a := rs.artifacts[id]
	s.mu.Unlock()
	if a == nil || a.Expired {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if a.Zip != "" {
		zp := a.Zip
		if !filepath.IsAbs(zp) {
			zp = filepath.Join(s.fx.Dir, filepath.FromSlash(zp))
		}
		f, err := os.Open(zp)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/zip")
		http.ServeContent(w, r, "artifact.zip", time.Time{}, f)
		return
	}
	data, err := s.artifactZip(a)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}
