package serving

import (
	"path"
	"regexp"
	"strings"
)

// Engine install paths versus harness paths (RULES.md, Check 10). Writing
// into the serving stack's own code inside the image changes what is
// benchmarked; writing into the benchmark harness (the srt-slurm checkout,
// its recipes/, result and log directories, the repository checkout) does
// not, whatever the directory names say: recipes/sglang/… is a directory of
// benchmark recipes, not SGLang. The classification reads plain strings
// (paths, argv, assignment values) so it does not depend on how a shell
// reader represents commands.

// enginePackages are the serving stack's importable packages: their
// install trees are engine code.
var enginePackages = map[string]bool{
	"vllm": true, "sglang": true, "sgl_kernel": true, "tensorrt_llm": true, "aiter": true, "atom": true,
	"flashinfer": true, "deep_ep": true, "triton": true, "torch": true, "flash_attn": true, "xformers": true,
}

// engineDirs are directory names that, in an absolute path inside the
// image, are an engine's tree: its package or its source checkout.
var engineDirs = map[string]bool{
	"vllm": true, "sglang": true, "tensorrt_llm": true, "aiter": true, "atom": true,
	"sgl-workspace": true, "vllm-workspace": true, "site-packages": true, "dist-packages": true,
}

// harnessRoots are absolute locations of the harness inside the image or
// on the runner: the mounted repository and scratch space.
var harnessRoots = []string{"/infmax-workspace", "/workspace", "/tmp", "/logs", "/results", "/dev"}

// harnessVars are variables that name the harness checkout or its output.
var harnessVars = map[string]bool{
	"GITHUB_WORKSPACE": true, "INFMAX_CONTAINER_WORKSPACE": true, "RUNNER_TEMP": true, "PWD": true,
	"RESULT_DIR": true, "RESULTS_DIR": true, "LOG_DIR": true, "LOGS_DIR": true, "OUTPUT_DIR": true, "SRT_REPO_DIR": true,
}

var (
	shellVarRE = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
	// Ways to ask where an engine package is installed.
	findSpecPkgRE = regexp.MustCompile(`find_spec\(\s*["']([A-Za-z0-9_]+)`)
	fileAttrRE    = regexp.MustCompile(`\b([A-Za-z0-9_]+)\.(?:__file__|__path__)`)
	resourcesRE   = regexp.MustCompile(`(?:importlib\.resources\.files|importlib_resources\.files)\(\s*["']([A-Za-z0-9_]+)`)
	pipShowRE     = regexp.MustCompile(`\bpip3?\s+show\b((?:\s+-[A-Za-z-]+)*)\s+["']?([A-Za-z0-9_.\-]+)`)
	sitePathsRE   = regexp.MustCompile(`site\.getsitepackages|sysconfig\.get_paths\(\)\s*\[\s*["'](?:purelib|platlib)|get_python_lib`)
	redirectRE    = regexp.MustCompile(`(?:^|[^<>&0-9])(?:[0-9]?>>?|&>>?|>\|)\s*("[^"]*"|'[^']*'|[^\s;&|<>()]+)`)
)

// Location is where a shell variable points when it holds an engine
// install location.
type Location struct {
	Pkg string // the engine package, or "site-packages"
	How string // how it was found: "importlib.util.find_spec", "pip show", ...
	// HowZH is How for the Chinese reason (code in code spans).
	HowZH string
	Line  int
}

// Locations tracks, through one script, the variables that hold engine
// install locations and whether the working directory is inside one.
type Locations struct {
	vars map[string]Location
	cwd  *Location
}

// NewLocations starts a script: no variable is known, the working
// directory is the harness checkout.
func NewLocations() *Locations { return &Locations{vars: map[string]Location{}} }

// LocatesEngine reports whether text (an assignment's value, a command
// substitution) asks Python's import machinery or pip where an engine
// package is installed.
func LocatesEngine(text string) (Location, bool) {
	pkgOK := func(p string) bool { return enginePackages[strings.ReplaceAll(strings.ToLower(p), "-", "_")] }
	if m := findSpecPkgRE.FindStringSubmatch(text); m != nil && pkgOK(m[1]) {
		return Location{Pkg: m[1], How: "importlib.util.find_spec", HowZH: "`importlib.util.find_spec`"}, true
	}
	if m := resourcesRE.FindStringSubmatch(text); m != nil && pkgOK(m[1]) {
		return Location{Pkg: m[1], How: "importlib.resources", HowZH: "`importlib.resources`"}, true
	}
	if strings.Contains(text, "import") {
		for _, m := range fileAttrRE.FindAllStringSubmatch(text, -1) {
			if pkgOK(m[1]) {
				return Location{Pkg: m[1], How: m[1] + ".__file__", HowZH: "`" + m[1] + ".__file__`"}, true
			}
		}
	}
	if m := pipShowRE.FindStringSubmatch(text); m != nil && pkgOK(m[2]) {
		return Location{Pkg: m[2], How: "pip show", HowZH: "`pip show`"}, true
	}
	if sitePathsRE.MatchString(text) {
		return Location{Pkg: "site-packages", How: "the interpreter's site paths", HowZH: "解释器的 `site` 路径"}, true
	}
	return Location{}, false
}

// Assign records NAME=value at line: the variable holds an engine location
// when the value locates one, names an engine path, or builds on a variable
// that holds one; any other value clears it.
func (l *Locations) Assign(name, value string, line int) {
	if loc, ok := LocatesEngine(value); ok {
		loc.Line = line
		l.vars[name] = loc
		return
	}
	if loc, ok := l.engineRef(value); ok {
		l.vars[name] = loc
		return
	}
	if f := literalEngine(trimQuotes(value)); f != "" {
		l.vars[name] = Location{Pkg: f, How: "a literal path", Line: line}
		return
	}
	delete(l.vars, name)
}

// Cd moves the working directory: relative writes after `cd <engine dir>`
// land in the engine.
func (l *Locations) Cd(dir string) {
	if p, ok := l.EnginePath(dir); ok {
		l.cwd = &p
		return
	}
	l.cwd = nil
}

// engineRef reports whether s refers to a variable holding an engine
// location.
func (l *Locations) engineRef(s string) (Location, bool) {
	if l == nil {
		return Location{}, false
	}
	for _, m := range shellVarRE.FindAllStringSubmatch(s, -1) {
		if loc, ok := l.vars[m[1]]; ok {
			return loc, true
		}
	}
	return Location{}, false
}

// EnginePath reports whether p, a path as written in a script, lies in an
// engine install: site-packages/dist-packages, an engine's tree at an
// absolute path in the image (/sgl-workspace/sglang, /vllm-workspace, …), a
// variable that holds a located install, or a relative path after a cd into
// one. Relative paths otherwise resolve in the harness checkout, and paths
// under the harness (its variables, /workspace mounts, scratch) never count.
func (l *Locations) EnginePath(p string) (Location, bool) {
	p = trimQuotes(p)
	if p == "" {
		return Location{}, false
	}
	if f := siteFrag(p); f != "" {
		return Location{Pkg: f, How: "a literal path"}, true
	}
	if loc, ok := l.engineRef(p); ok {
		return loc, true
	}
	if strings.HasPrefix(p, "$") || strings.HasPrefix(p, "~") {
		return Location{}, false // a location this script did not locate
	}
	if strings.HasPrefix(p, "/") {
		if f := literalEngine(p); f != "" {
			return Location{Pkg: f, How: "a literal path"}, true
		}
		return Location{}, false
	}
	if l != nil && l.cwd != nil {
		return *l.cwd, true
	}
	return Location{}, false
}

// siteFrag is the site-packages/<pkg> (or dist-packages) part of p, "".
func siteFrag(p string) string {
	for _, d := range []string{"site-packages", "dist-packages"} {
		i := strings.Index(p, d)
		if i < 0 {
			continue
		}
		f := p[i:]
		rest := strings.TrimPrefix(f[len(d):], "/")
		if j := strings.IndexAny(rest, "/\"' "); j >= 0 {
			rest = rest[:j]
		}
		if rest == "" || strings.ContainsAny(rest, "$*") {
			return d
		}
		return d + "/" + rest
	}
	return ""
}

// literalEngine is the engine directory an absolute literal path names
// (outside the harness roots), or "".
func literalEngine(p string) string {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "$") {
		return ""
	}
	p = path.Clean(p)
	for _, r := range harnessRoots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return ""
		}
	}
	if f := siteFrag(p); f != "" {
		return f
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if engineDirs[s] {
			if strings.HasSuffix(s, "-workspace") && i+1 < len(segs) {
				i++ // the checkout inside the workspace: /sgl-workspace/sglang
			}
			return "/" + strings.Join(segs[:i+1], "/")
		}
	}
	return ""
}

// Write is one path a command writes, with how it writes it.
type Write struct {
	Path string
	Verb string // "rewrites", "copies files into", "overwrites"
}

// Writes are the paths a command writes: the destination of cp, install,
// rsync, mv, ln and docker cp; the files of sed -i; tee's files; patch's
// directory or file; redirection targets of its text.
func Writes(argv []string, raw string) []Write {
	var out []Write
	add := func(verb string, ps ...string) {
		for _, p := range ps {
			out = append(out, Write{Path: p, Verb: verb})
		}
	}
	for _, m := range redirectRE.FindAllStringSubmatch(raw, -1) {
		if t := trimQuotes(m[1]); t != "" && !strings.HasPrefix(t, "&") && !strings.HasPrefix(t, "/dev/") {
			add("overwrites", t)
		}
	}
	for len(argv) > 0 && (argv[0] == "sudo" || argv[0] == "command" || argv[0] == "exec") {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return out
	}
	name := path.Base(argv[0])
	args := argv[1:]
	if name == "docker" && len(args) > 0 && args[0] == "cp" {
		name, args = "cp", args[1:]
	}
	operands := func(args []string) []string {
		var ops []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") || a == "-" {
				ops = append(ops, a)
			}
		}
		return ops
	}
	switch name {
	case "cp", "install", "rsync", "mv", "ln":
		if ops := operands(args); len(ops) >= 2 {
			dst := ops[len(ops)-1]
			if name == "cp" || name == "rsync" {
				if i := strings.Index(dst, ":"); i > 0 && !strings.Contains(dst[:i], "/") {
					dst = dst[i+1:] // container:path
				}
			}
			add("copies files into", dst)
		}
		for i, a := range args {
			if (a == "-t" || a == "--target-directory") && i+1 < len(args) {
				add("copies files into", args[i+1])
			} else if v, ok := strings.CutPrefix(a, "--target-directory="); ok {
				add("copies files into", v)
			}
		}
	case "sed":
		inPlace, script := false, false
		var ops []string
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
				inPlace = true
			case a == "-e" || a == "-f" || a == "--expression" || a == "--file":
				script = true
				i++
			case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
				script = true
			case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 1:
				if strings.Contains(a, "i") {
					inPlace = true
				}
				if strings.ContainsAny(a, "ef") {
					script = true
					i++
				}
			default:
				ops = append(ops, a)
			}
		}
		if inPlace {
			if !script && len(ops) > 0 {
				ops = ops[1:]
			}
			add("rewrites", ops...)
		}
	case "tee":
		add("overwrites", operands(args)...)
	case "patch":
		// patch [options] [originalfile [patchfile]]; -d DIR changes into DIR.
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-d" || a == "--directory":
				if i+1 < len(args) {
					add("patches", args[i+1])
				}
				i++
			case strings.HasPrefix(a, "--directory="):
				add("patches", strings.TrimPrefix(a, "--directory="))
			case a == "-i" || a == "-o" || a == "-r" || a == "-D" || a == "-B" || a == "-F" || a == "-z" || a == "-V" || a == "-Y":
				i++ // the option's value
			case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "<"):
			default:
				add("patches", a)
				i = len(args)
			}
		}
	}
	return out
}

// LineWords splits one line of shell-like text (a YAML value, an added line of
// a file the shell reader does not read) into the words of its first
// command segment that starts with a command: quotes dropped, YAML list
// markers and keys skipped.
func LineWords(line string) []string {
	var out []string
	for _, f := range strings.Fields(line) {
		f = trimQuotes(f)
		if len(out) == 0 && (f == "-" || strings.HasSuffix(f, ":") || f == "") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// trimQuotes drops one level of surrounding quotes.
func trimQuotes(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return strings.Trim(s, `"'`)
}
