package serving

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// Upstream recipes (RULES.md, Check 3): which sign-off links point at a vLLM or SGLang
// recipe and what kind of thing they point at, and which major serving
// arguments of a config the recipe text must show.

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

var pullRE = regexp.MustCompile(`^/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(pull|tree|blob|commit|commits|compare)/([^?#]*)`)

// upstreamRepos maps upstream repositories to their engine.
var upstreamRepos = map[string]string{
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
	m := pullRE.FindStringSubmatch(u.Path)
	if m == nil {
		return UpstreamLink{}, false
	}
	repo := strings.ToLower(m[1] + "/" + m[2])
	eng, known := upstreamRepos[repo]
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

// RecipeHome names an engine's recipe home the way reasons print it.
func RecipeHome(engine string) string {
	if engine == "vllm" {
		return "vLLM recipes"
	}
	return "SGLang cookbook"
}

// MajorArg is one major serving argument to find in the upstream recipe.
type MajorArg struct {
	Label   string
	Aliases []string
	Value   string // "" for presence-only flags
}

func (a MajorArg) String() string {
	if a.Value == "" {
		return a.Label
	}
	return a.Label + " " + a.Value
}

// majorArgs are the major serving args (RULES.md, Check 3), in the
// order reasons list them.
var majorArgs = []MajorArg{
	{Label: "TP", Aliases: []string{"tp-size", "tp", "tensor-parallel-size"}},
	{Label: "EP", Aliases: []string{"ep-size", "ep", "expert-parallel-size", "enable-expert-parallel"}},
	{Label: "DP", Aliases: []string{"dp-size", "dp", "data-parallel-size"}},
	{Label: "PP", Aliases: []string{"pp-size", "pp", "pipeline-parallel-size"}},
	{Label: "dp-attention", Aliases: []string{"enable-dp-attention"}},
	{Label: "dp-lm-head", Aliases: []string{"enable-dp-lm-head"}},
	{Label: "quantization", Aliases: []string{"quantization"}},
	{Label: "kv-cache-dtype", Aliases: []string{"kv-cache-dtype"}},
	{Label: "attention backend", Aliases: []string{"attention-backend"}},
	{Label: "moe-runner-backend", Aliases: []string{"moe-runner-backend"}},
	{Label: "flashinfer-allreduce-fusion", Aliases: []string{"enable-flashinfer-allreduce-fusion"}},
	// Disaggregated prefill/decode serving must be covered too.
	{Label: "disaggregation-mode", Aliases: []string{"disaggregation-mode"}},
	{Label: "disaggregation-transfer-backend", Aliases: []string{"disaggregation-transfer-backend"}},
	// vLLM's disaggregated serving: the KV connector config.
	{Label: "kv-transfer-config", Aliases: []string{"kv-transfer-config"}},
}

// localOnly are InferenceX-only knobs: informational, never required.
var localOnly = map[string]bool{
	"scheduler-recv-interval":      true,
	"chunked-prefill-size":         true,
	"disable-piecewise-cuda-graph": true,
	"sglang-radix-force-miss":      true,
}

// MajorArgs collects the major serving args the configs' effective launch
// settings set (generation and prefill roles and role-less script flags;
// benchmark client and frontend settings are not serving args).
func MajorArgs(configs []*repo.ConfigEntry, cs *changeset.Model) (args []MajorArg, info []string) {
	seen := map[string]bool{}
	infoSeen := map[string]bool{}
	for _, c := range configs {
		for _, s := range AllSettings(cs.Effective[c.Key]) {
			if s.Role == "benchmark" || s.Role == "frontend" {
				continue
			}
			n := KnobName(s.Name)
			v := Unquote(s.Value)
			if localOnly[n] {
				if k := s.Name + "=" + v; !infoSeen[k] {
					infoSeen[k] = true
					info = append(info, k)
				}
				continue
			}
			for _, m := range majorArgs {
				if !isAlias(m, n) {
					continue
				}
				lv := strings.ToLower(v)
				var vals []string
				switch {
				case lv == "false" || lv == "0" && (m.Label == "dp-attention" || m.Label == "dp-lm-head" || m.Label == "flashinfer-allreduce-fusion"):
					continue
				case lv == "1" && len(m.Label) == 2:
					continue // a parallel size of 1 restates the engine default
				case lv == "" || lv == "true":
					vals = []string{""}
				case strings.HasPrefix(lv, "{"):
					// A JSON config (kv-transfer-config): its layout varies
					// between recipes, so it is compared by name.
					vals = []string{""}
				case strings.Contains(v, "$"):
					// A shell variable: the sweep fills it from the config's
					// search space (legacy scripts take --tp "$TP"), so a
					// parallel size is compared by the values the config
					// runs with; anything else by name only.
					sizes, ok := searchSizes(c, m.Label)
					if !ok {
						vals = []string{""}
						break
					}
					if len(sizes) == 0 {
						continue // only size 1: the engine default
					}
					vals = sizes
				default:
					vals = []string{lv}
				}
				for _, val := range vals {
					a := m
					a.Value = val
					if k := a.Label + "\x00" + a.Value; !seen[k] {
						seen[k] = true
						args = append(args, a)
					}
				}
			}
		}
	}
	order := map[string]int{}
	for i, m := range majorArgs {
		order[m.Label] = i
	}
	sort.SliceStable(args, func(i, j int) bool {
		if order[args[i].Label] != order[args[j].Label] {
			return order[args[i].Label] < order[args[j].Label]
		}
		return args[i].Value < args[j].Value
	})
	sort.Strings(info)
	return args, info
}

// searchSizes lists the distinct parallel sizes above 1 that config c's
// search space sets for a TP, EP or PP arg; ok is false when the label is
// none of these or no search-space element sets it.
func searchSizes(c *repo.ConfigEntry, label string) (sizes []string, ok bool) {
	seen := map[int]bool{}
	for _, sc := range c.Scenarios {
		for _, ss := range sc.Search {
			n := 0
			switch label {
			case "TP":
				n = ss.TP
			case "EP":
				n = ss.EP
			case "PP":
				n = ss.PP
			default:
				return nil, false
			}
			if n <= 0 {
				continue
			}
			ok = true
			if n > 1 && !seen[n] {
				seen[n] = true
				sizes = append(sizes, strconv.Itoa(n))
			}
		}
	}
	return sizes, ok
}

func isAlias(m MajorArg, n string) bool {
	for _, a := range m.Aliases {
		if n == a {
			return true
		}
	}
	return false
}

// normText lowercases recipe text and folds underscores into dashes so
// `tensor_parallel_size` and `--tensor-parallel-size` compare equal.
func normText(s string) string {
	if len(s) > 4<<20 {
		s = s[:4<<20]
	}
	return strings.ReplaceAll(strings.ToLower(s), "_", "-")
}

// Corpus is recipe text prepared for token search: lower case with
// underscores folded, and split into lines once.
type Corpus struct {
	text  string
	lines []string
}

// NewCorpus prepares recipe text for Shows.
func NewCorpus(s string) Corpus {
	t := normText(s)
	return Corpus{text: t, lines: strings.Split(t, "\n")}
}

// Shows reports whether the recipe text shows the argument: an alias as a
// whole token and, for valued args, the value on the same line (or the
// compact TP8 / EP8 form for parallel sizes). Plain substring scans keep a
// multi-megabyte page linear.
func (c Corpus) Shows(a MajorArg) bool {
	v := strings.ReplaceAll(a.Value, "_", "-")
	if v != "" && len(a.Label) == 2 {
		if _, err := strconv.Atoi(v); err == nil {
			l := strings.ToLower(a.Label)
			if hasToken(c.text, l+v, isAlnum, isDigit, false) || hasToken(c.text, l+" "+v, isAlnum, isDigit, false) {
				return true
			}
		}
	}
	for _, line := range c.lines {
		if v != "" && !hasToken(line, v, isValueByte, isValueByte, false) {
			continue
		}
		for _, al := range a.Aliases {
			if hasToken(line, al, isFlagByte, isFlagByte, true) {
				return true
			}
		}
	}
	return false
}

func isAlnum(b byte) bool     { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }
func isDigit(b byte) bool     { return b >= '0' && b <= '9' }
func isFlagByte(b byte) bool  { return isAlnum(b) || b == '-' }
func isValueByte(b byte) bool { return isAlnum(b) || b == '-' || b == '.' }

// hasToken reports whether tok occurs in s with no word byte (as before and
// after define) directly around it. With dashes set, a leading "-" or "--"
// belongs to the token, so "--tp-size" counts as "tp-size".
func hasToken(s, tok string, before, after func(byte) bool, dashes bool) bool {
	for i := 0; i <= len(s)-len(tok); {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(tok)
		b := start
		for k := 0; dashes && k < 2 && b > 0 && s[b-1] == '-'; k++ {
			b--
		}
		if (b == 0 || !before(s[b-1])) && (end == len(s) || !after(s[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

// Fetched is what was read for one upstream link: a pull request's merge
// state and changed files, or a published page.
type Fetched struct {
	PR    checks.UpstreamPR
	PRErr error // reading the pull request or fetching the page failed
	// Text is the recipe text to search: the files a pull request changes
	// with their added and context lines, or the page body.
	Text    string
	TextErr error
	Page    checks.Page
	Paths   []string // files the upstream PR changes
}

// FetchRecipes reads every link's merge state and text concurrently.
func FetchRecipes(ctx context.Context, src checks.Source, links []UpstreamLink) []Fetched {
	out := make([]Fetched, len(links))
	var wg sync.WaitGroup
	for i, l := range links {
		wg.Add(1)
		go func(i int, l UpstreamLink) {
			defer wg.Done()
			f := &out[i]
			if l.Kind == "pr" {
				// The merge state and the files need only the link: read
				// them together.
				read := make(chan struct{})
				go func() {
					defer close(read)
					f.PR, f.PRErr = src.UpstreamPR(ctx, l.Owner, l.Repo, l.Number)
				}()
				files, err := src.UpstreamPRFiles(ctx, l.Owner, l.Repo, l.Number)
				<-read
				if err != nil {
					f.TextErr = err
					return
				}
				var b strings.Builder
				for _, cf := range files {
					f.Paths = append(f.Paths, cf.Path)
					b.WriteString(cf.Path)
					b.WriteByte('\n')
					for _, line := range strings.Split(cf.Patch, "\n") {
						if !strings.HasPrefix(line, "-") {
							b.WriteString(strings.TrimPrefix(line, "+"))
							b.WriteByte('\n')
						}
					}
				}
				f.Text = b.String()
				return
			}
			f.Page, f.PRErr = src.FetchPage(ctx, l.URL)
			if f.PRErr == nil && f.Page.StatusCode == 200 {
				f.Text = string(f.Page.Body)
			} else {
				f.TextErr = errors.New("page not fetched")
			}
		}(i, l)
	}
	wg.Wait()
	return out
}

// TouchesCookbook reports whether an SGLang pull request's files include a
// cookbook page (docs/cookbook/ or docs_new/).
func TouchesCookbook(paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, "docs/cookbook/") || strings.HasPrefix(p, "docs_new/") {
			return true
		}
	}
	return false
}
