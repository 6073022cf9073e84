package serving

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

var (
	// Also inside quoted strings and argument lists of scripts that shell
	// out: os.system("git apply x"), subprocess.run(["git", "apply", x]).
	gitApplyRE    = regexp.MustCompile(`(^|[\s;&|("'\[,])git["']?\s*,?\s*(["']?-C["']?\s*,?\s*\S+\s+)?["']?(apply|am)\b`)
	patchCmdRE    = regexp.MustCompile(`(^|[\s;&|("'])patch\s+(-[A-Za-z]*p\d|--strip|-i\s|<)`)
	startupRE     = regexp.MustCompile(`\b(sitecustomize|usercustomize|PYTHONSTARTUP)\b|\S+\.pth\b`)
	pyWriteRE     = regexp.MustCompile(`write_text|\.write\(|open\([^)]*["'][wa]\+?["']|\.replace\(|re\.sub\(|shutil\.copy`)
	pipInstallRE  = regexp.MustCompile(`(^|[\s;&|(])(pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\s+(.*)$`)
	pkgNameRE     = regexp.MustCompile(`^[A-Za-z0-9_.\-]+`)
	pythonInline  = regexp.MustCompile(`(^|[\s;&|("'])python[0-9.]*\s+(-[A-Za-z]+\s+)*-c\b`)
	pathTokenRE   = regexp.MustCompile(`[A-Za-z0-9_.${}~@+-]*/[A-Za-z0-9_./${}~@*+-]*`)
	segmentSplit  = regexp.MustCompile(`&&|\|\||[;|]`)
	assignWordRE  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$`)
	declareBuilds = map[string]bool{"export": true, "local": true, "declare": true, "readonly": true, "typeset": true}
)

// servingStack are pip package names of the serving stack; installing or
// replacing them changes what is benchmarked. Client/harness packages
// (aiperf, lm_eval, tabulate, ...) are not listed and are allowed.
var servingStack = map[string]bool{
	"vllm": true, "sglang": true, "sgl-kernel": true, "sgl_kernel": true, "tensorrt_llm": true, "tensorrt-llm": true,
	"flashinfer": true, "flashinfer-python": true, "aiter": true, "amd-aiter": true, "atom": true, "triton": true,
	"deep_ep": true, "deep-ep": true, "deepep": true, "torch": true, "flash-attn": true, "flash_attn": true, "xformers": true,
}

// Stack is the set of pip package names whose installation changes what
// a change set's configs serve: the serving stack, and the frameworks the
// affected configs name (a config served by tilert has tilert in its
// stack). The zero Stack is the serving stack alone.
type Stack map[string]bool

// StackOf is the stack of configs served by frameworks: each framework
// name and its dash-separated parts (dynamo-sglang: dynamo, sglang).
func StackOf(frameworks ...string) Stack {
	s := Stack{}
	for _, f := range frameworks {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		s[f] = true
		for _, part := range strings.Split(f, "-") {
			if len(part) > 2 {
				s[part] = true
			}
		}
	}
	return s
}

func (s Stack) has(pkg string) bool { return servingStack[pkg] || s[pkg] }

// PatchingInLine scans one line of text that is not read as shell (a YAML
// value, an added line of a workflow or Python file) for patch indicators;
// each command segment of the line is read as words.
func PatchingInLine(t string) (what, zh string) { return Stack(nil).PatchingInLine(t) }

// PatchingInLine is the package's PatchingInLine with s as the stack.
func (s Stack) PatchingInLine(t string) (what, zh string) {
	t = repo.StripComment(t)
	for _, seg := range segmentSplit.Split(t, -1) {
		if w, z := s.patchingIn(LineWords(seg), seg, nil); w != "" {
			return s.notHarness(w, z, t)
		}
	}
	w, z := s.patchingIn(nil, t, nil)
	return s.notHarness(w, z, t)
}

// harnessRE names the benchmark's client and evaluation harness.
var harnessRE = regexp.MustCompile(`(?i)lm[_-]?eval|lm-evaluation-harness|aiperf|bench_serving`)

// containsWord reports whether w occurs in t as a whole word.
func containsWord(t, w string) bool {
	word := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for from := 0; ; {
		i := strings.Index(t[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if (i == 0 || !word(t[i-1])) && (i+len(w) == len(t) || !word(t[i+len(w)])) {
			return true
		}
		from = i + 1
	}
}

// notHarness drops a Python startup hook that is the harness's: one whose
// command (and heredoc) names the client or evaluation harness (lm-eval's
// filters patched through sitecustomize) and no package of the stack.
// Patching the client or harness is not an engine patch.
func (s Stack) notHarness(what, zh, text string) (string, string) {
	if !strings.HasPrefix(what, "monkey-patches Python startup") || !harnessRE.MatchString(text) {
		return what, zh
	}
	lower := strings.ToLower(text)
	for _, set := range []map[string]bool{servingStack, s} {
		for pkg := range set {
			if containsWord(lower, pkg) {
				return what, zh
			}
		}
	}
	return "", ""
}

// patchingIn applies the indicators to one command: its words, its text and
// what the script located so far (nil for none).
func (s Stack) patchingIn(argv []string, raw string, loc *Locations) (what, zh string) {
	t := repo.StripComment(raw)
	switch {
	case gitApplyRE.MatchString(t):
		return "applies a patch (git apply)", "应用补丁（`git apply`）"
	case patchCmdRE.MatchString(t):
		return "applies a patch (patch)", "应用补丁（patch）"
	}
	for _, w := range Writes(argv, t) {
		if where, ok := loc.EnginePath(w.Path); ok {
			en, cn := enginePlace(w.Path, where)
			switch w.Verb {
			case "rewrites", "patches":
				return "rewrites " + en, "改写 " + cn
			case "copies files into":
				return "copies files into " + en, "向 " + cn + " 复制文件"
			default:
				return "overwrites " + en, "覆盖 " + cn
			}
		}
	}
	if m := startupRE.FindString(t); m != "" {
		return "monkey-patches Python startup (" + m + ")", "通过 " + m + " 修改 Python 启动行为"
	}
	if pythonInline.MatchString(t) && pyWriteRE.MatchString(t) {
		if where, ok := engineText(t, loc); ok {
			en, cn := enginePlace("", where)
			return "rewrites " + en + " from inline Python", "通过内联 Python 改写 " + cn
		}
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
				if n := strings.ToLower(pkgNameRE.FindString(a)); s.has(n) {
					return "installs serving-stack package " + a, "安装服务栈软件包 " + a
				}
			}
		}
	}
	return "", ""
}

// enginePlace names a written engine path for a reason: the path as
// written and, for a located install, how the script found it.
func enginePlace(written string, where Location) (en, zh string) {
	if where.How == "a literal path" {
		if strings.Contains(written, "$") {
			// A variable set to an engine path: name both.
			return written + " (" + where.Pkg + ")", written + "（" + where.Pkg + "）"
		}
		return where.Pkg, where.Pkg
	}
	if written == "" {
		return fmt.Sprintf("the %s install located with %s", where.Pkg, where.How),
			fmt.Sprintf("通过 %s 定位的 %s 安装目录", where.HowZH, where.Pkg)
	}
	at := ""
	if where.Line > 0 {
		at = fmt.Sprintf(" at line %d", where.Line)
	}
	atZH := ""
	if where.Line > 0 {
		atZH = fmt.Sprintf("（第 %d 行）", where.Line)
	}
	return fmt.Sprintf("%s, the %s install located with %s%s", written, where.Pkg, where.How, at),
		fmt.Sprintf("%s（通过 %s 定位的 %s 安装目录%s）", written, where.HowZH, where.Pkg, atZH)
}

// engineText reports whether text (Python code) reaches an engine install:
// it locates one, names an engine path, or uses a variable that holds one.
func engineText(text string, loc *Locations) (Location, bool) {
	if l, ok := LocatesEngine(text); ok {
		return l, true
	}
	if l, ok := loc.engineRef(text); ok {
		return l, true
	}
	for _, p := range pathTokenRE.FindAllString(text, -1) {
		if f := literalEngine(p); f != "" {
			return Location{Pkg: f, How: "a literal path"}, true
		}
		if f := siteFrag(p); f != "" {
			return Location{Pkg: f, How: "a literal path"}, true
		}
	}
	return Location{}, false
}

// PatchingInCommand applies the indicators to one shell command, heredoc
// included, then records what the command tells about engine locations
// (assignments, cd) for the commands after it.
func PatchingInCommand(c repo.Command, loc *Locations) (what, zh string) {
	return Stack(nil).PatchingInCommand(c, loc)
}

// PatchingInCommand is the package's PatchingInCommand with s as the
// stack.
func (s Stack) PatchingInCommand(c repo.Command, loc *Locations) (what, zh string) {
	what, zh = s.patchingIn(c.Argv(), c.Raw, loc)
	if what == "" && c.Heredoc != "" {
		what, zh = heredocPatching(c, loc)
	}
	loc.follow(c.Words, c.Line)
	return s.notHarness(what, zh, c.Raw+"\n"+c.Heredoc)
}

func heredocPatching(c repo.Command, loc *Locations) (what, zh string) {
	if strings.Contains(c.Raw, "python") && pyWriteRE.MatchString(c.Heredoc) {
		// The file it writes may be in the program or handed to it on
		// its command line (python3 - .../model_config.py <<'PY' with
		// open(sys.argv[1], "w")).
		where, ok := engineText(c.Heredoc, loc)
		if !ok {
			where, ok = engineText(c.Raw, loc)
		}
		if ok {
			en, cn := enginePlace("", where)
			return "rewrites " + en + " from a Python heredoc", "通过 Python heredoc 改写 " + cn
		}
	}
	if m := startupRE.FindString(c.Heredoc); m != "" {
		return "monkey-patches Python startup (" + m + ")", "通过 " + m + " 修改 Python 启动行为"
	}
	return "", ""
}

// follow records a command's assignments (leading NAME=value words, export
// and friends, for loops) and directory changes.
func (l *Locations) follow(words []string, line int) {
	if l == nil {
		return
	}
	argv := words
	for len(argv) > 0 {
		m := assignWordRE.FindStringSubmatch(argv[0])
		if m == nil {
			break
		}
		l.Assign(m[1], m[2], line)
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return
	}
	switch {
	case declareBuilds[argv[0]]:
		for _, a := range argv[1:] {
			if m := assignWordRE.FindStringSubmatch(a); m != nil {
				l.Assign(m[1], m[2], line)
			}
		}
	case argv[0] == "for" && len(argv) >= 3 && argv[2] == "in":
		l.Assign(argv[1], strings.Join(argv[3:], " "), line)
	case argv[0] == "cd" || argv[0] == "pushd":
		dir := ""
		if len(argv) > 1 {
			dir = argv[len(argv)-1]
		}
		l.Cd(dir)
	case argv[0] == "popd":
		l.Cd("")
	}
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
func FindPatching(cs *changeset.Model, allowlist []string) (hits []Found, parsed map[string]bool) {
	var frameworks []string
	for _, e := range cs.Affected {
		frameworks = append(frameworks, e.Framework)
	}
	stack := StackOf(frameworks...)
	parsed = map[string]bool{}
	seen := map[string]int{} // At() → index in hits
	record := func(p Patching, introduced bool) {
		k := p.At()
		if i, ok := seen[k]; ok {
			// A dry run can show a command the static reading took as
			// pre-existing to be new in what the job runs.
			hits[i].Introduced = hits[i].Introduced || introduced
			return
		}
		seen[k] = len(hits)
		hits = append(hits, Found{p, introduced})
	}
	scanLines := func(f *repo.EffectiveFile, from int, added map[int]bool) {
		for i := from; i < len(f.Lines); i++ {
			if line := f.Lines[i]; !repo.IsComment(line) {
				if w, z := stack.PatchingInLine(line); w != "" && !mentionsAllowlisted(line, allowlist) {
					record(Patching{Path: f.Path, Line: i + 1, What: w, WhatZH: z}, added[i+1])
				}
			}
		}
	}
	for _, f := range cs.AllEffective() {
		added := cs.AddedLineSet(f.Path)
		end := 0 // lines the commands cover
		if len(f.Commands) > 0 {
			parsed[f.Path] = true
			loc := NewLocations()
			for _, c := range f.Commands {
				n := strings.Count(c.Raw, "\n") + strings.Count(c.Heredoc, "\n") + 1
				end = max(end, c.Line+n-1)
				w, z := stack.PatchingInCommand(c, loc)
				if w == "" || mentionsAllowlisted(c.Raw, allowlist) {
					continue
				}
				introduced := false
				for i := c.Line; i < c.Line+n; i++ {
					introduced = introduced || added[i]
				}
				record(Patching{Path: f.Path, Line: c.Line, What: w, WhatZH: z}, introduced)
			}
		}
		switch {
		case f.Err != "" && len(f.Lines) > 0:
			// A file the reader gave up on is still text: the lines past
			// what it read are scanned one by one, so a patch there is
			// found (the row also reports the file as unreadable).
			parsed[f.Path] = true
			scanLines(f, end, added)
		case len(f.Commands) == 0 && (strings.HasSuffix(f.Path, ".yaml") || strings.HasSuffix(f.Path, ".yml")):
			parsed[f.Path] = true
			scanLines(f, 0, added)
		}
	}
	// What the jobs would run, with every value resolved: a patch made
	// through a wrapper function, a variable or a nested script is found
	// by the command that runs. It is introduced when its line is added,
	// or when the job at the base does not run it; for a config the base
	// does not have, when neither the files read statically nor the
	// unchanged lines the command is written on show the patch already
	// (a new config that runs a shared setup script's long-standing patch
	// does not introduce it; one that hands a shared helper new
	// arguments does).
	static := map[string]bool{}
	for _, h := range hits {
		static[h.What] = true
	}
	for _, key := range slices.Sorted(maps.Keys(cs.DryRuns)) {
		dr := cs.DryRuns[key]
		base := map[string]bool{}
		for _, c := range dr.Base {
			base[normalizeRun(c.Text)] = true
		}
		for _, c := range dr.Head {
			w, z := stack.PatchingInLine(c.Text)
			if w == "" || mentionsAllowlisted(c.Text, allowlist) {
				continue
			}
			added := cs.AddedLineSet(c.File)
			introduced := added[c.Line]
			switch {
			case dr.Based:
				introduced = introduced || !base[normalizeRun(c.Text)]
			case !static[w]:
				introduced = introduced || !writtenThere(stack, c, w, added)
			}
			record(Patching{Path: c.File, Line: c.Line, What: w, WhatZH: z}, introduced)
		}
	}
	for _, a := range cs.RuntimeAdded(true) {
		if parsed[a.Path] || strings.HasSuffix(a.Path, ".patch") || strings.HasSuffix(a.Path, ".diff") {
			continue
		}
		if w, z := stack.PatchingInLine(a.Text); w != "" && !mentionsAllowlisted(a.Text, allowlist) {
			record(Patching{Path: a.Path, Line: a.Line, What: w, WhatZH: z}, true)
		}
	}
	return hits, parsed
}

// writtenThere reports whether the lines a dry-run command is written
// on, none of them added by the PR, spell out the patch w themselves.
func writtenThere(stack Stack, c changeset.DryCommand, w string, added map[int]bool) bool {
	if c.Source == "" {
		return false
	}
	for i := c.Line; i <= c.Line+strings.Count(c.Source, "\n"); i++ {
		if added[i] {
			return false
		}
	}
	got, _ := stack.PatchingInLine(c.Source)
	return got == w
}

// longNumber is a run of digits a dry run makes up (a process ID in a
// temporary path): two runs of one job differ there and nowhere else.
var longNumber = regexp.MustCompile(`[0-9]{4,}`)

func normalizeRun(text string) string { return longNumber.ReplaceAllString(text, "N") }

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
