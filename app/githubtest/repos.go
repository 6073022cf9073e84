package githubtest

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// GitHub's contents API inlines base64 content up to 1 MB. From 1 MB to
// 100 MB it answers the default media type with 403 too_large and serves
// the file only with the raw media type (or, as metadata with encoding
// "none" and no content, the object media type); beyond 100 MB it refuses.
// A directory lists at most 1,000 entries.
const (
	contentsInlineMax = 1 << 20
	contentsRawMax    = 100 << 20
	contentsDirMax    = 1000
)

func init() {
	handle("GET", "/app", (*Server).getApp)
	handle("POST", "/app/installations/{id}/access_tokens", (*Server).createToken)
	handle("GET", "/repos/{owner}/{repo}", (*Server).getRepo)
	handle("GET", "/repos/{owner}/{repo}/installation", (*Server).getRepoInstallation)
	handle("GET", "/repos/{owner}/{repo}/branches/{branch...}", (*Server).getBranch)
	handle("GET", "/repos/{owner}/{repo}/codeowners/errors", (*Server).getCodeownersErrors)
	handle("GET", "/repos/{owner}/{repo}/contents", (*Server).getContents)
	handle("GET", "/repos/{owner}/{repo}/contents/{path...}", (*Server).getContents)
	handle("GET", "/repos/{owner}/{repo}/collaborators/{login}/permission", (*Server).getPermission)
	handle("GET", "/orgs/{org}/teams/{slug}", (*Server).getTeam)
	handle("GET", "/orgs/{org}/teams/{slug}/memberships/{login}", (*Server).getMembership)
}

func (s *Server) getApp(w http.ResponseWriter, r *http.Request, p params) {
	ghjson.Write(w, http.StatusOK, s.site.App())
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, p params) {
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		ghjson.Error(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return
	}
	if p.int64("id") != s.fx.App.InstallationID {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	s.tokens++
	n := s.tokens
	s.mu.Unlock()
	// ghinstallation compares expiry with the wall clock, not the fixture clock.
	ghjson.Write(w, http.StatusCreated, map[string]any{
		"token":      fmt.Sprintf("ghs_fake_%d_%d", s.fx.App.InstallationID, n),
		"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions": map[string]string{"contents": "read", "pull_requests": "write", "issues": "write",
			"actions": "read", "checks": "write", "statuses": "write", "metadata": "read"},
	})
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	// A private repository exists only for those who may read it.
	if id := identityOf(r); rs.r.Private && !id.app {
		if _, ok := rs.r.Collaborators[id.login]; id.login == "" || !ok {
			ghjson.Error(w, http.StatusNotFound, "Not Found")
			return
		}
	}
	ghjson.Write(w, http.StatusOK, s.site.FullRepo(rs.r))
}

func (s *Server) getRepoInstallation(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo(w, p) == nil {
		return
	}
	ghjson.Write(w, http.StatusOK, s.site.Installation())
}

func (s *Server) getBranch(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	ref, ok := rs.r.Branches[p["branch"]]
	if !ok {
		ghjson.Error(w, http.StatusNotFound, "Branch not found")
		return
	}
	c := rs.r.FindCommit(ref)
	api := fmt.Sprintf("%s/repos/%s/branches/%s", s.URL, rs.r.FullName, p["branch"])
	protected := p["branch"] == rs.r.DefaultBranch
	ghjson.Write(w, http.StatusOK, map[string]any{"name": p["branch"], "commit": s.commitJSON(rs, c.SHA, c.Message, c.Date, c.Author),
		"_links":    map[string]any{"self": api, "html": fmt.Sprintf("https://github.com/%s/tree/%s", rs.r.FullName, p["branch"])},
		"protected": protected, "protection": map[string]any{"enabled": protected}, "protection_url": api + "/protection"})
}

func (s *Server) getCodeownersErrors(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	ref := r.URL.Query().Get("ref")
	files, c, ok := s.fx.Files(rs.r, ref)
	if !ok {
		ghjson.Error(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	found := false
	for _, f := range []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"} {
		if _, ok := files[f]; ok {
			found = true
			break
		}
	}
	if !found {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	out := []map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(rs.r.CodeownersErrors)) {
		if rs.r.FindCommit(key) != c {
			continue
		}
		for _, e := range rs.r.CodeownersErrors[key] {
			out = append(out, map[string]any{"line": e.Line, "column": e.Column, "kind": e.Kind, "source": e.Source,
				"message": e.Message, "path": e.Path})
		}
	}
	ghjson.Write(w, http.StatusOK, map[string]any{"errors": out})
}

func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func (s *Server) getContents(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	ref := r.URL.Query().Get("ref")
	files, c, ok := s.fx.Files(rs.r, ref)
	if !ok {
		ghjson.Error(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	fp := strings.Trim(p["path"], "/")
	// entry is one content object, a file or a directory.
	entry := func(typ, p, sha string, size int) map[string]any {
		kind, git := "blob", "blobs"
		if typ == "dir" {
			kind, git = "tree", "trees"
		}
		self := fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.URL, rs.r.FullName, p, c.SHA)
		html := fmt.Sprintf("https://github.com/%s/%s/%s/%s", rs.r.FullName, kind, c.SHA, p)
		gitURL := fmt.Sprintf("%s/repos/%s/git/%s/%s", s.URL, rs.r.FullName, git, sha)
		return map[string]any{"type": typ, "name": path.Base(p), "path": p, "sha": sha, "size": size, "url": self,
			"html_url": html, "git_url": gitURL, "download_url": nil,
			"_links": map[string]any{"self": self, "git": gitURL, "html": html}}
	}
	if data, ok := files[fp]; ok {
		accept := r.Header.Get("Accept")
		raw := strings.Contains(accept, "application/vnd.github.raw") || strings.Contains(accept, "application/vnd.github.v3.raw")
		object := strings.Contains(accept, "application/vnd.github.object")
		switch {
		case len(data) > contentsRawMax:
			writeTooLarge(w, "This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API.")
			return
		case raw:
			w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(http.StatusOK)
			w.Write(data)
			return
		case len(data) > contentsInlineMax && !object:
			writeTooLarge(w, "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.")
			return
		}
		rc := entry("file", fp, fixture.BlobSHA(data), len(data))
		rc["download_url"] = fmt.Sprintf("%s/repos/%s/_raw/%s/%s", s.URL, rs.r.FullName, c.SHA, fp)
		if len(data) <= contentsInlineMax {
			rc["encoding"], rc["content"] = "base64", wrap60(base64.StdEncoding.EncodeToString(data))
		} else {
			rc["encoding"], rc["content"] = "none", ""
		}
		ghjson.Write(w, http.StatusOK, rc)
		return
	}
	// A directory: list its immediate children.
	prefix := fp + "/"
	if fp == "" {
		prefix = ""
	}
	entries := map[string]map[string]any{}
	for fpath, data := range files {
		if !strings.HasPrefix(fpath, prefix) {
			continue
		}
		rest := strings.TrimPrefix(fpath, prefix)
		name, _, isDir := strings.Cut(rest, "/")
		child := prefix + name
		if isDir {
			if entries[name] == nil {
				entries[name] = entry("dir", child, s.subtreeSHA(c.Tree, child), 0)
			}
			continue
		}
		e := entry("file", child, fixture.BlobSHA(data), len(data))
		e["download_url"] = fmt.Sprintf("%s/repos/%s/_raw/%s/%s", s.URL, rs.r.FullName, c.SHA, child)
		entries[name] = e
	}
	if len(entries) == 0 {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	out := make([]map[string]any, 0, len(entries))
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		out = append(out, entries[k])
	}
	ghjson.Write(w, http.StatusOK, out[:min(len(out), contentsDirMax)])
}

func writeTooLarge(w http.ResponseWriter, msg string) {
	ghjson.Write(w, http.StatusForbidden, map[string]any{"message": msg,
		"errors":            []map[string]string{{"resource": "Blob", "field": "data", "code": "too_large"}},
		"documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content"})
}

func (s *Server) getPermission(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(w, p)
	if rs == nil {
		return
	}
	login := p["login"]
	for l, perm := range rs.r.Collaborators {
		if strings.EqualFold(l, login) {
			// role_name is real GitHub output that go-github v62 does not model.
			u := s.site.User(l, "")
			u["role_name"] = perm.RoleName
			u["permissions"] = map[string]bool{"admin": perm.Permission == "admin", "maintain": perm.RoleName == "maintain" || perm.Permission == "admin",
				"push": perm.Permission == "admin" || perm.Permission == "write", "triage": perm.Permission != "read" && perm.Permission != "none",
				"pull": perm.Permission != "none"}
			ghjson.Write(w, http.StatusOK, map[string]any{"permission": perm.Permission, "role_name": perm.RoleName, "user": u})
			return
		}
	}
	ghjson.Error(w, http.StatusNotFound, login+" is not a user")
}

func (s *Server) getTeam(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.fx.Teams {
		if !strings.EqualFold(t.Org, p["org"]) || !strings.EqualFold(t.Slug, p["slug"]) {
			continue
		}
		if t.Forbidden {
			ghjson.Error(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		ghjson.Write(w, http.StatusOK, s.site.Team(t))
		return
	}
	ghjson.Error(w, http.StatusNotFound, "Not Found")
}

func (s *Server) getMembership(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.fx.Teams {
		if !strings.EqualFold(t.Org, p["org"]) || !strings.EqualFold(t.Slug, p["slug"]) {
			continue
		}
		if t.Forbidden {
			ghjson.Error(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		for l, st := range t.Members {
			if strings.EqualFold(l, p["login"]) {
				ghjson.Write(w, http.StatusOK, map[string]any{"state": st, "role": "member",
					"url": fmt.Sprintf("%s/orgs/%s/teams/%s/memberships/%s", s.URL, t.Org, t.Slug, l)})
				return
			}
		}
	}
	ghjson.Error(w, http.StatusNotFound, "Not Found")
}
