package checks

import (
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Upstream recipes (Check 3): which sign-off links point at a vLLM or SGLang
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

// urArg is one major serving argument to find in the upstream recipe.
type urArg struct {
	label   string
	aliases []string
	value   string // "" for presence-only flags
}

func (a urArg) String() string {
	if a.value == "" {
		return a.label
	}
	return a.label + " " + a.value
}

// urMajor are the major serving args (INFERENCEX.md Check 3 (c)), in the
// order reasons list them.
var urMajor = []urArg{
	{label: "TP", aliases: []string{"tp-size", "tp", "tensor-parallel-size"}},
	{label: "EP", aliases: []string{"ep-size", "ep", "expert-parallel-size", "enable-expert-parallel"}},
	{label: "DP", aliases: []string{"dp-size", "dp", "data-parallel-size"}},
	{label: "PP", aliases: []string{"pp-size", "pp", "pipeline-parallel-size"}},
	{label: "dp-attention", aliases: []string{"enable-dp-attention"}},
	{label: "dp-lm-head", aliases: []string{"enable-dp-lm-head"}},
	{label: "quantization", aliases: []string{"quantization"}},
	{label: "kv-cache-dtype", aliases: []string{"kv-cache-dtype"}},
	{label: "attention backend", aliases: []string{"attention-backend"}},
	{label: "moe-runner-backend", aliases: []string{"moe-runner-backend"}},
	{label: "flashinfer-allreduce-fusion", aliases: []string{"enable-flashinfer-allreduce-fusion"}},
	// gen 4: disaggregated prefill/decode serving must be covered too.
	{label: "disaggregation-mode", aliases: []string{"disaggregation-mode"}},
	{label: "disaggregation-transfer-backend", aliases: []string{"disaggregation-transfer-backend"}},
	// vLLM's disaggregated serving: the KV connector config.
	{label: "kv-transfer-config", aliases: []string{"kv-transfer-config"}},
}

// urLocalOnly are InferenceX-only knobs: informational, never required.
var urLocalOnly = map[string]bool{
	"scheduler-recv-interval":      true,
	"chunked-prefill-size":         true,
	"disable-piecewise-cuda-graph": true,
	"sglang-radix-force-miss":      true,
}

// urMajorArgs collects the major serving args the configs' effective launch
// settings set (generation and prefill roles and role-less script flags;
// benchmark client and frontend settings are not serving args).
func urMajorArgs(configs []*ConfigEntry, cs *ChangeSet) (args []urArg, info []string) {
	seen := map[string]bool{}
	infoSeen := map[string]bool{}
	for _, c := range configs {
		for _, s := range sdAllSettings(cs.Effective[c.Key]) {
			if s.Role == "benchmark" || s.Role == "frontend" {
				continue
			}
			n := sdNorm(s.Name)
			v := sdUnquote(s.Value)
			if urLocalOnly[n] {
				if k := s.Name + "=" + v; !infoSeen[k] {
					infoSeen[k] = true
					info = append(info, k)
				}
				continue
			}
			for _, m := range urMajor {
				if !urIsAlias(m, n) {
					continue
				}
				lv := strings.ToLower(v)
				var vals []string
				switch {
				case lv == "false" || lv == "0" && (m.label == "dp-attention" || m.label == "dp-lm-head" || m.label == "flashinfer-allreduce-fusion"):
					continue
				case lv == "1" && len(m.label) == 2:
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
					sizes, ok := urSearchSizes(c, m.label)
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
					a.value = val
					if k := a.label + "\x00" + a.value; !seen[k] {
						seen[k] = true
						args = append(args, a)
					}
				}
			}
		}
	}
	order := map[string]int{}
	for i, m := range urMajor {
		order[m.label] = i
	}
	sort.SliceStable(args, func(i, j int) bool {
		if order[args[i].label] != order[args[j].label] {
			return order[args[i].label] < order[args[j].label]
		}
		return args[i].value < args[j].value
	})
	sort.Strings(info)
	return args, info
}

// urSearchSizes lists the distinct parallel sizes above 1 that config c's
// search space sets for a TP, EP or PP arg; ok is false when the label is
// none of these or no search-space element sets it.
func urSearchSizes(c *ConfigEntry, label string) (sizes []string, ok bool) {
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

func urIsAlias(m urArg, n string) bool {
	for _, a := range m.aliases {
		if n == a {
			return true
		}
	}
	return false
}

// urNormText lowercases recipe text and folds underscores into dashes so
// `tensor_parallel_size` and `--tensor-parallel-size` compare equal.
func urNormText(s string) string {
	if len(s) > 4<<20 {
		s = s[:4<<20]
	}
	return strings.ReplaceAll(strings.ToLower(s), "_", "-")
}

// urCorpus is recipe text prepared for token search: lower case with
// underscores folded, and split into lines once.
type urCorpus struct {
	text  string
	lines []string
}

func newURCorpus(s string) urCorpus {
	t := urNormText(s)
	return urCorpus{text: t, lines: strings.Split(t, "\n")}
}

// urHas reports whether the recipe text shows the argument: an alias as a
// whole token and, for valued args, the value on the same line (or the
// compact TP8 / EP8 form for parallel sizes). Plain substring scans keep a
// multi-megabyte page linear.
func urHas(c urCorpus, a urArg) bool {
	v := strings.ReplaceAll(a.value, "_", "-")
	if v != "" && len(a.label) == 2 {
		if _, err := strconv.Atoi(v); err == nil {
			l := strings.ToLower(a.label)
			if urToken(c.text, l+v, urAlnum, urDigit, false) || urToken(c.text, l+" "+v, urAlnum, urDigit, false) {
				return true
			}
		}
	}
	for _, line := range c.lines {
		if v != "" && !urToken(line, v, urValueRune, urValueRune, false) {
			continue
		}
		for _, al := range a.aliases {
			if urToken(line, al, urFlagRune, urFlagRune, true) {
				return true
			}
		}
	}
	return false
}

func urAlnum(b byte) bool     { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }
func urDigit(b byte) bool     { return b >= '0' && b <= '9' }
func urFlagRune(b byte) bool  { return urAlnum(b) || b == '-' }
func urValueRune(b byte) bool { return urAlnum(b) || b == '-' || b == '.' }

// urToken reports whether tok occurs in s with no word byte (as before and
// after define) directly around it. With dashes set, a leading "-" or "--"
// belongs to the token, so "--tp-size" counts as "tp-size".
func urToken(s, tok string, before, after func(byte) bool, dashes bool) bool {
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
