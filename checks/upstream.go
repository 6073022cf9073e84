package checks

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Upstream recipe links (Check 3): which sign-off links point at a vLLM or
// SGLang recipe, and what kind of thing they point at.

// UpstreamLink is one recognized upstream recipe link.
type UpstreamLink struct {
	URL    string
	Engine string // "vllm" or "sglang"
	// Kind is "pr" (a pull request to check for merged), "page" (a published
	// documentation page to fetch) or "ref" (a branch, tree or commit link,
	// which never counts as merged).
	Kind        string
	Owner, Repo string
	Number      int
	// NeedsPage is set for sgl-docs / archived sgl-cookbook pull requests,
	// which count only together with a published cookbook page.
	NeedsPage bool
}

// Name is the short form reasons print: owner/repo#n for pull requests, the
// host and path for pages.
func (l UpstreamLink) Name() string {
	if l.Kind == "pr" {
		return l.Owner + "/" + l.Repo + "#" + strconv.Itoa(l.Number)
	}
	u, err := url.Parse(l.URL)
	if err != nil {
		return l.URL
	}
	return strings.TrimSuffix(u.Host+u.Path, "/")
}

var upPullRE = regexp.MustCompile(`^/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(pull|tree|blob|commit|commits|compare)/([^?#]*)`)

// upRepos maps upstream repositories to their engine.
var upRepos = map[string]string{
	"vllm-project/recipes":     "vllm",
	"sgl-project/sglang":       "sglang",
	"sgl-project/sgl-docs":     "sglang",
	"sgl-project/sgl-cookbook": "sglang",
}

// ParseUpstreamLink recognizes an upstream recipe link. ok is false for
// links that are not upstream recipes at all.
func ParseUpstreamLink(raw string) (UpstreamLink, bool) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return UpstreamLink{}, false
	}
	host := strings.ToLower(u.Hostname())
	l := UpstreamLink{URL: raw}
	switch {
	case host == "recipes.vllm.ai":
		l.Engine, l.Kind = "vllm", "page"
		return l, true
	case host == "docs.sglang.io" && (u.Path == "/cookbook" || strings.HasPrefix(u.Path, "/cookbook/")):
		l.Engine, l.Kind = "sglang", "page"
		return l, true
	case host != "github.com" && host != "www.github.com":
		return UpstreamLink{}, false
	}
	m := upPullRE.FindStringSubmatch(u.Path)
	if m == nil {
		return UpstreamLink{}, false
	}
	repo := strings.ToLower(m[1] + "/" + m[2])
	eng, known := upRepos[repo]
	if !known {
		return UpstreamLink{}, false
	}
	l.Engine, l.Owner, l.Repo = eng, m[1], m[2]
	l.NeedsPage = repo == "sgl-project/sgl-docs" || repo == "sgl-project/sgl-cookbook"
	if m[3] != "pull" {
		l.Kind = "ref"
		return l, true
	}
	num, _, _ := strings.Cut(m[4], "/")
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		l.Kind = "ref"
		return l, true
	}
	l.Kind, l.Number = "pr", n
	return l, true
}

// upEngineLabel names an engine's recipe home the way reasons print it.
func upEngineLabel(engine string) string {
	if engine == "vllm" {
		return "vLLM recipes"
	}
	return "SGLang cookbook"
}
