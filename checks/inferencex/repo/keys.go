package repo

import (
	"reflect"

	"github.com/verdict-bot/verdict/checks"
)

// KeySettings are the preset's top-level keys of .github/verdict.yml
// (Keys): the app validates them and lists them in its schema; the preset
// reads them with the rest of Settings.
var KeySettings = &checks.Settings{
	Default: func() reflect.Value { return reflect.ValueOf(DefaultKeys()) },
	Keys:    keyTable,
}

var (
	chooseLayout  = &checks.Text{EN: "choose the layout with layout: legacy or e2e instead", ZH: "请改用 layout: legacy 或 e2e 选择布局"}
	skuMeans      = checks.T("a lower-case SKU such as mi355x", "小写的 SKU，例如 mi355x")
	frameworkName = checks.T("a framework name", "框架名称")
)

// layoutPath is a paths.* override: empty keeps the detected layout's path.
func layoutPath(key, doc string) checks.SettingKey {
	k := checks.RelPath.Key("paths."+key, doc+" Empty keeps the detected layout's path.")
	k.Pattern = `^$|` + k.Pattern
	return k
}

// keyTable lists the preset's keys in the order the schema and the example
// present them.
var keyTable = []checks.SettingKey{
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

	checks.NonEmpty.Key("benchmark_groups", "Check-run name prefixes of benchmark jobs (Check 1)."),
	checks.NonEmpty.Key("eval_groups", "Check-run name prefixes of eval jobs, tested before benchmark_groups (Check 1)."),
	checks.NonEmpty.Key("aggregators", "Check runs that never count as a benchmark or eval, by exact name or as a group (Check 1)."),
	{Path: "require_eval_group", Doc: "Whether a passing sweep needs a green eval group beside the benchmarks (Check 1)."},
	checks.RelPath.Key("sweep_workflow", "Workflow file whose runs are sweeps (Checks 1, 2, 4)."),
	{Path: "default_eval_threshold", Doc: "Eval score threshold for tasks the thresholds file does not list (Check 2).", Min: 0, Max: 1},
	{Path: "reuse_associations", Doc: "Author associations whose /use and /reuse-sweep-run commands count (Check 4).",
		Enum: []string{"OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"}},
	checks.NonEmpty.Key("reuse_incompatible_labels", "PR labels under which a sweep run cannot be reused (Check 4)."),
	checks.NonEmpty.Key("reusable_artifacts", "Artifact names a reused run must still have (Check 4)."),
	checks.NonEmpty.Key("reusable_artifact_prefixes", "Artifact name prefixes that also satisfy reuse (Check 4)."),
	{Path: "established_skus", Doc: "Hardware SKUs (normalized, lower case) on which only upstream images are allowed (Check 6).", Pattern: `^[a-z0-9][a-z0-9_-]*$`, Means: skuMeans},
	{Path: "image_orgs", Doc: "Per framework, the image repository prefixes that count as upstream (Check 6). Entries add to the preset's.",
		Pattern: checks.NonEmpty.Pattern, Means: checks.NonEmpty.Means, KeyPattern: checks.NonEmpty.Pattern, KeyMeans: frameworkName},
	checks.NonEmpty.Key("open_source_frameworks", "Frameworks that are open-source engines; they must land before vendor frameworks (Check 6)."),
	checks.RelPath.Key("harness_patch_allowlist", "Harness patch files reviewed as not touching the serving stack (Check 10), repository-relative or relative to the layout root."),
	{Path: "upstream_recipe_scope", Doc: "Which deployments need a merged upstream recipe (Check 3): all, or single-node only.", Enum: []string{"all", "single-node"}},
	{Path: "pareto_minimum", Doc: "Frontier points each affected curve needs (Check 14).", Min: 1, Max: 1000},
	checks.Handle.Key("escalation_handles", "Handles a WARN of Check 14 (Pareto coverage) asks to look."),
}
