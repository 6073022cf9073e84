package checks

import "context"

// ChangeSet is what the pull request changes in the benchmark repository,
// computed once per verification (INFERENCEX.md §4.0) and shared by every
// check through PR.ChangeSet. Checks never re-read or re-parse what it
// already holds.
type ChangeSet struct {
	Files []ChangedFile
	// Added and Removed hold the added and removed lines of each file's patch.
	// Removed lines are never runtime settings.
	AddedLines   map[string][]DiffLine
	RemovedLines map[string][]DiffLine

	// Master configs (all *-master.yaml, excluding deprecated/) at the PR
	// base, at H, and at the default branch.
	MasterBase    map[string]*ConfigEntry
	MasterHead    map[string]*ConfigEntry
	MasterDefault map[string]*ConfigEntry
	// AddedKeys, ChangedKeys, RemovedKeys are sorted master keys.
	AddedKeys   []string
	ChangedKeys []string
	RemovedKeys []string

	// ChangelogAdded are the changelog entries at H beyond the base count.
	ChangelogAdded []ChangelogEntry
	// Selected are master keys at H matched by the added entries' globs.
	Selected []string
	// Affected are the configs (at H) the PR affects, sorted by key.
	Affected []*ConfigEntry
	// UnmappedFiles are changed benchmark/runner files that map to no
	// known config: they "affect unknown configs".
	UnmappedFiles []string
	// Effective holds, per affected config key, the files that define how it
	// runs (recipes, scripts, sourced helpers), parsed at H.
	Effective map[string][]*EffectiveFile
	// Extra are the changed benchmark/runner files (present at H) that are
	// not an effective file of any affected config, parsed at H, so scans of
	// runtime settings also see files that map to no known config.
	Extra []*EffectiveFile

	// Problems are inputs that could not be read or parsed. A check that
	// needs one of them reports it instead of passing.
	Problems []InputProblem
}

// DiffLine is one added or removed line of a patch, with its line number in
// the new (added) or old (removed) file.
type DiffLine struct {
	Line int
	Text string
}

// InputProblem is an input the change-set model could not use.
type InputProblem struct {
	Path string
	Err  string
}

// ConfigEntry is one master-config entry with its classifications.
type ConfigEntry struct {
	Key         string
	File        string // master file path
	Line        int
	Image       string
	Model       string
	ModelPrefix string
	Runner      string
	Precision   string
	Framework   string
	MultiNode   bool
	Disagg      bool
	Scenarios   []Scenario
	// Raw is the decoded entry, for deep comparison and fields the typed
	// view does not name.
	Raw map[string]any

	SKU        string // normalized runner (§4.0)
	Agentic    bool
	SpecDecode bool
	OpenSource bool // open-source engine framework
}

// Scenario is one scenario block of an entry.
type Scenario struct {
	Type   string // fixed-seq-len or agentic-coding
	ISL    int
	OSL    int
	Fields map[string]any
	Search []SearchSpace
}

// SearchSpace is one search-space element.
type SearchSpace struct {
	Fields       map[string]any
	TP, EP, PP   int
	SpecDecoding string
	Conc         []int // expanded concurrency points
	SrtRecipe    string
	KVOffloading string
	// ConfigFiles are CONFIG_FILE= values of prefill/decode additional settings.
	ConfigFiles []string
}

// ChangelogEntry is one perf-changelog entry.
type ChangelogEntry struct {
	ConfigKeys       []string
	Description      []string
	PRLink           string
	ScenarioType     []string
	EvalsOnly        bool
	AllEvals         bool
	AppendOnly       bool
	EvalMinPrefillEP int
	Line             int
	// Matched are the master keys at H its globs select.
	Matched []string
}

// EffectiveFile is one file that defines how a config runs, parsed at H.
type EffectiveFile struct {
	Path    string
	Kind    string // "recipe", "script", "helper", "launcher"
	Changed bool   // changed by this PR
	// Settings are environment variables, engine args and flags the file
	// sets at runtime (comments excluded), with role and line.
	Settings []Setting
	// Commands are the shell commands of a script, continuations joined.
	Commands []Command
	// Lines is the file's text split into lines (capped), for scans that
	// report a file and line.
	Lines []string
	// Err is set when the file could not be read or parsed.
	Err string
}

// Setting is one runtime setting found in an effective file.
type Setting struct {
	Name  string
	Value string
	File  string
	Line  int
	Role  string // agg, prefill, decode, benchmark, frontend or "" for scripts
	Kind  string // env, arg, flag
}

// Command is one shell command.
type Command struct {
	Line    int
	Words   []string
	Raw     string
	Heredoc string
}

// ChangeSet returns the PR's change-set model, built on first use.
func (pr *PR) ChangeSet(ctx context.Context) (*ChangeSet, error) {
	return Memo(pr, "changeset", func() (*ChangeSet, error) { return buildChangeSet(ctx, pr) })
}
