package repoconfig

import (
	"math"
	"regexp"

	"github.com/verdict-bot/verdict/checks"
)

// keySpec documents and constrains one key of verdict.yml: an entry of the
// app's key table or of a preset's (checks.SettingKey), with its patterns
// compiled. The tables drive Check, the JSON Schema (Schema) and the
// completeness test of the example file, so the three cannot drift apart; a
// test fails when a key has no entry or an entry names no key.
type keySpec struct {
	Path, Doc           string
	Enum                []string
	Pattern, KeyPattern string
	// Min and Max are the key's bounds; NaN means unbounded.
	Min, Max float64
	// Refused, Means and KeyMeans are the key's texts as messages use them.
	Refused         *meaning
	Means, KeyMeans meaning

	re, keyRE *regexp.Regexp // compiled Pattern and KeyPattern
}

// spec compiles k; a bad pattern panics, at init for the app's table and
// when a preset's table is first used, so every test catches it.
func spec(k checks.SettingKey) *keySpec {
	s := &keySpec{Path: k.Path, Doc: k.Doc, Enum: k.Enum, Pattern: k.Pattern, KeyPattern: k.KeyPattern,
		Min: k.Min, Max: k.Max, Means: meaning(k.Means), KeyMeans: meaning(k.KeyMeans)}
	if k.Min == 0 && k.Max == 0 {
		s.Min, s.Max = unbounded, unbounded
	}
	if k.Refused != nil {
		m := meaning(*k.Refused)
		s.Refused = &m
	}
	if k.Pattern != "" {
		s.re = regexp.MustCompile(k.Pattern)
	}
	if k.KeyPattern != "" {
		s.keyRE = regexp.MustCompile(k.KeyPattern)
	}
	return s
}

var unbounded = math.NaN()

// meaning is a phrase of a problem message in both languages.
type meaning struct{ EN, ZH string }

var (
	loginMeans   = meaning{"a GitHub login such as verdict[bot], without @", "不带 @ 的 GitHub 登录名，例如 verdict[bot]"}
	checkNumber  = checks.T("a row number of the preset", "预设中的检查编号")
	presetName   = checks.T("a preset name such as inferencex or checklist", "预设名称，例如 inferencex 或 checklist")
	loginPattern = `^[A-Za-z0-9][A-Za-z0-9-]*(?:\[bot\])?$`
)

// keys lists every key of verdict.yml in the order the schema and the example
// present them.
var keys = []checks.SettingKey{
	{Path: "preset", Doc: "The checklist this repository is verified with: inferencex, or checklist (the repository's own review checklist, its items bound to verifiers in preset_settings). Empty detects: inferencex when its layout is found on the default branch, else checklist.", Pattern: `^$|^[a-z][a-z0-9-]*$`, Means: presetName},
	{Path: "preset_settings", Doc: "The preset's own settings; the preset validates them (see the README, \"Use Verdict on your repository\")."},
	checks.NonEmpty.Key("signoff_phrase", "Case-sensitive phrase that makes a comment, review or inline comment a sign-off candidate."),
	{Path: "core_team", Doc: "Team that owns the repository's core paths; files it alone owns need no sign-off. Compared case-insensitively. Unset: the preset's own (InferenceX: @SemiAnalysisAI/core; checklist: none); empty: none.",
		Pattern: `^$|` + checks.Handle.Pattern, Means: checks.Handle.Means},
	{Path: "allow_self_signoff", Doc: "Let a code owner sign off their own PR (the owner row). Off: the signer must not be the PR's author."},
	{Path: "checks", Doc: "Per-row switches, keyed by the preset's row number.", KeyPattern: `^[0-9]{1,3}$`, KeyMeans: checkNumber},
	{Path: "checks.*.disabled", Doc: "Turn the row off; it renders N/A \"disabled by configuration\"."},
	{Path: "max_file_bytes", Doc: "Largest file a check reads, up to the readers' own cap of 8 MiB (which bounds a verification's memory); larger files are refused and the row says so.", Min: 1 << 10, Max: 8 << 20},

	{Path: "status", Doc: "The commit status on the assessed commit."},
	{Path: "status.enabled", Doc: "Post the commit status."},
	checks.NonEmpty.Key("status.context", "Commit status context (the name branch protection requires)."),
	{Path: "status.warn_as", Doc: "Status state for a WARN verdict.", Enum: []string{"success", "failure"}},
	{Path: "status.on_push", Doc: "Status state on a pushed head that no verdict covers (sign-off needed).", Enum: []string{"pending", "failure"}},
	{Path: "check_run", Doc: "The check run carrying the full verdict."},
	{Path: "check_run.enabled", Doc: "Post the check run."},
	checks.NonEmpty.Key("check_run.name", "Check run name."),
	{Path: "minimize_outdated", Doc: "Hide, as outdated, the verdict comments that no longer stand: a newer sign-off's verdict superseded them, or their sign-off was withdrawn. A comment whose verdict stands again is shown again."},
	{Path: "bot_logins", Doc: "Further identities whose comments are the bot's own verdicts (the App's own is always included).", Pattern: loginPattern, Means: checks.Text(loginMeans)},
}

// appSpecs indexes the app's keys by path.
var appSpecs = func() map[string]*keySpec {
	m := make(map[string]*keySpec, len(keys))
	for _, k := range keys {
		m[k.Path] = spec(k)
	}
	return m
}()
