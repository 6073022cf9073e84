package ghsource

import (
	"context"
	"fmt"
	"net/url"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/checks"
)

// CheckRuns lists the latest check run per name on a commit.
func (s *Source) CheckRuns(ctx context.Context, sha string) ([]checks.CheckRun, error) {
	return do(s, "check-runs\x00"+sha, func() ([]checks.CheckRun, error) {
		var out []checks.CheckRun
		opt := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100, Page: 1}}
		for {
			res, resp, err := s.gh.Checks.ListCheckRunsForRef(ctx, s.owner, s.repo, sha, opt)
			if err != nil {
				return nil, apiErr(fmt.Sprintf("%s/%s: listing check runs on %s", s.owner, s.repo, short(sha)), resp, err)
			}
			for _, c := range res.CheckRuns {
				out = append(out, checks.CheckRun{ID: c.GetID(), Name: c.GetName(), Status: c.GetStatus(), Conclusion: c.GetConclusion(),
					StartedAt: c.GetStartedAt().Time, CompletedAt: c.GetCompletedAt().Time, DetailsURL: c.GetDetailsURL(), HTMLURL: c.GetHTMLURL()})
			}
			if resp.NextPage == 0 {
				return out, nil
			}
			opt.Page = resp.NextPage
		}
	})
}

// workflowRun adds the fields go-github v62 does not decode.
type workflowRun struct {
	github.WorkflowRun
	Path string `json:"path"`
}

func convertRun(r *workflowRun) checks.WorkflowRun {
	return checks.WorkflowRun{ID: r.GetID(), Name: r.GetName(), Path: r.Path, Event: r.GetEvent(), Status: r.GetStatus(),
		Conclusion: r.GetConclusion(), HeadSHA: r.GetHeadSHA(), HeadBranch: r.GetHeadBranch(), HTMLURL: r.GetHTMLURL(),
		CreatedAt: r.GetCreatedAt().Time, RunAttempt: r.GetRunAttempt()}
}

// WorkflowRun reads one Actions run of this repository.
func (s *Source) WorkflowRun(ctx context.Context, id int64) (checks.WorkflowRun, error) {
	return do(s, fmt.Sprintf("run\x00%d", id), func() (checks.WorkflowRun, error) {
		req, err := s.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/actions/runs/%d", s.owner, s.repo, id), nil)
		if err != nil {
			return checks.WorkflowRun{}, err
		}
		var r workflowRun
		resp, err := s.gh.Do(ctx, req, &r)
		if err != nil {
			return checks.WorkflowRun{}, apiErr(fmt.Sprintf("%s/%s: reading run %d", s.owner, s.repo, id), resp, err)
		}
		return convertRun(&r), nil
	})
}

// WorkflowRuns lists runs of a workflow file, newest first, up to
// Options.MaxWorkflowRuns.
func (s *Source) WorkflowRuns(ctx context.Context, workflowFile string, q checks.RunQuery) ([]checks.WorkflowRun, error) {
	key := "runs\x00" + workflowFile + "\x00" + q.Event + "\x00" + q.Branch + "\x00" + q.Status
	return do(s, key, func() ([]checks.WorkflowRun, error) {
		v := url.Values{}
		for k, val := range map[string]string{"event": q.Event, "branch": q.Branch, "status": q.Status} {
			if val != "" {
				v.Set(k, val)
			}
		}
		var out []checks.WorkflowRun
		page := 1
		for {
			v.Set("per_page", "100")
			v.Set("page", fmt.Sprint(page))
			req, err := s.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/actions/workflows/%s/runs?%s", s.owner, s.repo, url.PathEscape(workflowFile), v.Encode()), nil)
			if err != nil {
				return nil, err
			}
			var res struct {
				WorkflowRuns []*workflowRun `json:"workflow_runs"`
			}
			resp, err := s.gh.Do(ctx, req, &res)
			if err != nil {
				return nil, apiErr(fmt.Sprintf("%s/%s: listing runs of %s", s.owner, s.repo, workflowFile), resp, err)
			}
			for _, r := range res.WorkflowRuns {
				out = append(out, convertRun(r))
			}
			if resp.NextPage == 0 || len(out) >= s.o.MaxWorkflowRuns {
				if len(out) > s.o.MaxWorkflowRuns {
					out = out[:s.o.MaxWorkflowRuns]
				}
				return out, nil
			}
			page = resp.NextPage
		}
	})
}

func artifactsKey(runID int64) string { return fmt.Sprintf("artifacts\x00%d", runID) }

// Artifacts lists a run's artifacts.
func (s *Source) Artifacts(ctx context.Context, runID int64) ([]checks.Artifact, error) {
	return do(s, artifactsKey(runID), func() ([]checks.Artifact, error) {
		var out []checks.Artifact
		opt := &github.ListOptions{PerPage: 100, Page: 1}
		for {
			res, resp, err := s.gh.Actions.ListWorkflowRunArtifacts(ctx, s.owner, s.repo, runID, opt)
			if err != nil {
				return nil, apiErr(fmt.Sprintf("%s/%s: listing artifacts of run %d", s.owner, s.repo, runID), resp, err)
			}
			for _, a := range res.Artifacts {
				out = append(out, checks.Artifact{ID: a.GetID(), Name: a.GetName(), SizeBytes: a.GetSizeInBytes(),
					Expired: a.GetExpired(), RunID: runID})
			}
			if resp.NextPage == 0 {
				return out, nil
			}
			opt.Page = resp.NextPage
		}
	})
}
