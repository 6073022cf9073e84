package changeset

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/shell"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// affected computes Affected, UnmappedFiles and Effective.
func (b *builder) affected() {
	cs := b.cs
	if cs.MasterHead == nil {
		return
	}
	keys := map[string]bool{}
	for _, k := range cs.Touched() {
		keys[k] = true
	}
	for _, k := range cs.Selected {
		keys[k] = true
	}

	// Map changed benchmark/runner files to the configs whose effective
	// recipe or script they are.
	var runtimeChanged []checks.ChangedFile
	for _, f := range cs.Files {
		if b.isRuntimeFile(f.Path) {
			runtimeChanged = append(runtimeChanged, f)
		}
	}
	if len(runtimeChanged) > 0 {
		rev := map[string][]string{}
		for k, e := range cs.MasterHead {
			for _, p := range b.primaryFiles(e) {
				rev[p] = append(rev[p], k)
			}
		}
		for _, f := range runtimeChanged {
			ks := append([]string(nil), rev[f.Path]...)
			if f.PreviousPath != "" {
				ks = append(ks, rev[f.PreviousPath]...)
			}
			if len(ks) == 0 {
				cs.UnmappedFiles = append(cs.UnmappedFiles, f.Path)
			}
			for _, k := range ks {
				keys[k] = true
			}
		}
		sort.Strings(cs.UnmappedFiles)
	}

	for _, k := range sortedKeys(keys) {
		e, ok := cs.MasterHead[k]
		if !ok {
			continue
		}
		c := *e // copied: recipe-based classification must not touch the shared map
		cs.Affected = append(cs.Affected, &c)
	}
	b.prefetchTraced()
	b.effective()
	b.traced()
}

// isRuntimeFile reports whether p is a benchmark or runner file
// (documentation next to them is not).
func (b *builder) isRuntimeFile(p string) bool {
	l := b.layout
	if repo.IsDocFile(p) {
		return false
	}
	return strings.HasPrefix(p, strings.TrimSuffix(l.BenchmarksDir, "/")+"/") ||
		strings.HasPrefix(p, strings.TrimSuffix(l.RunnersDir, "/")+"/")
}

// primaryFiles are the recipe and script paths a config names or follows by
// convention (helpers and launchers are not mapped back to configs).
func (b *builder) primaryFiles(e *repo.ConfigEntry) []string {
	var out []string
	out = append(out, b.recipePaths(e)...)
	if s := b.scriptPath(e); s != "" {
		out = append(out, s)
	}
	return out
}

func (b *builder) recipePaths(e *repo.ConfigEntry) []string {
	seen := map[string]bool{}
	var out []string
	for _, sc := range e.Scenarios {
		for _, ss := range sc.Search {
			// A selector suffix (recipe.yaml:zip_override_x[0]) names the
			// recipe's jobs, not another file: the file is the recipe, and
			// the bands of Check 11 select the variant from the selector.
			for _, r := range repo.RecipeRefs(b.layout, ss) {
				if r.Path != "" && !seen[r.Path] {
					seen[r.Path] = true
					out = append(out, r.Path)
				}
			}
		}
	}
	return out
}

// scriptDirs are the single-node script directories by convention.
func (b *builder) scriptDirs() []string {
	sn := path.Join(b.layout.BenchmarksDir, "single_node")
	return []string{path.Join(sn, "agentic"), path.Join(sn, "fixed_seq_len"), sn}
}

// scriptNames lists the existing file names of the single-node script
// directories at H (each directory listed once per verification).
func (b *builder) scriptNames() map[string]bool {
	c := b.files
	c.mu.Lock()
	names := c.scripts
	c.mu.Unlock()
	if names != nil {
		return names
	}
	names = map[string]bool{}
	b.listDirs(true)
	for _, d := range b.scriptDirs() {
		es, err := b.reader.List(b.ctx, b.head, d)
		if err != nil {
			continue
		}
		for _, e := range es {
			if e.Type != "dir" {
				names[path.Join(d, e.Name)] = true
			}
		}
	}
	c.mu.Lock()
	c.scripts = names
	c.mu.Unlock()
	return names
}

// scriptPath resolves a single-node config's benchmark script by the naming
// convention benchmarks/single_node/[agentic/|fixed_seq_len/]
// <prefix>_<precision>_<hwbase>[_<framework>][_mtp].sh, preferring the most
// specific existing name.
func (b *builder) scriptPath(e *repo.ConfigEntry) string {
	if e.MultiNode || e.ModelPrefix == "" || e.Precision == "" || e.SKU == "" {
		return ""
	}
	names := b.scriptNames()
	if len(names) == 0 {
		return ""
	}
	specs := []string{""}
	if e.SpecDecode {
		specs = []string{"_mtp", ""}
		for _, sc := range e.Scenarios {
			for _, ss := range sc.Search {
				if d := strings.ToLower(ss.SpecDecoding); d != "" && d != "none" && d != "mtp" {
					specs = []string{"_" + d, "_mtp", ""}
				}
			}
		}
	}
	dirs := b.scriptDirs()
	if e.Agentic {
		dirs = []string{dirs[0], dirs[2]}
	} else {
		dirs = []string{dirs[1], dirs[2]}
	}
	stem := e.ModelPrefix + "_" + e.Precision + "_" + e.SKU
	for _, sp := range specs {
		for _, fw := range []string{"_" + e.Framework, ""} {
			for _, d := range dirs {
				p := path.Join(d, stem+fw+sp+".sh")
				if names[p] {
					return p
				}
			}
		}
	}
	return ""
}

// launchers are the runner launch scripts for a config's runner.
func (b *builder) launchers(e *repo.ConfigEntry) []string {
	es, err := b.reader.List(b.ctx, b.head, b.layout.RunnersDir)
	if err != nil {
		return nil
	}
	r := strings.TrimPrefix(strings.ToLower(e.Runner), "cluster:")
	var out []string
	for _, x := range es {
		n := strings.TrimSuffix(x.Name, ".sh")
		if x.Type == "dir" || n == x.Name {
			continue
		}
		if n == "launch_"+r || n == "launch_"+e.SKU || strings.HasPrefix(n, "launch_"+e.SKU+"-") {
			out = append(out, x.Path)
		}
	}
	sort.Strings(out)
	return out
}

// listDirs lists, all at once, the directories scripts (withScripts) and
// launchers are looked up in, so that the lookups find them read rather
// than reading them one after another. The runners directory goes along
// with the script directories: the affected configs' launchers follow.
func (b *builder) listDirs(withScripts bool) {
	dirs := []string{b.layout.RunnersDir}
	if withScripts {
		dirs = append(dirs, b.scriptDirs()...)
	}
	repo.Parallel(repo.MaxReads, len(dirs), func(i int) { b.reader.List(b.ctx, b.head, dirs[i]) })
}

type effRef struct {
	path, kind string
}

// effective reads and parses the effective files of every affected config:
// recipes, script, launchers, then the helpers they source or run (two
// levels deep), each file once.
func (b *builder) effective() {
	cs := b.cs
	if len(cs.Affected) > 0 {
		single := false
		for _, e := range cs.Affected {
			single = single || !e.MultiNode
		}
		b.listDirs(single)
	}
	perKey := map[string][]effRef{}
	var want []effRef
	for _, e := range cs.Affected {
		var refs []effRef
		for _, p := range b.recipePaths(e) {
			refs = append(refs, effRef{p, "recipe"})
		}
		if s := b.scriptPath(e); s != "" {
			refs = append(refs, effRef{s, "script"})
		}
		for _, p := range b.launchers(e) {
			refs = append(refs, effRef{p, "launcher"})
		}
		perKey[e.Key] = refs
		want = append(want, refs...)
	}
	b.load(want)
	for depth := 0; depth < 2; depth++ {
		var more []effRef
		for k, refs := range perKey {
			for _, r := range refs {
				for _, h := range b.helpers(b.parsed[r.path]) {
					if !containsRef(refs, h) {
						perKey[k] = append(perKey[k], effRef{h, "helper"})
						more = append(more, effRef{h, "helper"})
					}
				}
			}
		}
		if len(more) == 0 {
			break
		}
		b.load(more)
	}
	var extra []effRef
	for _, f := range cs.Files {
		if _, done := b.parsed[f.Path]; !done && f.Status != "removed" && b.isRuntimeFile(f.Path) {
			extra = append(extra, effRef{f.Path, "changed"})
		}
	}
	b.load(extra)
	for _, r := range extra {
		cs.Extra = append(cs.Extra, b.parsed[r.path])
	}
	for _, e := range cs.Affected {
		for _, r := range perKey[e.Key] {
			ef := b.parsed[r.path]
			cs.Effective[e.Key] = append(cs.Effective[e.Key], ef)
			if r.kind == "recipe" && ef.Err == "" && RecipeIsSpecDecode(ef) {
				e.SpecDecode = true
			}
		}
	}
}

func containsRef(rs []effRef, p string) bool {
	for _, r := range rs {
		if r.path == p {
			return true
		}
	}
	return false
}

// load reads and parses the files not parsed yet, concurrently.
func (b *builder) load(refs []effRef) {
	var todo []effRef
	for _, r := range refs {
		if _, ok := b.parsed[r.path]; !ok {
			b.parsed[r.path] = nil
			todo = append(todo, r)
		}
	}
	out := make([]*repo.EffectiveFile, len(todo))
	repo.Parallel(repo.MaxReads, len(todo), func(i int) {
		out[i] = b.parse(todo[i])
	})
	for i, r := range todo {
		b.parsed[r.path] = out[i]
		if out[i].Err != "" {
			b.cs.problem(r.path, out[i].Err)
		}
	}
}

func (b *builder) parse(r effRef) *repo.EffectiveFile {
	return cached(&b.files.mu, b.files.parsed, r, func() *repo.EffectiveFile { return b.read(r) })
}

// read reads and parses one file at H.
func (b *builder) read(r effRef) *repo.EffectiveFile {
	ef := &repo.EffectiveFile{Path: r.path, Kind: r.kind, Changed: b.cs.IsChanged(r.path)}
	data, err := b.reader.Read(b.ctx, b.head, r.path)
	if err != nil {
		if errors.Is(err, checks.ErrNotFound) {
			ef.Err = fmt.Sprintf("referenced %s file %s is not in the repository at %s", r.kind, r.path, checks.Short(b.head))
		} else {
			ef.Err = err.Error()
		}
		return ef
	}
	ef.Read(data)
	return ef
}

// helpers resolves the repository files a script sources or runs (source
// x.sh, . x.sh, bash x.sh, sh x.sh, wherever the command sits), and those a
// recipe's benchmark command runs, as the parser reads their paths: from
// the directory the command runs in, following the variables and cds before
// it. A file in a directory the script cloned, extracted or created (git
// clone … Mooncake; cd Mooncake && bash dependencies.sh) belongs to another
// project and is not a helper.
func (b *builder) helpers(ef *repo.EffectiveFile) []string {
	if ef == nil {
		return nil
	}
	return cached(&b.files.mu, b.files.helpers, ef, func() []string { return b.resolveHelpers(ef) })
}

// resolveHelpers is helpers without the cache.
func (b *builder) resolveHelpers(ef *repo.EffectiveFile) []string {
	scripts := []*shell.Script{ef.Script}
	for _, s := range ef.Settings {
		if s.Kind == "command" && s.Name == "command" {
			if sc, err := shell.Parse(ef.Path, []byte(s.Value)); err == nil {
				scripts = append(scripts, sc)
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, sc := range scripts {
		if sc == nil {
			continue
		}
		for _, r := range scriptRuns(sc) {
			if p := b.resolveHelper(ef.Path, r); p != "" && p != ef.Path && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// run is one file a script sources or runs.
type run struct {
	arg shell.Word
	dir shell.Dir
	ok  bool
}

// scriptRuns lists the *.sh / *.bash files a script sources or hands to
// bash or sh as the script to run.
func scriptRuns(sc *shell.Script) []run {
	var out []run
	for _, s := range sc.Sources() {
		out = append(out, run{s.Arg, s.Path, s.OK})
	}
	for _, c := range sc.ByName("bash", "sh") {
		_, args := c.Program()
		for i := 0; i < len(args); i++ {
			v := args[i].Value
			if v == "-c" || args[i].Static && strings.HasPrefix(v, "-") && strings.Contains(v, "c") && !strings.HasPrefix(v, "--") {
				break // the operand is code, parsed with the script
			}
			if args[i].Static && strings.HasPrefix(v, "-") {
				if v == "-o" || v == "-O" || v == "+o" || v == "+O" {
					i++
				}
				continue
			}
			d, ok := sc.Path(args[i], c)
			out = append(out, run{args[i], d, ok})
			break
		}
	}
	return out
}

// resolveHelper maps a sourced or run file to its repository path, "" when
// it is not a repository file the script names statically.
func (b *builder) resolveHelper(script string, r run) string {
	t := strings.Trim(r.arg.Text, `"'`)
	if r.dir.External() || !repo.IsShellFile(t) && !repo.IsShellFile(r.dir.Path) {
		return ""
	}
	if !r.ok {
		// A path under the container workspace the harness mounts the
		// project at, named through its environment variable.
		for _, ref := range []string{"${" + repo.ContainerWorkspaceVar + "}", "$" + repo.ContainerWorkspaceVar} {
			if rest, ok := strings.CutPrefix(t, ref); ok && !strings.Contains(rest, "$") {
				return b.workspaceFile(rest)
			}
		}
		return ""
	}
	dir := path.Dir(script)
	switch r.dir.Base {
	case shell.DirScript:
		return path.Clean(path.Join(dir, r.dir.Path))
	case shell.DirAbs:
		// The project root is mounted at a fixed container workspace.
		if rest, ok := strings.CutPrefix(r.dir.Path, repo.ContainerWorkspace+"/"); ok {
			return b.workspaceFile(rest)
		}
		return ""
	case shell.DirStart, shell.DirCaller:
		// Where the script starts is not known statically; by the
		// repository's convention a path that names a directory is relative
		// to the project root (the workflows run from the checkout), a bare
		// name or ./ ../ relative to the script itself.
		if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || !strings.Contains(r.dir.Path, "/") {
			return path.Clean(path.Join(dir, r.dir.Path))
		}
		return path.Clean(path.Join(b.layout.Root, r.dir.Path))
	}
	return ""
}

// workspaceFile maps a path below the container workspace to the
// repository file it mounts: the project root first, then the repository
// root. The mount point is a convention, so a path that is in neither is
// not claimed as an (unreadable) helper.
func (b *builder) workspaceFile(rest string) string {
	rest = strings.TrimPrefix(path.Clean("/"+rest), "/")
	cands := []string{path.Join(b.layout.Root, rest)}
	if b.layout.Root != "" {
		cands = append(cands, rest)
	}
	for _, p := range cands {
		if _, err := b.reader.Read(b.ctx, b.head, p); err == nil || !errors.Is(err, checks.ErrNotFound) {
			return p
		}
	}
	return ""
}

// RecipeIsSpecDecode applies the recipe rule of spec-decode classification:
// any speculative_* setting makes the config spec-decode.
func RecipeIsSpecDecode(ef *repo.EffectiveFile) bool {
	for _, s := range ef.Settings {
		n := repo.SnakeName(s.Name)
		switch {
		case strings.HasSuffix(n, "speculative_config"), strings.HasSuffix(n, "speculative_algorithm"),
			strings.HasSuffix(n, "num_speculative_tokens"), strings.HasPrefix(n, "speculative_"):
			return true
		case strings.HasSuffix(n, "speculative_config.method") && s.Value != "":
			return true
		}
	}
	return false
}
