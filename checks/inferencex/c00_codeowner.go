package inferencex

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/codeowners"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Codeowner is row 0: the sign-off author must be a CODEOWNER of the change
// (RULES.md, Check 0). CODEOWNERS is read at the base branch tip B, never at
// the PR head, so a PR cannot appoint its own owners.
var Codeowner = &checks.Check{
	Number:   0,
	Name:     checks.Text{EN: "CODEOWNER", ZH: "代码所有者"},
	Requires: []checks.Requirement{repo.LayoutFact, repo.CodeOwnersFact},
	Run:      runCodeowner,
}

// maxOwnerEvidence caps per-path evidence rows on very large PRs.
const maxOwnerEvidence = 20

// pathOwnership is the verdict on one changed path.
type pathOwnership struct {
	path    string
	rule    codeowners.Rule
	matched bool
	kind    string // "specific", "default" or "unowned"
	// For specific paths: how the signer is an owner ("", "direct",
	// "team", "unverifiable").
	via      string
	team     string   // the team that made the signer an owner
	unknowns []string // teams of owners(P) whose membership could not be read
}

func runCodeowner(ctx context.Context, pr *checks.PR) checks.Result {
	l, bad := layoutOf(ctx, pr)
	if bad != nil {
		return *bad
	}
	file := l.CodeOwners
	if file == "" {
		return checks.Unverified(checks.T("no CODEOWNERS path is configured", "未配置 CODEOWNERS 路径"))
	}
	if pr.BaseTip == "" {
		return checks.Unverified(checks.T("the base branch tip is unknown, so "+file+" cannot be read", "基础分支最新提交未知，无法读取 "+file))
	}
	signer := strings.TrimPrefix(strings.TrimSpace(pr.SignOff.Author), "@")
	if signer == "" {
		return checks.Unverified(checks.T("the sign-off author is unknown", "签署作者未知"))
	}
	at := file + "@" + checks.Short(pr.BaseTip)
	owners, err := repo.CodeOwnersFact.Of(ctx, pr)
	switch {
	case errors.Is(err, repo.ErrEmptyCodeOwners):
		return checks.Unverified(checks.T(at+" is empty", at+" 为空"))
	case err != nil:
		return checks.Unverified(checks.T(fmt.Sprintf("%s is unreadable: %v", at, err), fmt.Sprintf("无法读取 %s：%s", at, checks.Code(err.Error()))))
	}
	co := owners.File
	if len(co.Rules) == 0 {
		return checks.Unverified(checks.T(at+" has no usable rules", at+" 没有可用的规则"))
	}
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return checks.Unverified(checks.T("the PR's changed files could not be listed: "+err.Error(), "无法列出 PR 的变更文件："+checks.Code(err.Error())))
	}
	paths := ownerPaths(files)
	if len(paths) == 0 {
		return checks.Unverified(checks.T("the PR lists no changed files", "PR 未列出任何变更文件"))
	}
	if pr.ChangedFiles > 0 && distinctNew(files) != pr.ChangedFiles {
		return checks.Unverified(checks.T(fmt.Sprintf("the changed-file list is incomplete (%d of %d files)", distinctNew(files), pr.ChangedFiles),
			fmt.Sprintf("变更文件列表不完整（%d / %d 个文件）", distinctNew(files), pr.ChangedFiles)))
	}

	ownersEv := checks.Evidence{Label: "CODEOWNERS", Value: at}
	if pr.Owner != "" && pr.Repo != "" {
		ownersEv.URL = fmt.Sprintf("https://github.com/%s/%s/blob/%s/%s", pr.Owner, pr.Repo, pr.BaseTip, file)
	}
	ev := []checks.Evidence{ownersEv, {Label: "Signer", Value: "@" + signer}}
	ghEv, ghLines := codeownersErrorsEvidence(ctx, pr)
	ev = append(ev, ghEv...)
	problemLines := ghLines
	for _, p := range co.Problems {
		problemLines = append(problemLines, p.Line)
		ev = append(ev, checks.Evidence{Label: fmt.Sprintf("CODEOWNERS line %d", p.Line), Value: p.Message + " (skipped)"})
	}

	teams := &teamOracle{ctx: ctx, src: pr.Source, login: signer, seen: map[string]checks.Membership{}}
	owned := assessPaths(co, paths, signer, teams)
	ev = append(ev, ownershipEvidence(owned)...)

	res := decideCodeowner(co, owned, signer, file, repo.SettingsParam.Get(pr), teams)
	res.Evidence = append(ev, append(res.Evidence, teams.evidence()...)...)
	if note := problemNote(problemLines); note.EN != "" {
		res.Reason.EN += " " + note.EN
		res.Reason.ZH += " " + note.ZH
	}
	return res
}

// ownerPaths returns every path the PR touches, previous names of renames
// included (a rename out of an owned path needs that owner too), deduplicated
// in file-list order.
func ownerPaths(files []checks.ChangedFile) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func distinctNew(files []checks.ChangedFile) int {
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Path] = true
	}
	return len(seen)
}

func assessPaths(co codeowners.File, paths []string, signer string, teams *teamOracle) []pathOwnership {
	out := make([]pathOwnership, 0, len(paths))
	direct := false
	for _, p := range paths {
		po := pathOwnership{path: p}
		po.rule, po.matched = co.Match(p)
		switch {
		case !po.matched || len(po.rule.Owners) == 0:
			po.kind = "unowned"
		case po.rule.CatchAll:
			po.kind = "default"
		default:
			po.kind = "specific"
			po.via, po.team, po.unknowns = ownsSpecific(po.rule.Owners, signer, teams)
			direct = direct || po.via == "direct"
		}
		out = append(out, po)
	}
	// Unreadable team membership must not hard-fail a signer who is plainly
	// a CODEOWNER of this change: directly listed on another changed
	// specific path (RULES.md, Check 0).
	if direct {
		for i := range out {
			if out[i].kind == "specific" && out[i].via == "" && len(out[i].unknowns) > 0 {
				out[i].via = "unverifiable"
			}
		}
	}
	return out
}

// ownsSpecific decides whether signer owns a specific path with owners.
func ownsSpecific(owners []string, signer string, teams *teamOracle) (via, team string, unknowns []string) {
	for _, o := range owners {
		if strings.EqualFold(o, "@"+signer) {
			return "direct", "", nil
		}
	}
	for _, o := range owners {
		if !codeowners.IsTeam(o) {
			continue
		}
		switch teams.member(o) {
		case checks.Member:
			return "team", o, nil
		case checks.MembershipUnknown:
			unknowns = append(unknowns, o)
		}
	}
	return "", "", unknowns
}

// recognizedOwner reports whether signer is a recognized CODEOWNER: listed
// anywhere, or a confirmed member of any listed team. It returns how, and
// the teams whose membership could not be read.
func recognizedOwner(co codeowners.File, signer string, teams *teamOracle) (how string, unknowns []string) {
	if co.Listed(signer) {
		return "listed", nil
	}
	for _, t := range co.Teams() {
		switch teams.member(t) {
		case checks.Member:
			return t, nil
		case checks.MembershipUnknown:
			unknowns = append(unknowns, t)
		}
	}
	return "", unknowns
}

func decideCodeowner(co codeowners.File, owned []pathOwnership, signer, file string, s *repo.Settings, teams *teamOracle) checks.Result {
	at := "@" + signer
	var specific, byNote, failed, general []pathOwnership
	for _, po := range owned {
		switch {
		case po.kind != "specific":
			general = append(general, po)
		case po.via == "":
			failed = append(failed, po)
		case po.via == "unverifiable":
			byNote = append(byNote, po)
		default:
			specific = append(specific, po)
		}
	}
	if len(failed) > 0 {
		f := failed[0]
		owners := strings.Join(f.rule.Owners, " ")
		en := fmt.Sprintf("%s is not a CODEOWNER of %s (owners: %s).", at, f.path, owners)
		zh := fmt.Sprintf("%s 不是 %s 的 CODEOWNER（所有者：%s）。", at, f.path, owners)
		if len(f.unknowns) > 0 {
			u := strings.Join(f.unknowns, " ")
			en += " Team membership unverifiable: " + u + "."
			zh += " 团队成员身份无法验证：" + u + "。"
		}
		if n := len(failed) - 1; n > 0 {
			en += fmt.Sprintf(" %d other changed %s not theirs either.", n, countNoun(n, "path is", "paths are"))
			zh += fmt.Sprintf(" 另有 %d 个变更路径也不归其所有。", n)
		}
		return checks.FailR(checks.Text{EN: en, ZH: zh})
	}

	how := ""
	if len(general) > 0 {
		var unknowns []string
		how, unknowns = recognizedOwner(co, signer, teams)
		if how == "" {
			first := general[0].path
			if len(unknowns) > 0 {
				u := strings.Join(unknowns, " ")
				return checks.FailR(checks.T(
					fmt.Sprintf("%s is not a recognized CODEOWNER (not listed in %s; team membership unverifiable: %s); default path: %s.", at, file, u, first),
					fmt.Sprintf("%s 不是已认可的 CODEOWNER（未列于 %s；团队成员身份无法验证：%s）；默认路径：%s。", at, file, u, first)))
			}
			return checks.FailR(checks.T(
				fmt.Sprintf("%s is not a recognized CODEOWNER (not listed in %s, not a member of any listed team); default path: %s.", at, file, first),
				fmt.Sprintf("%s 不是已认可的 CODEOWNER（未列于 %s，也不是任何所列团队的成员）；默认路径：%s。", at, file, first)))
		}
	}

	var en, zh string
	if len(specific) > 0 {
		f := specific[0]
		rule, ruleZH := "specific rule", "特定规则"
		if f.via == "team" {
			rule += ", via " + f.team
			ruleZH += "，通过 " + f.team
		}
		en = fmt.Sprintf("%s owns %s (%s)", at, f.path, rule)
		zh = fmt.Sprintf("%s 拥有 %s（%s）", at, f.path, ruleZH)
		if n := len(specific) - 1; n > 0 {
			en += fmt.Sprintf(" and %d other specific %s", n, countNoun(n, "path", "paths"))
			zh += fmt.Sprintf("及另外 %d 个特定路径", n)
		}
	} else {
		src, srcZH := "listed in "+file, "列于 "+file
		if how != "listed" {
			src, srcZH = "member of "+how, how+" 的成员"
		}
		en = fmt.Sprintf("%s is a recognized CODEOWNER (%s)", at, src)
		zh = fmt.Sprintf("%s 是已认可的 CODEOWNER（%s）", at, srcZH)
	}
	if len(byNote) > 0 {
		p := byNote[0].path
		if n := len(byNote) - 1; n > 0 {
			p += fmt.Sprintf(" and %d more", n)
		}
		en += fmt.Sprintf("; accepted %s with note: team membership unverifiable", p)
		zh += fmt.Sprintf("；已接受 %s，附注：团队成员身份无法验证", p)
	}
	if len(general) > 0 {
		e, z := defaultPhrase(general, len(specific)+len(byNote) > 0, s)
		en += "; " + e
		zh += "；" + z
	}
	return checks.PassR(checks.Text{EN: en + ".", ZH: zh + "。"})
}

// defaultPhrase describes the paths decided by the catch-all rule or by no
// rule. The core team is named "core", as reviewers call it.
func defaultPhrase(general []pathOwnership, others bool, s *repo.Settings) (string, string) {
	var defOwners []string
	seen := map[string]bool{}
	unowned := 0
	for _, po := range general {
		if po.kind == "unowned" {
			unowned++
			continue
		}
		k := strings.ToLower(strings.Join(po.rule.Owners, " "))
		if !seen[k] {
			seen[k] = true
			defOwners = append(defOwners, ownersLabel(po.rule.Owners, s))
		}
	}
	subject, subjectZH := "all changed paths", "所有变更路径"
	if others {
		subject, subjectZH = "other paths", "其他路径"
	}
	switch {
	case unowned == len(general):
		return subject + " have no owner", subjectZH + "没有所有者"
	case unowned > 0:
		return subject + " default to " + strings.Join(defOwners, ", ") + " or have no owner",
			subjectZH + "默认归" + ownersZH(defOwners) + "所有或没有所有者"
	}
	return subject + " default to " + strings.Join(defOwners, ", "), subjectZH + "默认归" + ownersZH(defOwners) + "所有"
}

func ownersLabel(owners []string, s *repo.Settings) string {
	if s != nil && s.CoreTeam != "" && len(owners) == 1 && strings.EqualFold(owners[0], s.CoreTeam) {
		return "core"
	}
	return strings.Join(owners, " ")
}

// teamOracle asks Source about team membership at most once per team, in
// the order the rule needs the answers (so the evidence is deterministic).
type teamOracle struct {
	ctx   context.Context
	src   checks.Source
	login string
	seen  map[string]checks.Membership
	order []string
}

func (o *teamOracle) member(team string) checks.Membership {
	k := strings.ToLower(team)
	if m, ok := o.seen[k]; ok {
		return m
	}
	m := checks.MembershipUnknown
	if org, slug, ok := codeowners.SplitTeam(team); ok {
		if got, err := o.src.TeamMember(o.ctx, org, slug, o.login); err == nil {
			m = got
		}
	}
	o.seen[k] = m
	o.order = append(o.order, team)
	return m
}

func (o *teamOracle) evidence() []checks.Evidence {
	var ev []checks.Evidence
	for _, t := range o.order {
		v := map[checks.Membership]string{checks.Member: "member", checks.NotMember: "not a member", checks.MembershipUnknown: "unverifiable"}[o.seen[strings.ToLower(t)]]
		ev = append(ev, checks.Evidence{Label: "Team " + t, Value: "@" + o.login + ": " + v})
	}
	return ev
}

// problemNote names the CODEOWNERS lines with errors (ours and GitHub's), so
// a PASS built on a partly broken file says so.
func problemNote(lines []int) checks.Text {
	if len(lines) == 0 {
		return checks.Text{}
	}
	sort.Ints(lines)
	var parts []string
	last := -1
	for _, l := range lines {
		if l != last {
			parts = append(parts, fmt.Sprint(l))
			last = l
		}
	}
	if len(parts) > 5 {
		parts = append(parts[:5], "…")
	}
	ls := strings.Join(parts, ", ")
	return checks.Text{
		EN: fmt.Sprintf("Note: CODEOWNERS has errors on %s %s.", countNoun(len(parts), "line", "lines"), ls),
		ZH: fmt.Sprintf("注意：CODEOWNERS 第 %s 行有错误。", ls),
	}
}

// codeownersErrorsEvidence reports GitHub's own diagnostics at B. They do
// not decide the row (the scope gate refuses such files before Check 0
// runs), but a reviewer must see them.
func codeownersErrorsEvidence(ctx context.Context, pr *checks.PR) ([]checks.Evidence, []int) {
	errs, err := pr.Source.CodeownersErrors(ctx, pr.BaseTip)
	if err != nil {
		return []checks.Evidence{{Label: "GitHub CODEOWNERS errors", Value: "could not be read: " + err.Error()}}, nil
	}
	if len(errs) == 0 {
		return []checks.Evidence{{Label: "GitHub CODEOWNERS errors", Value: "none"}}, nil
	}
	var ev []checks.Evidence
	var lines []int
	for i, e := range errs {
		lines = append(lines, e.Line)
		if i < maxOwnerEvidence {
			v := e.Message
			if e.Kind != "" {
				v = e.Kind + ": " + v
			}
			ev = append(ev, checks.Evidence{Label: fmt.Sprintf("GitHub CODEOWNERS error (line %d)", e.Line), Value: v})
		}
	}
	return ev, lines
}

func ownershipEvidence(owned []pathOwnership) []checks.Evidence {
	var ev []checks.Evidence
	def, unowned := 0, 0
	shown := 0
	for _, po := range owned {
		switch po.kind {
		case "default":
			def++
			continue
		case "unowned":
			unowned++
			continue
		}
		if shown == maxOwnerEvidence {
			continue
		}
		shown++
		verdict := map[string]string{
			"direct":       "signer listed",
			"team":         "signer is a member of " + po.team,
			"unverifiable": "accepted: team membership unverifiable",
			"":             "signer is not an owner",
		}[po.via]
		ev = append(ev, checks.Evidence{Label: po.path, Value: fmt.Sprintf("line %d %s: %s — %s",
			po.rule.Line, po.rule.Pattern, strings.Join(po.rule.Owners, " "), verdict)})
	}
	if def > 0 {
		ev = append(ev, checks.Evidence{Label: "Default paths", Value: fmt.Sprintf("%d (catch-all rule)", def)})
	}
	if unowned > 0 {
		ev = append(ev, checks.Evidence{Label: "Unowned paths", Value: fmt.Sprint(unowned)})
	}
	return ev
}

// ownersZH is the Chinese form of owner labels: "core" (ownersLabel's name
// for the core team) is a word, handles stay as written.
func ownersZH(labels []string) string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = l
		if l == "core" {
			out[i] = "核心团队"
		}
	}
	// Handles are set off by spaces from the Chinese around them; a
	// Chinese word is not.
	j := strings.Join(out, "、")
	if j != "" && j[0] < utf8.RuneSelf {
		j = " " + j
	}
	if j != "" && j[len(j)-1] < utf8.RuneSelf {
		j += " "
	}
	return j
}
