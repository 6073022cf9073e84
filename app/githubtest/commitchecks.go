package githubtest

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// The commits' check suites query: aliased commit lookups in one
// repository, each with its check suites and how many check runs each has
// (c0: object(oid: "…") { ... on Commit { checkSuites(first: 20) { nodes
// { checkRuns(first: 1) { totalCount } } pageInfo { hasNextPage } } } }).
// A commit the repository does not have is null, with a NOT_FOUND error,
// as GitHub answers.

var commitAliasRE = regexp.MustCompile(`(\w+): object\(oid: "([0-9a-f]{40})"\)`)

func isCommitChecksQuery(q string) bool {
	return strings.Contains(q, "checkSuites") && strings.Contains(q, "repository(owner: $owner, name: $name)")
}

func (s *Server) commitChecks(w http.ResponseWriter, q string, vars map[string]any) {
	owner, _ := vars["owner"].(string)
	name, _ := vars["name"].(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(owner+"/"+name)]
	if rs == nil {
		ghjson.Write(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": nil},
			"errors": []any{map[string]any{"type": "NOT_FOUND", "path": []string{"repository"},
				"message": "Could not resolve to a Repository with the name '" + owner + "/" + name + "'."}}})
		return
	}
	repo := map[string]any{}
	var errs []any
	for _, m := range commitAliasRE.FindAllStringSubmatch(q, -1) {
		alias, sha := m[1], m[2]
		if rs.r.FindCommit(sha) == nil {
			repo[alias] = nil
			errs = append(errs, map[string]any{"type": "NOT_FOUND", "path": []string{"repository", alias},
				"message": "Could not resolve to a Commit with the oid '" + sha + "'."})
			continue
		}
		// One suite per app and workflow run, as GitHub groups check runs.
		counts := map[string]int{}
		var order []string
		for _, cr := range rs.checkRuns[sha] {
			k := cr.GetApp().GetSlug() + "\x00" + cr.GetDetailsURL()
			if i := strings.Index(k, "/job/"); i >= 0 {
				k = k[:i]
			}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
		nodes := []any{}
		for _, k := range order {
			nodes = append(nodes, map[string]any{"checkRuns": map[string]any{"totalCount": counts[k]}})
		}
		// The query asks for the first 20 suites.
		more := len(nodes) > 20
		if more {
			nodes = nodes[:20]
		}
		repo[alias] = map[string]any{"checkSuites": map[string]any{"nodes": nodes, "pageInfo": map[string]any{"hasNextPage": more}}}
	}
	out := map[string]any{"data": map[string]any{"repository": repo}}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	ghjson.Write(w, http.StatusOK, out)
}
