package checklist

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
)

// Settings are the preset's own settings: the preset_settings section of
// .github/verdict.yml on the default branch.
type Settings struct {
	// Checklist is the file holding the review checklist; empty means the
	// pull request template, where GitHub looks for it.
	Checklist string `yaml:"checklist"`
	// CodeOwners is the CODEOWNERS file; empty means where GitHub looks.
	CodeOwners string `yaml:"codeowners"`
	// CoreTeam owns the files that need no sign-off.
	CoreTeam string `yaml:"core_team"`
	// AllowSelfSignOff lets a code owner sign off their own PR.
	AllowSelfSignOff bool `yaml:"allow_self_signoff"`
	// Items bind checklist items to verifiers.
	Items []Item `yaml:"items"`
}

// Item binds one checklist item to a verifier.
type Item struct {
	// Item is the checklist item's text, compared as the sign-off's items
	// are (case, spacing and inline Markdown aside).
	Item string `yaml:"item"`
	// Verify is the verifier: one of the kinds below.
	Verify string `yaml:"verify"`

	// checks: check runs that must have succeeded, on the head commit or
	// (Commit: any) on one commit still in the PR.
	Names  []string `yaml:"names"`
	Commit string   `yaml:"commit"`
	// files: when a changed file matches When (or always, without it),
	// some changed file must match Require and none may match Forbid.
	When    []string `yaml:"when"`
	Require []string `yaml:"require"`
	// files: globs; lines: regular expressions no added line may match.
	Forbid []string `yaml:"forbid"`
	// lines: the files whose added lines are read (globs; all without);
	// Waivers is a directory where <PR number>.md waives the item.
	Paths   []string `yaml:"paths"`
	Waivers string   `yaml:"waivers"`
	// linked: the state every linked pull request or issue must be in
	// (one of the States below), and the repositories a link may point
	// to (this one without).
	State string   `yaml:"state"`
	Repos []string `yaml:"repos"`
	// labels: labels the PR must have and must not have.
	Present []string `yaml:"present"`
	Absent  []string `yaml:"absent"`
	// dco: what every commit must show, one of the Accept values below.
	// Not "require", which files already takes as a list of patterns.
	Accept string `yaml:"accept"`
}

// The states of verify: linked. An issue cannot be merged, and a pull
// request is never closed "as completed": its merge is its completion.
const (
	// StateMerged: a pull request merged (the default).
	StateMerged = "merged"
	// StateCompleted: an issue closed as completed, or a pull request
	// merged.
	StateCompleted = "completed"
	// StateOpen: a pull request or issue still open.
	StateOpen = "open"
	// StateClosed: a pull request or issue closed for any reason, merged
	// and "not planned" included.
	StateClosed = "closed"
)

var states = []string{StateMerged, StateCompleted, StateOpen, StateClosed}

// What verify: dco accepts of each commit.
const (
	// AcceptSignOff: a Signed-off-by trailer (the default).
	AcceptSignOff = "signoff"
	// AcceptSignature: a signature GitHub verified.
	AcceptSignature = "signature"
	// AcceptEither: one or the other.
	AcceptEither = "either"
)

var accepts = []string{AcceptSignOff, AcceptSignature, AcceptEither}

// Verifier kinds, and the options each takes.
const (
	KindChecks   = "checks"
	KindFiles    = "files"
	KindLines    = "lines"
	KindLinked   = "linked"
	KindLabels   = "labels"
	KindDCO      = "dco"
	KindAttested = "attested"
)

var kindOptions = map[string][]string{
	KindChecks:   {"names", "commit"},
	KindFiles:    {"when", "require", "forbid"},
	KindLines:    {"forbid", "paths", "waivers"},
	KindLinked:   {"state", "repos"},
	KindLabels:   {"present", "absent"},
	KindDCO:      {"accept"},
	KindAttested: nil,
}

var kinds = []string{KindChecks, KindFiles, KindLines, KindLinked, KindLabels, KindDCO, KindAttested}

// maxItems bounds the bindings one repository can ask for.
const maxItems = 200

// SettingsParam hands the settings to the rows.
var SettingsParam = checks.NewParam[*Settings]("checklist settings")

func settingsOf(pr *checks.PR) *Settings {
	if s := SettingsParam.Get(pr); s != nil {
		return s
	}
	return &Settings{}
}

// configure reads preset_settings from the configuration file (which the
// app has already bounded and checked as YAML) and sets them on pr.
func configure(pr *checks.PR, file []byte) []checks.ConfigProblem {
	s, probs := parseSettings(file)
	if len(probs) == 0 {
		SettingsParam.Set(pr, &s)
	}
	return probs
}

// parseSettings decodes and validates the section, reporting every
// problem with its line.
func parseSettings(file []byte) (Settings, []checks.ConfigProblem) {
	var s Settings
	var doc yaml.Node
	if len(file) == 0 {
		return s, nil
	}
	if err := yaml.Unmarshal(file, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return s, nil // the app reports a file that is not a mapping
	}
	root := doc.Content[0]
	// The configuration's own core_team and allow_self_signoff, when the
	// file sets them, hold for this preset too (preset_settings may
	// override them): a maintainer who sets them there means them.
	if n := valueOf(root, "core_team"); n != nil && n.Kind == yaml.ScalarNode {
		s.CoreTeam = n.Value
	}
	if n := valueOf(root, "allow_self_signoff"); n != nil && n.Kind == yaml.ScalarNode {
		s.AllowSelfSignOff = n.Value == "true"
	}
	sec := valueOf(root, "preset_settings")
	if sec == nil || (sec.Kind == yaml.ScalarNode && sec.Tag == "!!null") {
		return s, nil
	}
	v := validator{}
	if sec.Kind != yaml.MappingNode {
		v.bad(sec, "preset_settings", "preset_settings must be a mapping", "preset_settings 必须是映射")
		return s, v.probs
	}
	if expanded(sec, maxNodes) > maxNodes {
		v.bad(sec, "preset_settings", fmt.Sprintf("the section expands to more than %d values (aliases?)", maxNodes), fmt.Sprintf("该部分展开后超过 %d 个值（是否用了别名？）", maxNodes))
		return s, v.probs
	}
	v.keys(sec, "preset_settings", []string{"checklist", "codeowners", "core_team", "allow_self_signoff", "items"})
	if err := sec.Decode(&s); err != nil {
		v.bad(sec, "preset_settings", "preset_settings: "+err.Error(), "preset_settings："+err.Error())
		return s, v.probs
	}
	for _, p := range []struct {
		key, value string
	}{{"checklist", s.Checklist}, {"codeowners", s.CodeOwners}} {
		if p.value != "" && !cleanPath(p.value) {
			v.bad(valueOf(sec, p.key), "preset_settings."+p.key, p.key+" must be a relative path inside the repository", p.key+" 必须是仓库内的相对路径")
		}
	}
	if s.CoreTeam != "" && !teamRE.MatchString(s.CoreTeam) {
		v.bad(valueOf(sec, "core_team"), "preset_settings.core_team", "core_team must be a team such as @org/team", "core_team 必须是团队，例如 @org/team")
	}
	items := valueOf(sec, "items")
	if len(s.Items) > maxItems {
		v.bad(items, "preset_settings.items", fmt.Sprintf("at most %d items can be bound, not %d", maxItems, len(s.Items)), fmt.Sprintf("最多绑定 %d 项，而不是 %d 项", maxItems, len(s.Items)))
		return s, v.probs
	}
	for i, it := range s.Items {
		var n *yaml.Node
		if items != nil && items.Kind == yaml.SequenceNode && i < len(items.Content) {
			n = items.Content[i]
		}
		v.item(n, fmt.Sprintf("preset_settings.items[%d]", i), it)
	}
	return s, v.probs
}

var (
	teamRE = regexp.MustCompile(`^@[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
	repoRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
)

type validator struct{ probs []checks.ConfigProblem }

func (v *validator) bad(n *yaml.Node, key, en, zh string) {
	line := 0
	if n != nil {
		line = n.Line
	}
	v.probs = append(v.probs, checks.ConfigProblem{Line: line, Key: key, Message: checks.T(key+": "+en, key+"："+zh)})
}

// keys reports the keys of mapping n that are not in known.
func (v *validator) keys(n *yaml.Node, at string, known []string) {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(known, k.Value) {
			v.bad(k, at+"."+k.Value, fmt.Sprintf("unknown key (known: %s)", strings.Join(known, ", ")), fmt.Sprintf("未知的键（可用：%s）", strings.Join(known, ", ")))
		}
	}
}

func (v *validator) item(n *yaml.Node, at string, it Item) {
	opts, ok := kindOptions[it.Verify]
	if strings.TrimSpace(it.Item) == "" {
		v.bad(n, at+".item", "the checklist item's text is missing", "缺少清单项的文本")
	}
	if !ok {
		v.bad(n, at+".verify", fmt.Sprintf("verify must be one of %s, not %q", strings.Join(kinds, ", "), it.Verify),
			fmt.Sprintf("verify 必须是 %s 之一，而不是 %q", strings.Join(kinds, ", "), it.Verify))
		return
	}
	v.keys(n, at, append([]string{"item", "verify"}, opts...))
	need := func(ok bool, en, zh string) {
		if !ok {
			v.bad(n, at, en, zh)
		}
	}
	switch it.Verify {
	case KindChecks:
		need(len(it.Names) > 0, "verify: checks needs names, the check runs that must succeed", "verify: checks 需要 names，即必须成功的检查运行")
		need(it.Commit == "" || it.Commit == "head" || it.Commit == "any", "commit must be head or any", "commit 必须是 head 或 any")
	case KindFiles:
		need(len(it.Require)+len(it.Forbid) > 0, "verify: files needs require or forbid", "verify: files 需要 require 或 forbid")
		for _, g := range slices.Concat(it.When, it.Require, it.Forbid) {
			need(validGlob(g), fmt.Sprintf("%q is not a path pattern", g), fmt.Sprintf("%q 不是路径模式", g))
		}
	case KindLines:
		need(len(it.Forbid) > 0, "verify: lines needs forbid, the patterns no added line may match", "verify: lines 需要 forbid，即新增行不得匹配的模式")
		for _, re := range it.Forbid {
			_, err := regexp.Compile(re)
			need(err == nil, fmt.Sprintf("%q is not a regular expression", re), fmt.Sprintf("%q 不是正则表达式", re))
		}
		for _, g := range it.Paths {
			need(validGlob(g), fmt.Sprintf("%q is not a path pattern", g), fmt.Sprintf("%q 不是路径模式", g))
		}
		need(it.Waivers == "" || cleanPath(it.Waivers), "waivers must be a relative directory inside the repository", "waivers 必须是仓库内的相对目录")
	case KindLinked:
		need(it.State == "" || slices.Contains(states, it.State), fmt.Sprintf("state must be one of %s, not %q", strings.Join(states, ", "), it.State),
			fmt.Sprintf("state 必须是 %s 之一，而不是 %q", strings.Join(states, ", "), it.State))
		for _, r := range it.Repos {
			need(repoRE.MatchString(r), fmt.Sprintf("%q is not owner/name", r), fmt.Sprintf("%q 不是 owner/name", r))
		}
	case KindLabels:
		need(len(it.Present)+len(it.Absent) > 0, "verify: labels needs present or absent", "verify: labels 需要 present 或 absent")
	case KindDCO:
		need(it.Accept == "" || slices.Contains(accepts, it.Accept), fmt.Sprintf("accept must be one of %s, not %q", strings.Join(accepts, ", "), it.Accept),
			fmt.Sprintf("accept 必须是 %s 之一，而不是 %q", strings.Join(accepts, ", "), it.Accept))
	}
}

// maxNodes bounds the values the section may expand to, so that aliases
// cannot turn a small file into millions of items.
const maxNodes = 20000

// expanded counts the nodes under n with aliases followed, stopping once
// past limit.
func expanded(n *yaml.Node, limit int) int {
	count := 0
	var walk func(*yaml.Node, int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || count > limit {
			return
		}
		if depth > 100 {
			count = limit + 1
			return
		}
		count++
		if n.Kind == yaml.AliasNode {
			walk(n.Alias, depth+1)
			return
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return count
}

// valueOf is the value of key in mapping n, nil when absent.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// cleanPath reports a relative, forward-slash path without . or ..
// segments.
func cleanPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, `\`) && path.Clean(p) == p && !strings.HasPrefix(p, "..")
}
