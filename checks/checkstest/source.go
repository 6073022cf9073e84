// Package checkstest is what the checks' unit tests share: an in-memory
// checks.Source, a builder for the PR under test and a runner that puts
// checks through the real checks.Run. End-to-end tests use the fake GitHub
// server in app/githubtest instead, so that the production client code runs.
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

// Source is a checks.Source backed by values and maps, in the style of
// policy-bot's pulltest: each method answers from its Value (or map) field,
// unless its Error field is set, which it then returns instead. Zero values
// answer "not found" or empty lists. It is safe for concurrent use once
// populated.
type Source struct {
	mu sync.Mutex

	FilesValue    []checks.ChangedFile
	FilesError    error
	CommitsValue  checks.CommitList
	CommitsError  error
	CommentsValue []checks.Comment
	CommentsError error
	// Trees maps ref → path → content, for ReadFile and ListDir.
	Trees         map[string]map[string]string
	ReadFileError error
	ListDirError  error
	// PathErrors fail ReadFile and ListDir of one path (at every ref) with
	// its error, as when one file of a tree is unreadable.
	PathErrors             map[string]error
	OwnersErrs             map[string][]checks.CodeownersError // by ref
	CodeownersErrorsError  error
	Runs                   map[string][]checks.CheckRun // by commit SHA
	CheckRunsError         error
	CommitsWithChecksError error
	Workflow               map[int64]checks.WorkflowRun
	WorkflowRunError       error
	RunList                []checks.WorkflowRun // newest first
	WorkflowRunsError      error
	RunArtifacts           map[int64][]checks.Artifact
	ArtifactsError         error
	// ArtifactData maps artifact ID → entry name → content.
	ArtifactData         map[int64]map[string]string
	ArtifactFilesError   error
	Perms                map[string]checks.Permission
	PermissionError      error
	Teams                map[string]checks.Membership // "org/slug/login"
	TeamMemberError      error
	Upstream             map[string]checks.UpstreamPR // "owner/repo#n"
	UpstreamPRError      error
	UpstreamFiles        map[string][]checks.ChangedFile
	UpstreamPRFilesError error
	Pages                map[string]checks.Page
	FetchPageError       error
	// Issues are issues and pull requests by "owner/repo#n". A number
	// missing here that Upstream holds answers as that pull request, as
	// GitHub's issues endpoint answers for every pull request.
	Issues     map[string]checks.Issue
	IssueError error

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

// answer counts a call of method and returns err when it is set, else what
// value reads.
func answer[T any](s *Source, method string, err error, value func() (T, error)) (T, error) {
	s.count(method)
	if err != nil {
		var zero T
		return zero, err
	}
	return value()
}

func (s *Source) Files(ctx context.Context) ([]checks.ChangedFile, error) {
	return answer(s, "Files", s.FilesError, func() ([]checks.ChangedFile, error) { return s.FilesValue, nil })
}

func (s *Source) Commits(ctx context.Context) (checks.CommitList, error) {
	return answer(s, "Commits", s.CommitsError, func() (checks.CommitList, error) { return s.CommitsValue, nil })
}

func (s *Source) Comments(ctx context.Context) ([]checks.Comment, error) {
	return answer(s, "Comments", s.CommentsError, func() ([]checks.Comment, error) { return s.CommentsValue, nil })
}

func (s *Source) ReadFile(ctx context.Context, ref, p string) ([]byte, error) {
	return answer(s, "ReadFile", s.pathError(s.ReadFileError, p), func() ([]byte, error) {
		if c, ok := s.Trees[ref][p]; ok {
			return []byte(c), nil
		}
		return nil, nf(p + "@" + ref)
	})
}

func (s *Source) ListDir(ctx context.Context, ref, dir string) ([]checks.DirEntry, error) {
	return answer(s, "ListDir", s.pathError(s.ListDirError, strings.TrimSuffix(dir, "/")), func() ([]checks.DirEntry, error) { return s.listDir(ref, dir) })
}

// pathError is err, else the error PathErrors holds for p.
func (s *Source) pathError(err error, p string) error {
	if err != nil {
		return err
	}
	return s.PathErrors[p]
}

func (s *Source) listDir(ref, dir string) ([]checks.DirEntry, error) {
	dir = strings.Trim(dir, "/")
	prefix := dir + "/"
	if dir == "" {
		prefix = "" // the root
	}
	seen := map[string]checks.DirEntry{}
	for p := range s.Trees[ref] {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rest := strings.TrimPrefix(p, prefix)
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
	return answer(s, "CodeownersErrors", s.CodeownersErrorsError, func() ([]checks.CodeownersError, error) { return s.OwnersErrs[ref], nil })
}

func (s *Source) CheckRuns(ctx context.Context, sha string) ([]checks.CheckRun, error) {
	return answer(s, "CheckRuns", s.CheckRunsError, func() ([]checks.CheckRun, error) { return s.Runs[sha], nil })
}

// CommitsWithChecks answers from Runs: a commit has checks when it has
// runs there.
func (s *Source) CommitsWithChecks(ctx context.Context, shas []string) (map[string]bool, error) {
	return answer(s, "CommitsWithChecks", s.CommitsWithChecksError, func() (map[string]bool, error) {
		out := map[string]bool{}
		for _, sha := range shas {
			out[sha] = len(s.Runs[sha]) > 0
		}
		return out, nil
	})
}

func (s *Source) WorkflowRun(ctx context.Context, id int64) (checks.WorkflowRun, error) {
	return answer(s, "WorkflowRun", s.WorkflowRunError, func() (checks.WorkflowRun, error) {
		r, ok := s.Workflow[id]
		if !ok {
			return r, nf(fmt.Sprintf("run %d", id))
		}
		return r, nil
	})
}

func (s *Source) WorkflowRuns(ctx context.Context, wf string, q checks.RunQuery) ([]checks.WorkflowRun, error) {
	return answer(s, "WorkflowRuns", s.WorkflowRunsError, func() ([]checks.WorkflowRun, error) {
		var out []checks.WorkflowRun
		for _, r := range s.RunList {
			if (q.Event == "" || r.Event == q.Event) && (q.Branch == "" || r.HeadBranch == q.Branch) && (q.Status == "" || r.Status == q.Status) {
				out = append(out, r)
			}
		}
		return out, nil
	})
}

func (s *Source) Artifacts(ctx context.Context, runID int64) ([]checks.Artifact, error) {
	return answer(s, "Artifacts", s.ArtifactsError, func() ([]checks.Artifact, error) { return s.RunArtifacts[runID], nil })
}

func (s *Source) ArtifactFiles(ctx context.Context, a checks.Artifact, want func(string) bool) ([]checks.ArtifactFile, error) {
	return answer(s, "ArtifactFiles", s.ArtifactFilesError, func() ([]checks.ArtifactFile, error) {
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
	})
}

func (s *Source) Permission(ctx context.Context, login string) (checks.Permission, error) {
	return answer(s, "Permission", s.PermissionError, func() (checks.Permission, error) {
		p, ok := s.Perms[strings.ToLower(login)]
		if !ok {
			return checks.Permission{Permission: "none"}, nil
		}
		return p, nil
	})
}

func (s *Source) TeamMember(ctx context.Context, org, slug, login string) (checks.Membership, error) {
	return answer(s, "TeamMember", s.TeamMemberError, func() (checks.Membership, error) {
		return s.Teams[strings.ToLower(org+"/"+slug+"/"+login)], nil
	})
}

func (s *Source) UpstreamPR(ctx context.Context, owner, repo string, n int) (checks.UpstreamPR, error) {
	return answer(s, "UpstreamPR", s.UpstreamPRError, func() (checks.UpstreamPR, error) {
		p, ok := s.Upstream[fmt.Sprintf("%s/%s#%d", owner, repo, n)]
		if !ok {
			return p, nf(fmt.Sprintf("%s/%s#%d", owner, repo, n))
		}
		return p, nil
	})
}

func (s *Source) UpstreamPRFiles(ctx context.Context, owner, repo string, n int) ([]checks.ChangedFile, error) {
	return answer(s, "UpstreamPRFiles", s.UpstreamPRFilesError, func() ([]checks.ChangedFile, error) {
		f, ok := s.UpstreamFiles[fmt.Sprintf("%s/%s#%d", owner, repo, n)]
		if !ok {
			return nil, nf(fmt.Sprintf("%s/%s#%d files", owner, repo, n))
		}
		return f, nil
	})
}

func (s *Source) Issue(ctx context.Context, owner, repo string, n int) (checks.Issue, error) {
	return answer(s, "Issue", s.IssueError, func() (checks.Issue, error) {
		key := fmt.Sprintf("%s/%s#%d", owner, repo, n)
		if is, ok := s.Issues[key]; ok {
			return is, nil
		}
		if p, ok := s.Upstream[key]; ok {
			return checks.Issue{Owner: owner, Repo: repo, Number: n, PullRequest: true, State: p.State, HTMLURL: p.HTMLURL, Title: p.Title}, nil
		}
		return checks.Issue{}, nf(key)
	})
}

func (s *Source) FetchPage(ctx context.Context, url string) (checks.Page, error) {
	return answer(s, "FetchPage", s.FetchPageError, func() (checks.Page, error) {
		p, ok := s.Pages[url]
		if !ok {
			return checks.Page{URL: url, StatusCode: 404}, nf(url)
		}
		return p, nil
	})
}

var _ checks.Source = (*Source)(nil)
