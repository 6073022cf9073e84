package ghsource

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/checks"
)

// commitsPerQuery is how many commits one GraphQL query asks about: each is
// an aliased object lookup with its first twenty check suites (a commit
// with more is read anyway), well inside GitHub's node limit and about a
// hundred points of its GraphQL budget, which is not the REST one.
const commitsPerQuery = 100

var oidRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// commitChecksResponse is a GraphQL answer: c<i> is the i-th commit asked.
type commitChecksResponse struct {
	Data struct {
		Repository map[string]*struct {
			CheckSuites struct {
				Nodes []struct {
					CheckRuns struct {
						TotalCount int `json:"totalCount"`
					} `json:"checkRuns"`
				} `json:"nodes"`
				PageInfo struct {
					HasNextPage bool `json:"hasNextPage"`
				} `json:"pageInfo"`
			} `json:"checkSuites"`
		} `json:"repository"`
	} `json:"data"`
	Errors []struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"errors"`
}

// CommitsWithChecks asks GitHub's GraphQL API, a hundred commits a query,
// which of shas have a check suite with a check run. A commit GitHub does
// not know, or whose suites run past the first twenty, counts as having
// some: the caller then reads its check runs.
func (s *Source) CommitsWithChecks(ctx context.Context, shas []string) (map[string]bool, error) {
	out := make(map[string]bool, len(shas))
	for start := 0; start < len(shas); start += commitsPerQuery {
		batch := shas[start:min(start+commitsPerQuery, len(shas))]
		key := "commit-checks\x00" + strings.Join(batch, ",")
		got, err := do(s, key, func() (map[string]bool, error) { return s.commitChecks(ctx, batch) })
		if err != nil {
			return nil, err
		}
		for sha, has := range got {
			out[sha] = has
		}
	}
	return out, nil
}

func (s *Source) commitChecks(ctx context.Context, shas []string) (map[string]bool, error) {
	var q strings.Builder
	q.WriteString("query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {")
	for i, sha := range shas {
		if !oidRE.MatchString(sha) {
			return nil, fmt.Errorf("asking for the checks of commit %q: not a full commit SHA", sha)
		}
		fmt.Fprintf(&q, ` c%d: object(oid: "%s") { ... on Commit { checkSuites(first: 20) { nodes { checkRuns(first: 1) { totalCount } } pageInfo { hasNextPage } } } }`, i, sha)
	}
	q.WriteString(" } }")
	body := map[string]any{"query": q.String(), "variables": map[string]string{"owner": s.owner, "name": s.repo}}
	what := fmt.Sprintf("%s/%s: asking which of %d commits have check runs", s.owner, s.repo, len(shas))
	req, err := s.gh.NewRequest("POST", ghclient.GraphQLURL(s.gh.BaseURL.String()), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var res commitChecksResponse
	resp, err := s.gh.Do(ctx, req, &res)
	if err != nil {
		return nil, apiErr(what, resp, err)
	}
	if res.Data.Repository == nil {
		msg := "no repository in the answer"
		if len(res.Errors) > 0 {
			msg = res.Errors[0].Message
		}
		return nil, fmt.Errorf("%s: %s: %w", what, msg, checks.ErrMalformed)
	}
	out := make(map[string]bool, len(shas))
	for i, sha := range shas {
		out[sha] = false
		c := res.Data.Repository[fmt.Sprintf("c%d", i)]
		if c == nil || c.CheckSuites.PageInfo.HasNextPage {
			out[sha] = true
			continue
		}
		for _, n := range c.CheckSuites.Nodes {
			if n.CheckRuns.TotalCount > 0 {
				out[sha] = true
				break
			}
		}
	}
	return out, nil
}
