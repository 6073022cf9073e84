package localverify

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/verdict-bot/verdict/checks"
)

// rowKey tags the context of a running check with its row number, so the
// tracking Source can tell which row asked for what.
type rowKey struct{}

// tracker is the Source the checks see: the git-backed one, noting per row
// every request refused as unavailable (GitHub-only evidence). A request
// made outside any row (the scope gate) is noted under -1.
type tracker struct {
	checks.Source
	mu   sync.Mutex
	used map[int]map[string]error
	// passedAnyway are the rows that passed although they were refused
	// evidence (and were then made "could not be verified").
	passedAnyway map[int]bool
}

func newTracker(src checks.Source) *tracker {
	return &tracker{Source: src, used: map[int]map[string]error{}, passedAnyway: map[int]bool{}}
}

func (t *tracker) downgrade(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.passedAnyway[n] = true
}

func (t *tracker) note(ctx context.Context, method string, err error) {
	if !errors.Is(err, checks.ErrUnavailable) {
		return
	}
	n, ok := ctx.Value(rowKey{}).(int)
	if !ok {
		n = -1
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used[n] == nil {
		t.used[n] = map[string]error{}
	}
	if _, dup := t.used[n][method]; !dup {
		t.used[n][method] = err
	}
}

// refused returns the methods row n was refused, sorted, with the first
// error of each.
func (t *tracker) refused(n int) ([]string, []error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ms []string
	for m := range t.used[n] {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	errs := make([]error, len(ms))
	for i, m := range ms {
		errs[i] = t.used[n][m]
	}
	return ms, errs
}

func (t *tracker) Comments(ctx context.Context) ([]checks.Comment, error) {
	v, err := t.Source.Comments(ctx)
	t.note(ctx, "Comments", err)
	return v, err
}

func (t *tracker) CodeownersErrors(ctx context.Context, ref string) ([]checks.CodeownersError, error) {
	v, err := t.Source.CodeownersErrors(ctx, ref)
	t.note(ctx, "CodeownersErrors", err)
	return v, err
}

func (t *tracker) CheckRuns(ctx context.Context, sha string) ([]checks.CheckRun, error) {
	v, err := t.Source.CheckRuns(ctx, sha)
	t.note(ctx, "CheckRuns", err)
	return v, err
}

func (t *tracker) CommitsWithChecks(ctx context.Context, shas []string) (map[string]bool, error) {
	v, err := t.Source.CommitsWithChecks(ctx, shas)
	t.note(ctx, "CommitsWithChecks", err)
	return v, err
}

func (t *tracker) WorkflowRun(ctx context.Context, id int64) (checks.WorkflowRun, error) {
	v, err := t.Source.WorkflowRun(ctx, id)
	t.note(ctx, "WorkflowRun", err)
	return v, err
}

func (t *tracker) WorkflowRuns(ctx context.Context, f string, q checks.RunQuery) ([]checks.WorkflowRun, error) {
	v, err := t.Source.WorkflowRuns(ctx, f, q)
	t.note(ctx, "WorkflowRuns", err)
	return v, err
}

func (t *tracker) Artifacts(ctx context.Context, id int64) ([]checks.Artifact, error) {
	v, err := t.Source.Artifacts(ctx, id)
	t.note(ctx, "Artifacts", err)
	return v, err
}

func (t *tracker) ArtifactFiles(ctx context.Context, a checks.Artifact, want func(string) bool) ([]checks.ArtifactFile, error) {
	v, err := t.Source.ArtifactFiles(ctx, a, want)
	t.note(ctx, "ArtifactFiles", err)
	return v, err
}

func (t *tracker) Permission(ctx context.Context, login string) (checks.Permission, error) {
	v, err := t.Source.Permission(ctx, login)
	t.note(ctx, "Permission", err)
	return v, err
}

func (t *tracker) TeamMember(ctx context.Context, org, slug, login string) (checks.Membership, error) {
	v, err := t.Source.TeamMember(ctx, org, slug, login)
	t.note(ctx, "TeamMember", err)
	return v, err
}

func (t *tracker) UpstreamPR(ctx context.Context, owner, repo string, n int) (checks.UpstreamPR, error) {
	v, err := t.Source.UpstreamPR(ctx, owner, repo, n)
	t.note(ctx, "UpstreamPR", err)
	return v, err
}

func (t *tracker) UpstreamPRFiles(ctx context.Context, owner, repo string, n int) ([]checks.ChangedFile, error) {
	v, err := t.Source.UpstreamPRFiles(ctx, owner, repo, n)
	t.note(ctx, "UpstreamPRFiles", err)
	return v, err
}

func (t *tracker) Issue(ctx context.Context, owner, repo string, n int) (checks.Issue, error) {
	v, err := t.Source.Issue(ctx, owner, repo, n)
	t.note(ctx, "Issue", err)
	return v, err
}

func (t *tracker) FetchPage(ctx context.Context, url string) (checks.Page, error) {
	v, err := t.Source.FetchPage(ctx, url)
	t.note(ctx, "FetchPage", err)
	return v, err
}
