package repo

import (
	"strings"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// ImageRepo normalizes an image reference to its repository: '#' read as
// '/', docker.io/ and index.docker.io/ stripped, tag and digest dropped.
func ImageRepo(img string) string {
	r := strings.TrimSpace(strings.ReplaceAll(img, "#", "/"))
	r = strings.TrimPrefix(r, "docker.io/")
	r = strings.TrimPrefix(r, "index.docker.io/")
	if i := strings.IndexByte(r, '@'); i >= 0 {
		r = r[:i]
	}
	if i := strings.LastIndexByte(r, ':'); i > strings.LastIndexByte(r, '/') {
		r = r[:i]
	}
	return r
}

// InOrg reports whether an image repository lies in one of orgs ("vllm/"),
// with a name after the org.
func InOrg(repo string, orgs []string) bool {
	for _, o := range orgs {
		o = strings.TrimSuffix(o, "/") + "/"
		if strings.HasPrefix(repo, o) && len(repo) > len(o) {
			return true
		}
	}
	return false
}

// StripComment drops a " # comment" tail of a shell or YAML line outside
// quotes.
func StripComment(s string) string {
	return string(yamlx.StripComment([]byte(s)))
}
