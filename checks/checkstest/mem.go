// Package checkstest provides an in-memory checks.Source for unit tests of
// individual checks. End-to-end tests use the fake GitHub server in
// app/githubtest instead, so that the production client code runs.
package checkstest

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/verdict-bot/verdict/checks"
)

// Source is a checks.Source backed by maps. Zero values answer "not found"
// or empty lists. It is safe for concurrent use once populated.
type Source struct {
	mu sync.Mutex

	ChangedFiles  []checks.ChangedFile
	CommitList    checks.CommitList
	IssueComments []checks.Comment
	// Trees maps ref → path → content.
	Trees        map[string]map[string]string
	OwnersErrs   map[string][]checks.CodeownersError
	Runs         map[string][]checks.CheckRun // by commit SHA
	Workflow     map[int64]checks.WorkflowRun
	RunList      []checks.WorkflowRun // newest first
	RunArtifacts map[int64][]checks.Artifact
	// ArtifactData maps artifact ID → entry name → content.
	ArtifactData  map[int64]map[string]string
	Perms         map[string]checks.Permission
	Teams         map[string]checks.Membership // "org/slug/login"
	Upstream      map[string]checks.UpstreamPR // "owner/repo#n"
	UpstreamFiles map[string][]checks.ChangedFile
	Pages         map[string]checks.Page

	// Calls counts calls per method name.
	Calls map[string]int
}

func (s *Source) count(m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Calls == nil {
		s.Calls = map[string]int{}
	}
	s.Calls[m]++
}

func nf(what string) error { return fmt.Errorf("%s: %w", what, checks.ErrNotFound) }

// SetFile stores content at ref/path.
func (s *Source) SetFile(ref, p, content string) {
	if s.Trees == nil {
		s.Trees = map[string]map[string]string{}
	}
	if s.Trees[ref] == nil {
		s.Trees[ref] = map[string]string{}
	}
	s.Trees[ref][p] = content
}

func (s *Source) Files(ctx context.Context) ([]checks.ChangedFile, error) {
	s.count("Files")
	return s.ChangedFiles, nil
}

func (s *Source) Commits(ctx context.Context) (checks.CommitList, error) {
	s.count("Commits")
	return s.CommitList, nil
}

func (s *Source) Comments(ctx context.Context) ([]checks.Comment, error) {
	s.count("Comments")
	return s.IssueComments, nil
}

func (s *Source) ReadFile(ctx context.Context, ref, p string) ([]byte, error) {
	s.count("ReadFile")
	if c, ok := s.Trees[ref][p]; ok {
		return []byte(c), nil
	}
	return nil, nf(p + "@" + ref)
}

func (s *Source) ListDir(ctx context.Context, ref, dir string) ([]checks.DirEntry, error) {
	s.count("ListDir")
	dir = strings.TrimSuffix(dir, "/")
	seen := map[string]checks.DirEntry{}
	for p := range s.Trees[ref] {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		rest := strings.TrimPrefix(p, dir+"/")
		name, _, isDir := strings.Cut(rest, "/")
		e := checks.DirEntry{Name: name, Path: path.Join(dir, name), Type: "file"}
		if isDir {
			e.Type = "dir"
		}
		seen[name] = e
	}
	if len(seen) == 0 {
		return nil, nf(dir + "@" + ref)
	}
	out := make([]checks.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *Source) CodeownersErrors(ctx context.Context, ref string) ([]checks.CodeownersError, error) {
	s.count("CodeownersErrors")
	return s.OwnersErrs[ref], nil
}

func (s *Source) CheckRuns(ctx context.Context, sha string) ([]checks.CheckRun, error) {
	s.count("CheckRuns")
	return s.Runs[sha], nil
}

func (s *Source) WorkflowRun(ctx context.Context, id int64) (checks.WorkflowRun, error) {
	s.count("WorkflowRun")
	r, ok := s.Workflow[id]
	if !ok {
		return r, nf(fmt.Sprintf("run %d", id))
	}
	return r, nil
}

func (s *Source) WorkflowRuns(ctx context.Context, wf string, q checks.RunQuery) ([]checks.WorkflowRun, error) {
	s.count("WorkflowRuns")
	var out []checks.WorkflowRun
	for _, r := range s.RunList {
		if (q.Event == "" || r.Event == q.Event) && (q.Branch == "" || r.HeadBranch == q.Branch) && (q.Status == "" || r.Status == q.Status) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *Source) Artifacts(ctx context.Context, runID int64) ([]checks.Artifact, error) {
	s.count("Artifacts")
	return s.RunArtifacts[runID], nil
}

func (s *Source) ArtifactFiles(ctx context.Context, a checks.Artifact, want func(string) bool) ([]checks.ArtifactFile, error) {
	s.count("ArtifactFiles")
	if a.Expired {
		return nil, fmt.Errorf("artifact %s: %w", a.Name, checks.ErrExpired)
	}
	data, ok := s.ArtifactData[a.ID]
	if !ok {
		return nil, nf("artifact " + a.Name)
	}
	var out []checks.ArtifactFile
	for name, c := range data {
		if want == nil || want(name) {
			out = append(out, checks.ArtifactFile{Name: name, Data: []byte(c)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *Source) Permission(ctx context.Context, login string) (checks.Permission, error) {
	s.count("Permission")
	p, ok := s.Perms[strings.ToLower(login)]
	if !ok {
		return checks.Permission{Permission: "none"}, nil
	}
	return p, nil
}

func (s *Source) TeamMember(ctx context.Context, org, slug, login string) (checks.Membership, error) {
	s.count("TeamMember")
	return s.Teams[strings.ToLower(org+"/"+slug+"/"+login)], nil
}

func (s *Source) UpstreamPR(ctx context.Context, owner, repo string, n int) (checks.UpstreamPR, error) {
	s.count("UpstreamPR")
	p, ok := s.Upstream[fmt.Sprintf("%s/%s#%d", owner, repo, n)]
	if !ok {
		return p, nf(fmt.Sprintf("%s/%s#%d", owner, repo, n))
	}
	return p, nil
}

func (s *Source) UpstreamPRFiles(ctx context.Context, owner, repo string, n int) ([]checks.ChangedFile, error) {
	s.count("UpstreamPRFiles")
	f, ok := s.UpstreamFiles[fmt.Sprintf("%s/%s#%d", owner, repo, n)]
	if !ok {
		return nil, nf(fmt.Sprintf("%s/%s#%d files", owner, repo, n))
	}
	return f, nil
}

func (s *Source) FetchPage(ctx context.Context, url string) (checks.Page, error) {
	s.count("FetchPage")
	p, ok := s.Pages[url]
	if !ok {
		return checks.Page{URL: url, StatusCode: 404}, nf(url)
	}
	return p, nil
}

var _ checks.Source = (*Source)(nil)
