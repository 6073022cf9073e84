package replay

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/checks"
)

// The repository's own tool decides which changelog entries a change adds:
// utils/process_changelog.py takes the "+" lines of
// `git diff <base> <head> -- <changelog>` (refusing any deleted non-blank
// line), loads them as YAML, validates the entries, resolves their config
// keys against the master configs and generates the sweep matrix; its JSON
// output echoes the added entries under changelog_metadata.entries. The
// replay runs it as the repository's run-sweep workflow does:
//
//	python3 utils/process_changelog.py --changelog-file <workspace>/perf-changelog.yaml \
//	    --base-ref <base> --head-ref <head>
//
// from a workspace holding the tool, the configs and the changelog as they
// are at the head commit (extracted with git archive into a temporary
// directory), with GIT_DIR pointing at the repository so its git diff
// reads the real history.

// Running the whole tool costs 3 to 9 seconds per pull request, almost all
// of it in generate_sweep_configs.py, which expands the selected configs
// into a sweep matrix and does not change which entries were added. So by
// default (ToolEntries) the tool runs exactly as above except that its
// calls of generate_sweep_configs.py answer an empty matrix; when it then
// refuses the change, it runs again in full, so every refusal reported is
// the real tool's. The driver also parses YAML with libyaml when PyYAML has
// it (the same documents, five times faster than PyYAML's pure-Python
// parser the tool would use). ToolFull always runs the tool unchanged (a
// refusal that only the matrix generation would raise is then seen too).
const entriesDriver = `import os, runpy, subprocess, sys
import yaml
if getattr(yaml, "__with_libyaml__", False):
    yaml.safe_load = lambda stream: yaml.load(stream, Loader=yaml.CSafeLoader)
script = sys.argv[1]
sys.argv = [script] + sys.argv[2:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
real = subprocess.run
def run(cmd, *args, **kwargs):
    if isinstance(cmd, (list, tuple)) and len(cmd) > 1 and str(cmd[1]).endswith("generate_sweep_configs.py"):
        text = kwargs.get("text") or kwargs.get("universal_newlines")
        return subprocess.CompletedProcess(cmd, 0, stdout="[]" if text else b"[]", stderr="" if text else b"")
    return real(cmd, *args, **kwargs)
subprocess.run = run
runpy.run_path(script, run_name="__main__")
`

// Modes of the changelog comparison.
const (
	ToolEntries = "entries"
	ToolFull    = "full"
	ToolOff     = "off"
)

// toolScript and toolInputs are the tool and what it reads, relative to
// the layout's root: its own package, and the master configs and runner
// list wherever they were at the time (configs/, .github/configs/ before
// July 2026).
const toolScript = "utils/process_changelog.py"

var toolInputs = []string{"utils", "configs", ".github/configs"}

// toolTimeout bounds one run of the tool (it generates sweep matrices).
const toolTimeout = 5 * time.Minute

// Changelog is the comparison of one pull request's added entries.
type Changelog struct {
	// Status is one of:
	//   untouched     the change does not touch the changelog
	//   agree         the tool accepted the change and added the same entries
	//   disagree      the tool accepted the change and added other entries
	//   refused       the tool refused the change (ToolError says why)
	//   no-tool       the tool is not in the repository at that commit
	//   skipped       the comparison was not run (see the report's ToolNote)
	//   error         the tool could not be run
	//   no-changelog  the preset keeps no changelog to compare
	Status    string   `json:"status"`
	Verdict   []string `json:"verdict,omitempty"`
	Tool      []string `json:"tool,omitempty"`
	OnlyOurs  []string `json:"only_verdict,omitempty"`
	OnlyTool  []string `json:"only_tool,omitempty"`
	ToolError string   `json:"tool_error,omitempty"`
	// VerdictProblems are problems Verdict reported on the changelog.
	VerdictProblems []string `json:"verdict_problems,omitempty"`
}

type changelogTool struct {
	repo   *gitsource.Repo
	python string
	full   bool
}

// newChangelogTool checks that python3 with PyYAML and pydantic is there;
// without it the comparison is skipped and the note says why.
func newChangelogTool(ctx context.Context, repo *gitsource.Repo, python string, full bool) (*changelogTool, string) {
	if python == "" {
		python = "python3"
	}
	// The interpreter's own path, so that each run skips launcher shims
	// (pyenv's cost a bash process or two per start).
	cmd := exec.CommandContext(ctx, python, "-c", "import sys, yaml, pydantic; print(sys.executable)")
	cmd.Env = toolEnv(nil)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Sprintf("process_changelog.py was not run: %s cannot import PyYAML and pydantic (%s)", python, lastLine(string(out), err))
	}
	if exe := strings.TrimSpace(string(out)); filepath.IsAbs(exe) && !strings.Contains(exe, "\n") {
		python = exe
	}
	return &changelogTool{repo: repo, python: python, full: full}, ""
}

// compareChangelog compares the entries the rows took as added to cl (nil
// when the preset keeps no changelog) with those the tool takes.
func compareChangelog(ctx context.Context, t *changelogTool, p PR, cl *checks.Changelog) Changelog {
	if cl == nil {
		return Changelog{Status: "no-changelog"}
	}
	c := Changelog{VerdictProblems: cl.Problems}
	for _, e := range cl.Added {
		c.Verdict = append(c.Verdict, entryKey(e.ConfigKeys, e.PRLink))
	}
	sort.Strings(c.Verdict)
	switch {
	case !cl.Changed:
		c.Status = "untouched"
		if len(c.Verdict) > 0 {
			// Nothing was added to a changelog the change does not touch.
			c.Status, c.OnlyOurs = "disagree", c.Verdict
		}
		return c
	case t == nil:
		c.Status = "skipped"
		return c
	}
	entries, status, msg := t.run(ctx, p, *cl)
	c.Status, c.ToolError = status, msg
	if status != "accepted" {
		return c
	}
	for _, e := range entries {
		c.Tool = append(c.Tool, entryKey(e.ConfigKeys, e.PRLink))
	}
	sort.Strings(c.Tool)
	c.OnlyOurs, c.OnlyTool = multisetDiff(c.Verdict, c.Tool), multisetDiff(c.Tool, c.Verdict)
	c.Status = "agree"
	if len(c.OnlyOurs)+len(c.OnlyTool) > 0 {
		c.Status = "disagree"
	}
	return c
}

// entryKey identifies an entry by what selects configs, its config keys,
// and by its PR link (one PR's entry for a config is not another's),
// printed as "keys → link". The description is left out: it selects
// nothing, and its schema changed over time (a string, later a list).
func entryKey(keys []string, link string) string {
	return fmt.Sprintf("%s → %s", strings.Join(keys, ","), link)
}

// multisetDiff is a minus b, both sorted, counting duplicates.
func multisetDiff(a, b []string) []string {
	n := map[string]int{}
	for _, s := range b {
		n[s]++
	}
	var out []string
	for _, s := range a {
		if n[s] > 0 {
			n[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

// toolEntry is one entry of the tool's changelog_metadata.entries.
type toolEntry struct {
	ConfigKeys []string
	PRLink     string
}

func (t *changelogTool) run(ctx context.Context, p PR, cl checks.Changelog) ([]toolEntry, string, string) {
	script := cl.Root + toolScript
	if ok, err := t.repo.Exists(ctx, p.SHA, script); err != nil {
		return nil, "error", err.Error()
	} else if !ok {
		return nil, "no-tool", ""
	}
	paths := []string{script}
	for _, in := range append(append([]string(nil), toolInputs...), strings.TrimPrefix(cl.Path, cl.Root)) {
		if ok, _ := t.repo.Exists(ctx, p.SHA, cl.Root+in); ok {
			paths = append(paths, cl.Root+in)
		}
	}
	archive, err := t.repo.Archive(ctx, p.SHA, paths...)
	if err != nil {
		return nil, "error", err.Error()
	}
	dir, err := os.MkdirTemp("", "verdict-replay-")
	if err != nil {
		return nil, "error", err.Error()
	}
	defer os.RemoveAll(dir)
	if err := untar(archive, dir); err != nil {
		return nil, "error", err.Error()
	}

	out, status, msg := t.exec(ctx, dir, script, p, cl, !t.full)
	if status == "refused" && !t.full {
		out, status, msg = t.exec(ctx, dir, script, p, cl, false)
	}
	if status != "accepted" {
		return nil, status, msg
	}
	entries, err := toolEntries(out)
	if err != nil {
		return nil, "error", err.Error()
	}
	return entries, "accepted", ""
}

// exec runs the tool in the workspace dir, through the entries driver when
// entriesOnly is set; it returns stdout on acceptance.
func (t *changelogTool) exec(ctx context.Context, dir, script string, p PR, cl checks.Changelog, entriesOnly bool) ([]byte, string, string) {
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	args := []string{filepath.Join(dir, filepath.FromSlash(script)),
		"--changelog-file", filepath.Join(dir, filepath.FromSlash(cl.Path)),
		"--base-ref", p.Parent, "--head-ref", p.SHA}
	if entriesOnly {
		args = append([]string{"-c", entriesDriver}, args...)
	}
	cmd := exec.CommandContext(ctx, t.python, args...)
	cmd.Dir = filepath.Join(dir, filepath.FromSlash(cl.Root))
	// The tool starts "python3" itself: the same interpreter, first on PATH.
	env := toolEnv([]string{"GIT_DIR=" + t.repo.GitDir(), "GIT_WORK_TREE=" + dir})
	if filepath.IsAbs(t.python) {
		for i, kv := range env {
			if p, ok := strings.CutPrefix(kv, "PATH="); ok {
				env[i] = "PATH=" + filepath.Dir(t.python) + string(os.PathListSeparator) + p
			}
		}
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, "error", fmt.Sprintf("process_changelog.py did not finish within %s", toolTimeout)
		}
		msg := stderr.String()
		if strings.TrimSpace(msg) == "" {
			msg = stdout.String()
		}
		return nil, "refused", lastLine(msg, err)
	}
	return stdout.Bytes(), "accepted", ""
}

// toolEntries reads changelog_metadata.entries from the tool's JSON (the
// last line of its output that is a JSON object).
func toolEntries(out []byte) ([]toolEntry, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var doc struct {
			Meta *struct {
				Entries []map[string]any `json:"entries"`
			} `json:"changelog_metadata"`
		}
		if json.Unmarshal([]byte(lines[i]), &doc) != nil || doc.Meta == nil {
			continue
		}
		var out []toolEntry
		for _, e := range doc.Meta.Entries {
			link, _ := e["pr-link"].(string)
			out = append(out, toolEntry{ConfigKeys: strs(e["config-keys"]), PRLink: link})
		}
		return out, nil
	}
	return nil, errors.New("process_changelog.py printed no changelog_metadata")
}

func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

// untar extracts regular files and directories of a git archive into dir.
func untar(data []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the workspace", h.Name)
		}
		dst := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// toolEnv is the environment without git variables that would redirect
// the tool's git, plus extra, with bytecode caches off (the workspace is
// thrown away).
func toolEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "PYTHONDONTWRITEBYTECODE=1"), extra...)
}

var exceptionRE = regexp.MustCompile(`^[A-Za-z_][\w.]*(Error|Exception|Exit)\b`)

// lastLine says why a tool failed: the last Python exception line of its
// output with up to two detail lines after it (YAML and pydantic errors
// put the specifics there), else its last non-empty line, else err.
func lastLine(s string, err error) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !exceptionRE.MatchString(lines[i]) {
			continue
		}
		parts := []string{strings.TrimSpace(lines[i])}
		for _, l := range lines[i+1 : min(len(lines), i+3)] {
			if l = strings.TrimSpace(l); l != "" && l != "^" && !strings.HasPrefix(l, "For further information") {
				parts = append(parts, l)
			}
		}
		return strings.Join(parts, " / ")
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return err.Error()
}
