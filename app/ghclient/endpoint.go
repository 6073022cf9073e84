package ghclient

import (
	"regexp"
	"strings"
)

var (
	numberRE = regexp.MustCompile(`^[0-9]+$`)
	shaRE    = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)
)

// nameAfter maps a path segment to the placeholder of the segment after it,
// for segments that carry names rather than numbers.
var nameAfter = map[string]string{
	"orgs":          ":org",
	"teams":         ":slug",
	"memberships":   ":login",
	"collaborators": ":login",
	"users":         ":login",
	"workflows":     ":workflow",
	"commits":       ":ref",
	"statuses":      ":sha",
	"labels":        ":name",
}

// restAfter marks segments after which the whole rest of the path is one
// name (file paths, branch names with slashes).
var restAfter = map[string]string{
	"contents": ":path",
	"branches": ":branch",
}

// Endpoint turns a request path into a low-cardinality template for
// metrics: /repos/o/r/pulls/12/files -> /repos/:owner/:repo/pulls/:n/files.
// A GHES /api/v3 prefix is dropped; numbers become :n and SHAs :sha.
func Endpoint(path string) string {
	path = strings.TrimPrefix(path, "/api/v3")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	out := make([]string, 0, len(parts))
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch {
		case p == "repos" && i == 0:
			out = append(out, p)
			if i+1 < len(parts) {
				out = append(out, ":owner")
			}
			if i+2 < len(parts) {
				out = append(out, ":repo")
			}
			i += 2
			continue
		case restAfter[p] != "":
			out = append(out, p)
			if i+1 < len(parts) {
				out = append(out, restAfter[p])
			}
			i = len(parts)
			continue
		case numberRE.MatchString(p):
			p = ":n"
		case shaRE.MatchString(p):
			p = ":sha"
		case i > 0 && nameAfter[parts[i-1]] != "" && !isKeyword(p):
			p = nameAfter[parts[i-1]]
		case len(p) > 40:
			p = ":id"
		}
		out = append(out, p)
	}
	return "/" + strings.Join(out, "/")
}

// isKeyword keeps literal sub-resource names after a name-carrying segment
// (GET /repos/o/r/commits/:ref vs the list GET /repos/o/r/commits?sha=).
func isKeyword(p string) bool {
	switch p {
	case "check-runs", "statuses", "status", "runs", "pulls":
		return true
	}
	return false
}
