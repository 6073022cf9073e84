package githubtest

import (
	"fmt"
	"net/http"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// Actions: workflow runs, their artifacts, and the archives GitHub redirects
// an artifact download to.

func init() {
	handle("GET", "/repos/{owner}/{repo}/actions/runs/{id}", (*Server).getRun)
	handle("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow}/runs", (*Server).listWorkflowRuns)
	handle("GET", "/repos/{owner}/{repo}/actions/runs/{id}/artifacts", (*Server).listArtifacts)
	handle("GET", "/repos/{owner}/{repo}/actions/artifacts/{id}", (*Server).getArtifact)
	handle("GET", "/repos/{owner}/{repo}/actions/artifacts/{id}/zip", (*Server).downloadArtifact)
	handle("GET", "/_blob/{owner}/{repo}/artifacts/{file}", (*Server).artifactBlob)
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
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	ghjson.Write(w, http.StatusOK, s.runJSON(rs, run))
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
	var runs []*fixture.WorkflowRun
	for _, run := range rs.r.WorkflowRuns {
		if path.Base(run.Path) != wf && strconv.FormatInt(ghjson.ID(run.Path), 10) != wf {
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
		if h := q.Get("head_sha"); h != "" && rs.r.ResolveSHA(run.HeadCommit) != h {
			continue
		}
		runs = append(runs, run)
	}
	if !known {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
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
	ghjson.Write(w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": page})
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
		ghjson.Error(w, http.StatusNotFound, "Not Found")
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
	ghjson.Write(w, http.StatusOK, map[string]any{"total_count": len(out), "artifacts": page})
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
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	ghjson.Write(w, http.StatusOK, s.artifactJSON(rs, a))
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
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	if a.Expired {
		ghjson.Error(w, http.StatusGone, "Artifact has expired")
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
	if zp := s.fx.ZipPath(a); zp != "" {
		f, err := os.Open(zp)
		if err != nil {
			ghjson.Error(w, http.StatusInternalServerError, err.Error())
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/zip")
		http.ServeContent(w, r, "artifact.zip", time.Time{}, f)
		return
	}
	data, err := s.artifactZip(a)
	if err != nil {
		ghjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

// artifactZip returns the artifact's archive, building and caching it.
func (s *Server) artifactZip(a *fixture.Artifact) ([]byte, error) {
	s.zipMu.Lock()
	defer s.zipMu.Unlock()
	if b, ok := s.zips[a.ID]; ok {
		return b, nil
	}
	b, err := s.fx.BuildZip(a)
	if err != nil {
		return nil, err
	}
	s.zips[a.ID] = b
	return b, nil
}

// artifactSize is the archive size advertised in size_in_bytes.
func (s *Server) artifactSize(a *fixture.Artifact) int64 {
	if zp := s.fx.ZipPath(a); zp != "" {
		if st, err := os.Stat(zp); err == nil {
			return st.Size()
		}
		return 0
	}
	b, err := s.artifactZip(a)
	if err != nil {
		return 0
	}
	return int64(len(b))
}
