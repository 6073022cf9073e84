package serving

import (
	"path"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

var (
	enginePathRE = regexp.MustCompile(`(site-packages|dist-packages|/sgl-workspace|(?:^|[/\s"'=])(?:vllm|sglang|tensorrt_llm|aiter|atom)/)`)
	engineFragRE = regexp.MustCompile(`(?:site-packages|dist-packages)/[A-Za-z0-9_.\-]+|/sgl-workspace(?:/[A-Za-z0-9_.\-]+)?|\b(?:vllm|sglang|tensorrt_llm|aiter|atom)/[A-Za-z0-9_.\-/]*`)
	// Also inside quoted strings and argument lists of scripts that shell
	// out: os.system("git apply x"), subprocess.run(["git", "apply", x]).
	gitApplyRE    = regexp.MustCompile(`(^|[\s;&|("'\[,])git["']?\s*,?\s*(["']?-C["']?\s*,?\s*\S+\s+)?["']?(apply|am)\b`)
	patchCmdRE    = regexp.MustCompile(`(^|[\s;&|("'])patch\s+(-[A-Za-z]*p\d|--strip|-i\s|<)`)
	sedIRE        = regexp.MustCompile(`(^|[\s;&|(])sed\s+(-[A-Za-z]*i|--in-place)`)
	writeToRE     = regexp.MustCompile(`(^|[\s;&|(])(cat|tee|echo|printf)\b.*(>|\btee\s)`)
	copyRE        = regexp.MustCompile(`(^|[\s;&|(])(cp|install|rsync|mv|docker\s+cp)\s`)
	startupRE     = regexp.MustCompile(`\b(sitecustomize|usercustomize|PYTHONSTARTUP)\b|\S+\.pth\b`)
	pyWriteRE     = regexp.MustCompile(`write_text|\.write\(|open\([^)]*["'][wa]\+?["']|\.replace\(|re\.sub\(|shutil\.copy`)
	findSpecRE    = regexp.MustCompile(`find_spec`)
	pipInstallRE  = regexp.MustCompile(`(^|[\s;&|(])(pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\s+(.*)$`)
	pkgNameRE     = regexp.MustCompile(`^[A-Za-z0-9_.\-]+`)
	pythonHeredoc = regexp.MustCompile(`(^|[\s;&|(])python[0-9.]*\s+-\s*(<<|$)`)
)

// servingStack are pip package names of the serving stack; installing or
// replacing them changes what is benchmarked. Client/harness packages
// (aiperf, lm_eval, tabulate, ...) are not listed and are allowed.
var servingStack = map[string]bool{
	"vllm": true, "sglang": true, "sgl-kernel": true, "sgl_kernel": true, "tensorrt_llm": true, "tensorrt-llm": true,
	"flashinfer": true, "flashinfer-python": true, "aiter": true, "amd-aiter": true, "atom": true, "triton": true,
	"deep_ep": true, "deep-ep": true, "deepep": true, "torch": true, "flash-attn": true, "flash_attn": true, "xformers": true,
}

// PatchingInLine scans one line of shell (or text) for patch indicators.
func PatchingInLine(t string) (what, zh string) {
	t = repo.StripComment(t)
	switch {
	case gitApplyRE.MatchString(t):
		return "applies a patch (git apply)", "应用补丁（`git apply`）"
	case patchCmdRE.MatchString(t):
		return "applies a patch (patch)", "应用补丁（patch）"
	case sedIRE.MatchString(t) && enginePathRE.MatchString(t):
		f := engineFrag(t)
		return "rewrites " + f, "改写 " + f
	case writeToRE.MatchString(t) && enginePathRE.MatchString(writeTarget(t)):
		f := engineFrag(t)
		return "overwrites " + f, "覆盖 " + f
	case copyRE.MatchString(t) && enginePathRE.MatchString(lastWord(t)):
		f := engineFrag(lastWord(t))
		return "copies files into " + f, "向 " + f + " 复制文件"
	case startupRE.MatchString(t):
		m := startupRE.FindString(t)
		return "monkey-patches Python startup (" + m + ")", "通过 " + m + " 修改 Python 启动行为"
	}
	if m := pipInstallRE.FindStringSubmatch(t); m != nil {
		for _, a := range strings.Fields(m[3]) {
			a = strings.Trim(a, `"'`)
			switch {
			case a == "--force-reinstall":
				return "force-reinstalls packages (pip install --force-reinstall)", "强制重装软件包（pip install --force-reinstall）"
			case strings.HasPrefix(a, "git+"), strings.HasSuffix(a, ".whl"):
				return "installs " + a, "安装 " + a
			case strings.HasPrefix(a, "-"):
			default:
				if n := strings.ToLower(pkgNameRE.FindString(a)); servingStack[n] {
					return "installs serving-stack package " + a, "安装服务栈软件包 " + a
				}
			}
		}
	}
	return "", ""
}

// PatchingInCommand adds the heredoc-aware rules to PatchingInLine.
func PatchingInCommand(c repo.Command) (what, zh string) {
	if w, z := PatchingInLine(c.Raw); w != "" {
		return w, z
	}
	if c.Heredoc == "" {
		return "", ""
	}
	if pythonHeredoc.MatchString(c.Raw) || strings.Contains(c.Raw, "python") {
		if (enginePathRE.MatchString(c.Heredoc) || findSpecRE.MatchString(c.Heredoc)) && pyWriteRE.MatchString(c.Heredoc) {
			f := engineFrag(c.Heredoc)
			if f == "" {
				f = "engine sources located with importlib.util.find_spec"
			}
			return "rewrites " + f + " from a Python heredoc", "通过 Python heredoc 改写 " + f
		}
	}
	if m := startupRE.FindString(c.Heredoc); m != "" {
		return "monkey-patches Python startup (" + m + ")", "通过 " + m + " 修改 Python 启动行为"
	}
	return "", ""
}

func engineFrag(t string) string {
	f := engineFragRE.FindString(t)
	f = strings.TrimRight(f, "/.")
	if i := strings.Index(f, "-packages/"); i >= 0 {
		// keep site-packages/<pkg>
		rest := f[i+len("-packages/"):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			f = f[:i+len("-packages/")+j]
		}
	}
	return f
}

func lastWord(t string) string {
	f := strings.Fields(t)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// writeTarget is the text after the last redirection or tee.
func writeTarget(t string) string {
	if i := strings.LastIndexByte(t, '>'); i >= 0 {
		return t[i:]
	}
	if i := strings.Index(t, "tee "); i >= 0 {
		return t[i:]
	}
	return ""
}

// Patching is one sign of engine patching at a file and line.
type Patching struct {
	Path   string
	Line   int
	What   string
	WhatZH string
}

// At is "path:line".
func (p Patching) At() string { return repo.Loc(p.Path, p.Line) }

// Found is a sign of patching and whether the PR introduced it.
type Found struct {
	Patching
	Introduced bool
}

// FindPatching scans the change set for engine patching: the commands of
// the effective scripts (heredocs included; a command counts as introduced
// when any of its lines was added), the lines of effective YAML files, and
// the added lines of every other changed runtime file (workflows included;
// patch files themselves aside). Commands and lines that name an allowlisted
// harness patch are skipped. parsed holds the files read as commands or
// YAML, whose added lines are therefore not scanned again.
func FindPatching(cs *repo.ChangeSet, allowlist []string) (hits []Found, parsed map[string]bool) {
	parsed = map[string]bool{}
	seen := map[string]bool{}
	record := func(p Patching, introduced bool) {
		if k := p.At(); !seen[k] {
			seen[k] = true
			hits = append(hits, Found{p, introduced})
		}
	}
	for _, f := range cs.AllEffective() {
		if f.Err != "" {
			continue
		}
		added := cs.AddedLineSet(f.Path)
		if len(f.Commands) > 0 {
			parsed[f.Path] = true
			for _, c := range f.Commands {
				w, z := PatchingInCommand(c)
				if w == "" || mentionsAllowlisted(c.Raw, allowlist) {
					continue
				}
				n := strings.Count(c.Raw, "\n") + strings.Count(c.Heredoc, "\n") + 1
				introduced := false
				for i := c.Line; i < c.Line+n; i++ {
					introduced = introduced || added[i]
				}
				record(Patching{Path: f.Path, Line: c.Line, What: w, WhatZH: z}, introduced)
			}
			continue
		}
		if strings.HasSuffix(f.Path, ".yaml") || strings.HasSuffix(f.Path, ".yml") {
			parsed[f.Path] = true
			for i, line := range f.Lines {
				if repo.IsComment(line) {
					continue
				}
				if w, z := PatchingInLine(line); w != "" {
					record(Patching{Path: f.Path, Line: i + 1, What: w, WhatZH: z}, added[i+1])
				}
			}
		}
	}
	for _, a := range cs.RuntimeAdded(true) {
		if parsed[a.Path] || strings.HasSuffix(a.Path, ".patch") || strings.HasSuffix(a.Path, ".diff") {
			continue
		}
		if w, z := PatchingInLine(a.Text); w != "" && !mentionsAllowlisted(a.Text, allowlist) {
			record(Patching{Path: a.Path, Line: a.Line, What: w, WhatZH: z}, true)
		}
	}
	return hits, parsed
}

// mentionsAllowlisted reports whether text names an allowlisted harness
// patch file.
func mentionsAllowlisted(text string, list []string) bool {
	for _, a := range list {
		if a != "" && strings.Contains(text, path.Base(a)) {
			return true
		}
	}
	return false
}
