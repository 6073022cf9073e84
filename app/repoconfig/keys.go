package repoconfig

import (
	"math"
	"regexp"
)

// keySpec documents and constrains one key of verdict.yml. The table below
// drives Check, the JSON Schema (Schema) and the completeness test of the
// example file, so the three cannot drift apart; a test fails when a field of
// Config has no entry or an entry names no field.
type keySpec struct {
	// Path is the key's dotted path; "*" stands for any key of a mapping.
	Path string
	Doc  string
	// Refused keys decode into Config but must not be set; the text says
	// what to do instead.
	Refused *meaning

	// Constraints on the key's values. For a list or mapping they apply to
	// every scalar in it (list items, mapping values).
	Enum []string
	// Min and Max bound numbers (inclusive); NaN means unbounded.
	Min, Max float64
	// Pattern must match every string; it is written in the common subset
	// of RE2 and ECMA-262 so editors apply the same rule. Means says what it
	// requires, for messages.
	Pattern string
	Means   meaning
	// KeyPattern constrains a mapping's keys; KeyMeans says what it requires.
	KeyPattern string
	KeyMeans   meaning

	re, keyRE *regexp.Regexp // compiled Pattern and KeyPattern
}

var unbounded = math.NaN()

// meaning is a phrase of a problem message in both languages.
type meaning struct{ EN, ZH string }

// Patterns shared by several keys.
const (
	// relPath is a clean, relative, forward-slash path inside the repository:
	// segments are neither empty, "." nor "..", and no backslash appears.
	relPath  = `^(?:[^/\\.][^/\\]*|\.[^/\\.][^/\\]*|\.\.[^/\\]+)(?:/(?:[^/\\.][^/\\]*|\.[^/\\.][^/\\]*|\.\.[^/\\]+))*$`
	nonEmpty = `\S`
	handle   = `^@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9._-]+)?$`
	login    = `^[A-Za-z0-9][A-Za-z0-9-]*(?:\[bot\])?$`
)

var (
	relPathMeans  = meaning{"a relative path inside the repository (forward slashes, no .. or leading /)", "仓库内的相对路径（使用 /，不含 .. 且不以 / 开头）"}
	nonEmptyMean  = meaning{"non-empty", "非空"}
	handleMeans   = meaning{"a GitHub handle such as @login or @org/team", "GitHub 账号或团队，例如 @login 或 @org/team"}
	loginMeans    = meaning{"a GitHub login such as verdict[bot], without @", "不带 @ 的 GitHub 登录名，例如 verdict[bot]"}
	chooseLayout  = &meaning{"choose the layout with layout: legacy or e2e instead", "请改用 layout: legacy 或 e2e 选择布局"}
	skuMeans      = meaning{"a lower-case SKU such as mi355x", "小写的 SKU，例如 mi355x"}
	frameworkName = meaning{"a framework name", "框架名称"}
	checkNumber   = meaning{"a row number of the preset", "预设中的检查编号"}
	presetName    = meaning{"a preset name such as inferencex or checklist", "预设名称，例如 inferencex 或 checklist"}
)

// layoutPath is a paths.* override: empty keeps the detected layout's path.
func layoutPath(key, doc string) keySpec {
	return keySpec{Path: "paths." + key, Doc: doc + " Empty keeps the detected layout's path.",
		Pattern: `^$|` + relPath, Means: relPathMeans, Min: unbounded, Max: unbounded}
}

// keys lists every key of verdict.yml in the order the schema and the example
// present them.
var keys = []keySpec{
	{Path: "preset", Doc: "The checklist this repository is verified with: inferencex, or checklist (the repository's own review checklist, its items bound to verifiers in preset_settings). Empty detects: inferencex when its layout is found on the default branch, else checklist.", Pattern: `^$|^[a-z][a-z0-9-]*$`, Means: presetName},
	{Path: "preset_settings", Doc: "The preset's own settings; the preset validates them (see the README, \"Use Verdict on your repository\")."},
	{Path: "signoff_phrase", Doc: "Case-sensitive phrase that makes a comment, review or inline comment a sign-off candidate.", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "core_team", Doc: "Team that owns the repository's core paths; files it alone owns need no sign-off. Compared case-insensitively.", Pattern: handle, Means: handleMeans},
	{Path: "allow_self_signoff", Doc: "Let a code owner sign off their own PR (Check 0). Off: the signer must not be the PR's author."},
	{Path: "layout", Doc: "Pin the repository layout instead of detecting it from the default branch: legacy (root) or e2e (inferencex-e2e/). Empty detects.", Enum: []string{"", "legacy", "e2e"}},
	{Path: "paths", Doc: "Override single paths of the detected layout."},
	{Path: "paths.name", Refused: chooseLayout},
	{Path: "paths.root", Refused: chooseLayout},
	layoutPath("checklist", "English PR review checklist (Check 5)."),
	layoutPath("checklist_zh", "Chinese PR review checklist."),
	layoutPath("models", "MODELS.md with the deprecation table (Check 7)."),
	layoutPath("configs_dir", "Directory of the master configurations."),
	layoutPath("changelog", "perf-changelog.yaml."),
	layoutPath("golden_dir", "Directory of golden acceptance-length distributions (Check 11)."),
	layoutPath("waiver_dir", "Directory of engine-patch waivers, one <PR>.md each (Check 10)."),
	layoutPath("thresholds", "Eval thresholds file (Check 2)."),
	layoutPath("benchmarks_dir", "Directory of benchmark scripts."),
	layoutPath("runners_dir", "Directory of runner scripts and harness patches."),
	layoutPath("codeowners", "CODEOWNERS file read at the base-branch tip (Check 0)."),

	{Path: "benchmark_groups", Doc: "Check-run name prefixes of benchmark jobs (Check 1).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "eval_groups", Doc: "Check-run name prefixes of eval jobs, tested before benchmark_groups (Check 1).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "aggregators", Doc: "Check runs that never count as a benchmark or eval, by exact name or as a group (Check 1).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "require_eval_group", Doc: "Whether a passing sweep needs a green eval group beside the benchmarks (Check 1)."},
	{Path: "sweep_workflow", Doc: "Workflow file whose runs are sweeps (Checks 1, 2, 4).", Pattern: relPath, Means: relPathMeans},
	{Path: "default_eval_threshold", Doc: "Eval score threshold for tasks the thresholds file does not list (Check 2).", Min: 0, Max: 1},
	{Path: "reuse_associations", Doc: "Author associations whose /use and /reuse-sweep-run commands count (Check 4).",
		Enum: []string{"OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"}},
	{Path: "reuse_incompatible_labels", Doc: "PR labels under which a sweep run cannot be reused (Check 4).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "reusable_artifacts", Doc: "Artifact names a reused run must still have (Check 4).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "reusable_artifact_prefixes", Doc: "Artifact name prefixes that also satisfy reuse (Check 4).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "established_skus", Doc: "Hardware SKUs (normalized, lower case) on which only upstream images are allowed (Check 6).", Pattern: `^[a-z0-9][a-z0-9_-]*$`, Means: skuMeans},
	{Path: "image_orgs", Doc: "Per framework, the image repository prefixes that count as upstream (Check 6). Entries add to the preset's.",
		Pattern: nonEmpty, Means: nonEmptyMean, KeyPattern: nonEmpty, KeyMeans: frameworkName},
	{Path: "open_source_frameworks", Doc: "Frameworks that are open-source engines; they must land before vendor frameworks (Check 6).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "harness_patch_allowlist", Doc: "Harness patch files reviewed as not touching the serving stack (Check 10), repository-relative or relative to the layout root.", Pattern: relPath, Means: relPathMeans},
	{Path: "upstream_recipe_scope", Doc: "Which deployments need a merged upstream recipe (Check 3): all, or single-node only.", Enum: []string{"all", "single-node"}},
	{Path: "pareto_minimum", Doc: "Frontier points each affected curve needs (Check 14).", Min: 1, Max: 1000},
	{Path: "escalation_handles", Doc: "Handles a REJECTED verdict asks to look.", Pattern: handle, Means: handleMeans},
	{Path: "checks", Doc: "Per-row switches, keyed by check number. Entries add to the preset's.", KeyPattern: `^[0-9]{1,3}$`, KeyMeans: checkNumber},
	{Path: "checks.*.disabled", Doc: "Turn the row off; it renders N/A \"disabled by configuration\"."},
	{Path: "max_file_bytes", Doc: "Largest file a check reads, up to the readers' own cap of 8 MiB (which bounds a verification's memory); larger files are refused and the row says so.", Min: 1 << 10, Max: 8 << 20},

	{Path: "status", Doc: "The commit status on the assessed commit."},
	{Path: "status.enabled", Doc: "Post the commit status."},
	{Path: "status.context", Doc: "Commit status context (the name branch protection requires).", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "status.warn_as", Doc: "Status state for a WARN verdict.", Enum: []string{"success", "failure"}},
	{Path: "status.on_push", Doc: "Status state on a pushed head that no verdict covers (sign-off needed).", Enum: []string{"pending", "failure"}},
	{Path: "check_run", Doc: "The check run carrying the full verdict."},
	{Path: "check_run.enabled", Doc: "Post the check run."},
	{Path: "check_run.name", Doc: "Check run name.", Pattern: nonEmpty, Means: nonEmptyMean},
	{Path: "minimize_outdated", Doc: "Hide, as outdated, the verdict comments that no longer stand: a newer sign-off's verdict superseded them, or their sign-off was withdrawn. A comment whose verdict stands again is shown again."},
	{Path: "bot_logins", Doc: "Further identities whose comments are the bot's own verdicts (the App's own is always included).", Pattern: login, Means: loginMeans},
}

// specs indexes keys by path. It fills the unset bounds, which the zero
// value cannot express, and compiles the patterns (a bad one panics at
// init, so every test catches it).
var specs = func() map[string]*keySpec {
	m := make(map[string]*keySpec, len(keys))
	for i := range keys {
		k := &keys[i]
		if k.Min == 0 && k.Max == 0 {
			k.Min, k.Max = unbounded, unbounded
		}
		if k.Pattern != "" {
			k.re = regexp.MustCompile(k.Pattern)
		}
		if k.KeyPattern != "" {
			k.keyRE = regexp.MustCompile(k.KeyPattern)
		}
		m[k.Path] = k
	}
	return m
}()
