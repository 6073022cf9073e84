package repo

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/shell"
)

// EffectiveFile is one file that defines how a config runs, parsed at H.
type EffectiveFile struct {
	Path    string
	Kind    string // "recipe", "script", "helper", "launcher"
	Changed bool   // changed by this PR
	// Settings are environment variables, engine args and flags the file
	// sets at runtime (comments excluded), with role and line.
	Settings []Setting
	// Commands are the simple commands of a script, continuations joined.
	Commands []Command
	// Script is the parsed script (nil for recipes and unreadable files),
	// for questions the flat views do not answer: what a variable holds at
	// a command, the directory it runs in, the files it sources.
	Script *shell.Script
	// Lines is the file's text split into lines (capped), for scans that
	// report a file and line.
	Lines []string
	// Err is set when the file could not be read or parsed.
	Err string
	// Servers marks a multi-node config's dry run (Kind "trace") that
	// reached its servers: the environment they run with is the dry
	// run's, and what its scripts export on the way (on a host whose
	// variables a container does not inherit) is not theirs.
	Servers bool
}

// Setting is one runtime setting found in an effective file.
type Setting struct {
	Name  string
	Value string
	File  string
	Line  int
	Role  string // agg, prefill, decode, benchmark, frontend or "" for scripts
	Kind  string // env, arg, flag
	// Variant is the recipe variant block the setting belongs to
	// ("override_<name>", "zip_override_<name>[i]"); "" for the base
	// recipe and for scripts.
	Variant string
	// Null is set for a YAML null value, which in a variant block deletes
	// the key the base sets.
	Null bool
	// Run is RunEvalOnly for a script setting that only the eval-only run
	// makes (the EVAL_ONLY=true branch), RunThroughput for one only the
	// throughput run makes, "" for both.
	Run string
}

// Where names where the setting is set, as reasons print it: the recipe
// role's env or args block, or the script (and line) that sets it.
func (s Setting) Where() checks.Text {
	if s.Role != "" {
		block := "args"
		if s.Kind == "env" {
			block = "env"
		}
		return checks.T(fmt.Sprintf("in %s roles.%s.%s", s.File, s.Role, block), fmt.Sprintf("位于 %s roles.%s.%s", s.File, s.Role, block))
	}
	if s.Line > 0 {
		return checks.T(fmt.Sprintf("via %s:%d", s.File, s.Line), fmt.Sprintf("来自 %s:%d", s.File, s.Line))
	}
	return checks.T("via "+s.File, "来自 "+s.File)
}

// Command is one shell command.
type Command struct {
	Line    int
	Words   []string
	Raw     string
	Heredoc string
}

// Read fills the file's lines, settings and commands from its text, as the
// change-set model reads it: recipes and YAML files as srt-slurm recipes,
// scripts (and changed files named *.sh or *.bash) as bash. A file it cannot
// read records why in Err.
func (ef *EffectiveFile) Read(data []byte) {
	ef.Lines = splitLines(data)
	var err error
	switch {
	case ef.Kind == "recipe" || strings.HasSuffix(ef.Path, ".yaml") || strings.HasSuffix(ef.Path, ".yml"):
		ef.Settings, err = ParseSrtRecipe(ef.Path, data)
	case ef.Kind != "changed" || helperExt.MatchString(ef.Path):
		ef.Script, ef.Commands, ef.Settings, err = readScript(ef.Path, data)
	}
	if err != nil {
		ef.Err = err.Error()
	}
}

var helperExt = regexp.MustCompile(`\.(sh|bash)$`)

// IsShellFile reports whether p is named as a bash file (*.sh, *.bash): a
// changed file so named is read as a script, and only such files are
// followed as the helpers a script sources or runs.
func IsShellFile(p string) bool { return helperExt.MatchString(p) }

// ContainerWorkspace is where srt-slurm recipes find the InferenceX project
// root inside the benchmark container (benchmark.env
// INFMAX_CONTAINER_WORKSPACE), so `bash /infmax-workspace/benchmarks/...`
// runs the repository's own benchmarks/... file.
const (
	ContainerWorkspace    = "/infmax-workspace"
	ContainerWorkspaceVar = "INFMAX_CONTAINER_WORKSPACE"
)

// resolveConfigFile maps a CONFIG_FILE= value to the repository's own copy
// of the recipe: recipes/… under the srt-slurm recipes, a bare name under
// the llm-d recipes, any other path from the root.
func resolveConfigFile(l Layout, v string) string {
	v = strings.TrimSpace(v)
	if rest, ok := strings.CutPrefix(v, "recipes/"); ok {
		return path.Join(l.BenchmarksDir, "multi_node", "srt-slurm-recipes", rest)
	}
	if strings.HasPrefix(v, "/") {
		return ""
	}
	if !strings.Contains(v, "/") {
		// A bare recipe name is an llm-d job's: its submit script reads
		// it from the repository's llm-d recipes.
		return path.Join(l.BenchmarksDir, "multi_node", "llm-d-recipes", v)
	}
	return path.Clean(path.Join(l.Root, v))
}

// SnakeName lowercases a setting name, drops leading dashes and turns '-'
// into '_' so CLI, YAML and env spellings compare equal.
func SnakeName(s string) string {
	s = strings.TrimLeft(strings.ToLower(s), "-")
	return strings.ReplaceAll(s, "-", "_")
}
