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
// the PR head, so a PR cannot appoint its own owners. A sign-off its author
// did not write, or wrote for an older head, fails it (checks.Authored).
var Codeowner = &checks.Check{
	Number:   0,
	SignOff:  checks.SignOffJudged,
	Name:     checks.Text{EN: "CODEOWNER", ZH: "代码所有者"},
	Requires: []checks.Requirement{repo.LayoutFact, repo.CodeOwnersFact},
	// Who wrote the sign-off decides this row before whom it names.
	Run: func(ctx context.Context, pr *checks.PR) checks.Result {
		return checks.Authored(ctx, pr, runCodeowner(ctx, pr))
	},
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
	if strings.EqualFold(signer, pr.Author) && !repo.SettingsParam.Get(pr).AllowSelfSignOff {
		return checks.FailR(checks.T(
			fmt.Sprintf("@%s signed off their own PR; a sign-off must come from another code owner (allow_self_signoff is off)", signer),
			fmt.Sprintf("@%s 签核了自己的 PR；签核必须来自另一位代码所有者（allow_self_signoff 未开启）", signer)))
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
	paths := repo.OwnerPaths(files)
	if len(paths) == 0 {
		return checks.Unverified(checks.T("the PR lists no changed files", "PR 未列出任何变更文件"))
	}
	if pr.ChangedFiles > 0 && repo.DistinctPaths(files) != pr.ChangedFiles {
		return checks.Unverified(checks.T(fmt.Sprintf("the changed-file list is incomplete (%d of %d files)", repo.DistinctPaths(files), pr.ChangedFiles),
			fmt.Sprintf("变更文件列表不完整（%d / %d 个文件）", repo.DistinctPaths(files), pr.ChangedFiles)))
	}

	ownersEv := checks.Evidence{Label: "CODEOWNERS", Value: at}
	if pr.Owner != "" && pr.Repo != "" {
		ownersEv.URL = fmt.Sprintf("https://github.com/%s/%s/blob/%s/%s", pr.Owner, pr.Repo, pr.BaseTip, file)
	}
	ev := []checks.Evidence{ownersEv, {Label: "Signer", Value: "@" + signer}}
	ghEv, ghLines := repo.CodeownersErrorsEvidence(ctx, pr)
	ev = append(ev, ghEv...)
	problemLines := ghLines
	for _, p := range co.Problems {
		problemLines = append(problemLines, p.Line)
		ev = append(ev, checks.Evidence{Label: fmt.Sprintf("CODEOWNERS line %d", p.Line), Value: p.Message + " (skipped)"})
	}

	teams := repo.NewTeamOracle(ctx, pr.Source, signer)
	owned := repo.AssessOwnership(co, paths, signer, teams)
	ev = append(ev, repo.OwnershipEvidence(owned)...)

	res := decideCodeowner(co, owned, signer, file, repo.SettingsParam.Get(pr), teams)
	res.Evidence = append(ev, append(res.Evidence, teams.Evidence()...)...)
	if note := problemNote(problemLines); note.EN != "" {
		res.Reason.EN += " " + note.EN
		res.Reason.ZH += " " + note.ZH
	}
	return res
}

func decideCodeowner(co codeowners.File, owned []repo.Ownership, signer, file string, s *repo.Settings, teams *repo.TeamOracle) checks.Result {
	at := "@" + signer
	var specific, byNote, failed, general []repo.Ownership
	for _, po := range owned {
		switch {
		case po.Kind != "specific":
			general = append(general, po)
		case po.Via == "":
			failed = append(failed, po)
		case po.Via == "unverifiable":
			byNote = append(byNote, po)
		default:
			specific = append(specific, po)
		}
	}
	if len(failed) > 0 {
		f := failed[0]
		owners := strings.Join(f.Rule.Owners, " ")
		en := fmt.Sprintf("%s is not a CODEOWNER of %s (owners: %s).", at, f.Path, owners)
		zh := fmt.Sprintf("%s 不是 %s 的 CODEOWNER（所有者：%s）。", at, f.Path, owners)
		if len(f.Unknowns) > 0 {
			u := strings.Join(f.Unknowns, " ")
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
		how, unknowns = repo.RecognizedOwner(co, signer, teams)
		if how == "" {
			first := general[0].Path
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
		if f.Via == "team" {
			rule += ", via " + f.Team
			ruleZH += "，通过 " + f.Team
		}
		en = fmt.Sprintf("%s owns %s (%s)", at, f.Path, rule)
		zh = fmt.Sprintf("%s 拥有 %s（%s）", at, f.Path, ruleZH)
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
		p := byNote[0].Path
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
func defaultPhrase(general []repo.Ownership, others bool, s *repo.Settings) (string, string) {
	var defOwners []string
	seen := map[string]bool{}
	unowned := 0
	for _, po := range general {
		if po.Kind == "unowned" {
			unowned++
			continue
		}
		k := strings.ToLower(strings.Join(po.Rule.Owners, " "))
		if !seen[k] {
			seen[k] = true
			defOwners = append(defOwners, ownersLabel(po.Rule.Owners, s))
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
