package changeset

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/checks/format/shell/trace"
	"github.com/verdict-bot/verdict/checks/inferencex/benchjob"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// The dry runs a change set makes are bounded: the first configs in key
// order, and per config the first job of each search-space element and
// launcher, each trace within its own step and time bounds.
const (
	maxTracedConfigs = 32
	maxTracedJobs    = 4
	traceSteps       = 5000
	traceTimeout     = 3 * time.Second
)

// traced adds to each affected single-node config the settings its server
// launch has in a dry run of its benchmark job (benchjob): the flags and
// environment with every value resolved as bash resolves it. They come
// after the statically read settings, so a value the static reading could
// not resolve (SPEC_NUM_TOKENS="${SPEC_NUM_TOKENS:-2}", an array built in
// a helper function) is decided by what the job would pass.
func (b *builder) traced() {
	files := readerFiles{reader: b.reader, ref: b.head, root: b.layout.Root}
	var labels map[string][]string
	if data, err := files.ReadFile(b.ctx, b.runnerLabels()); err == nil {
		labels, _ = benchjob.Runners(data)
	}
	n := 0
	for _, e := range b.cs.Affected {
		if e.MultiNode {
			if settings := exportedSettings(e); len(settings) > 0 {
				b.cs.Effective[e.Key] = append(b.cs.Effective[e.Key], &repo.EffectiveFile{Path: e.File, Kind: "config", Settings: settings})
			}
			continue
		}
		if n >= maxTracedConfigs {
			continue
		}
		n++
		seen := map[string]bool{}
		var settings []repo.Setting
		jobs := 0
		for _, j := range benchjob.Jobs(e, labels) {
			element, _, _ := strings.Cut(j.Point, " conc=")
			if k := j.Launcher + "\x00" + element; seen[k] || jobs >= maxTracedJobs {
				continue
			} else {
				seen[k] = true
			}
			jobs++
			ctx, cancel := context.WithTimeout(b.ctx, traceTimeout)
			opt := trace.Options{MaxSteps: traceSteps, Timeout: traceTimeout}
			var tr *trace.Trace
			if exists, _ := files.Stat(ctx, j.Launcher); exists {
				tr = benchjob.Run(ctx, files, j, opt)
			} else if script := b.scriptPath(e); script != "" {
				// No launcher for the runner (a repository that starts
				// its scripts otherwise): the script the config names,
				// with the job's environment.
				opt.Root, opt.Env = benchjob.Root, j.Env
				tr = trace.Run(ctx, files, strings.TrimPrefix(script, b.layout.Root), opt)
			}
			cancel()
			if tr == nil {
				continue
			}
			settings = append(settings, serverSettings(tr, b.layout.Root)...)
		}
		if len(settings) > 0 {
			b.cs.Effective[e.Key] = append(b.cs.Effective[e.Key], &repo.EffectiveFile{Path: "(dry run of " + e.Key + ")", Kind: "trace", Settings: settings})
		}
	}
}

// runnerLabels is the file of runner labels, relative to the layout's
// root.
func (b *builder) runnerLabels() string {
	return strings.TrimPrefix(path.Join(b.layout.ConfigsDir, "runners.yaml"), b.layout.Root)
}

// prefetchTraced starts the reads the dry runs begin with, beside the
// effective files', so that they add no round trip of their own.
func (b *builder) prefetchTraced() {
	files := readerFiles{reader: b.reader, ref: b.head, root: b.layout.Root}
	go files.ReadFile(b.ctx, b.runnerLabels())
}

// exportedSettings are the additional-settings of a multi-node config's
// search space, which the multi-node workflow exports into the job's
// environment before it starts the launcher (the launchers hand them to
// the recipe: SYNTHETIC_ACCEPTANCE=true with SYNTHETIC_ACCEPTANCE_LENGTH
// pins the acceptance). CONFIG_FILE names a recipe, read as one. They are
// environment settings of every role.
func exportedSettings(e *repo.ConfigEntry) []repo.Setting {
	var out []repo.Setting
	seen := map[string]bool{}
	for _, sc := range e.Scenarios {
		for _, sp := range sc.Search {
			f := sp.Fields.Map()
			for _, side := range []string{"prefill", "decode"} {
				m, ok := f[side].(map[string]any)
				if !ok {
					continue
				}
				list, _ := m["additional-settings"].([]any)
				for _, it := range list {
					k, v, ok := strings.Cut(fmt.Sprint(it), "=")
					k = strings.TrimSpace(k)
					if !ok || k == "" || strings.HasPrefix(k, "CONFIG_FILE") || seen[k+"="+v] {
						continue
					}
					seen[k+"="+v] = true
					out = append(out, repo.Setting{Name: k, Value: strings.Trim(v, `"'`), File: e.File, Line: e.Line, Kind: "env"})
				}
			}
		}
	}
	return out
}

// serverSettings are the flags and exported environment of the server
// launches in a trace.
func serverSettings(tr *trace.Trace, root string) []repo.Setting {
	var out []repo.Setting
	for _, s := range tr.Steps {
		if s.Kind != trace.Exec || !isServerLaunch(s.Argv) {
			continue
		}
		file := root + s.File
		for i := 1; i < len(s.Argv); i++ {
			a := s.Argv[i]
			if !strings.HasPrefix(a, "--") || a == "--" {
				continue
			}
			name, val, ok := strings.Cut(a, "=")
			if !ok {
				val = "true"
				if i+1 < len(s.Argv) && !strings.HasPrefix(s.Argv[i+1], "--") {
					val = s.Argv[i+1]
					i++
				}
			}
			out = append(out, repo.Setting{Name: name, Value: val, File: file, Line: s.Line, Kind: "flag"})
		}
		for k, v := range s.Env {
			out = append(out, repo.Setting{Name: k, Value: v, File: file, Line: s.Line, Kind: "env"})
		}
	}
	return out
}

// isServerLaunch reports whether argv starts an inference server: vllm
// serve, trtllm-serve, or python -m with a serving module.
func isServerLaunch(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch base := path.Base(argv[0]); {
	case base == "vllm":
		return len(argv) > 1 && argv[1] == "serve"
	case base == "trtllm-serve":
		return true
	case strings.HasPrefix(base, "python"):
		for i := 1; i+1 < len(argv); i++ {
			if argv[i] == "-m" {
				m := argv[i+1]
				return strings.HasPrefix(m, "sglang.launch_server") || strings.HasPrefix(m, "vllm.entrypoints") ||
					strings.HasPrefix(m, "tensorrt_llm")
			}
		}
	}
	return false
}

// readerFiles is the repository at one commit as a trace reads it, the
// layout's root being the workspace's.
type readerFiles struct {
	reader *repo.Reader
	ref    string
	root   string
}

func (f readerFiles) ReadFile(ctx context.Context, name string) ([]byte, error) {
	// Whether it exists is asked of its directory's listing (one read
	// per directory, most already made), not of a read that fails.
	if exists, dir := f.Stat(ctx, name); !exists || dir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	b, err := f.reader.Read(ctx, f.ref, f.root+name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return b, nil
}

// Stat lists the parent directory (once per directory, cached by the
// reader) rather than reading the file.
func (f readerFiles) Stat(ctx context.Context, name string) (bool, bool) {
	full := f.root + name
	dir := path.Dir(full)
	if dir == "." {
		dir = ""
	}
	es, err := f.reader.List(ctx, f.ref, dir)
	if err != nil {
		return false, false
	}
	for _, e := range es {
		if e.Name == path.Base(full) {
			return true, e.Type == "dir"
		}
	}
	return false, false
}
