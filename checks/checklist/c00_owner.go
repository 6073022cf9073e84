package checklist

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/codeowners"
)

// Owner is row 0: the signer owns every changed file that needs a
// sign-off (CODEOWNERS at the base tip, directly or through a team), and
// is not the PR's author unless the settings allow it. A file needs one
// as the app's gate decides: when an owner other than the core team and
// the repository's individual admins owns it. A sign-off its
// author did not write, or wrote for an older head, fails it.
var Owner = &checks.Check{
	Number:   0,
	Name:     checks.T("Code owner", "代码所有者"),
	SignOff:  checks.SignOffJudged,
	Requires: []checks.Requirement{ownersFact},
	Run: func(ctx context.Context, pr *checks.PR) checks.Result {
		return checks.Authored(ctx, pr, runOwner(ctx, pr))
	},
}

func runOwner(ctx context.Context, pr *checks.PR) checks.Result {
	signer := strings.TrimPrefix(strings.TrimSpace(pr.SignOff.Author), "@")
	if signer == "" {
		return checks.Unverified(checks.T("the sign-off author is unknown", "签核作者未知"))
	}
	if !settingsOf(pr).AllowSelfSignOff && strings.EqualFold(signer, pr.Author) {
		return checks.FailR(checks.T(
			fmt.Sprintf("@%s signed off their own PR; a sign-off is a second pair of eyes (allow_self_signoff is off)", signer),
			fmt.Sprintf("@%s 签核了自己的 PR；签核需要另一位审阅者（allow_self_signoff 未开启）", signer)))
	}
	o, err := ownersFact.Of(ctx, pr)
	if err != nil {
		return checks.Unverified(checks.T("reading "+o.CodeOwners+": "+err.Error(), "读取 "+o.CodeOwners+" 失败："+checks.Code(err.Error())))
	}
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return checks.Unverified(checks.T("listing the changed files: "+err.Error(), "列出变更文件失败："+checks.Code(err.Error())))
	}
	ev := checks.Evidence{Label: "CODEOWNERS", Value: o.CodeOwners + " @ " + checks.Short(pr.BaseTip)}
	memo := map[string]checks.Membership{}
	admins := map[string]bool{}
	var notOwned []string
	var unknown checks.Text
	judged := 0
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			owners, ok := o.Match(p)
			if !ok || onlyCore(owners, o.CoreTeam) {
				continue // nobody's sign-off is needed for it
			}
			// Ownership first: a file the signer owns needs no more
			// evidence, whoever else owns it.
			owns, err := ownsBy(ctx, pr.Source, owners, signer, memo)
			if owns {
				judged++
				continue
			}
			if !needsSignOff(ctx, pr.Source, owners, o.CoreTeam, admins) {
				continue // only admins own it
			}
			judged++
			switch {
			case err != nil && unknown.EN == "":
				unknown = checks.T(
					fmt.Sprintf("whether @%s owns %s: %v", signer, p, err),
					fmt.Sprintf("无法确定 @%s 是否拥有 %s：%s", signer, p, checks.Code(err.Error())))
			case err == nil:
				notOwned = append(notOwned, p)
			}
		}
	}
	if len(notOwned) == 0 && unknown.EN != "" {
		// A file the signer may or may not own keeps the row from
		// passing; one the signer surely does not own decides it.
		return checks.Unverified(unknown).WithEvidence(ev)
	}
	switch {
	case len(notOwned) > 0:
		return checks.FailR(checks.T(
			fmt.Sprintf("@%s does not own %s", signer, notOwned[0]),
			fmt.Sprintf("@%s 不是 %s 的所有者", signer, notOwned[0])).AndMore(len(notOwned)-1), ev)
	case judged == 0:
		return checks.PassR(checks.T(
			fmt.Sprintf("no changed file needs an owner's sign-off; @%s signed", signer),
			fmt.Sprintf("没有变更文件需要所有者签核；由 @%s 签核", signer)), ev)
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("@%s owns every changed file that needs a sign-off (%d)", signer, judged),
		fmt.Sprintf("@%s 拥有所有需要签核的变更文件（%d 个）", signer, judged)), ev)
}

// onlyCore reports a rule whose owners are all the core team: its files
// need no sign-off, and nothing need be read to know it.
func onlyCore(owners []string, core string) bool {
	for _, o := range owners {
		if core == "" || !strings.EqualFold(o, core) {
			return false
		}
	}
	return true
}

// needsSignOff reports a rule with an owner other than the core team and
// the repository's individual admins, as the app's gate reads it (a
// permission that cannot be read is no exemption). admins memoizes the
// answers by login.
func needsSignOff(ctx context.Context, src checks.Source, owners []string, core string, admins map[string]bool) bool {
	for _, o := range owners {
		if core != "" && strings.EqualFold(o, core) {
			continue
		}
		login, ok := strings.CutPrefix(o, "@")
		if !ok || strings.Contains(login, "/") {
			return true // a team or an e-mail owner
		}
		key := strings.ToLower(login)
		admin, seen := admins[key]
		if !seen {
			perm, err := src.Permission(ctx, login)
			admin = err == nil && perm.IsAdmin()
			admins[key] = admin
		}
		if !admin {
			return true
		}
	}
	return false
}

// ownsBy reports whether signer is one of owners: listed as @login, or a
// member of a listed team. An unknown team membership is an error unless
// the signer is listed directly.
func ownsBy(ctx context.Context, src checks.Source, owners []string, signer string, memo map[string]checks.Membership) (bool, error) {
	var unknown error
	for _, o := range owners {
		if strings.EqualFold(o, "@"+signer) {
			return true, nil
		}
		org, slug, ok := codeowners.SplitTeam(o)
		if !ok {
			continue // an e-mail owner names no login
		}
		m, seen := memo[strings.ToLower(o)]
		if !seen {
			var err error
			if m, err = src.TeamMember(ctx, org, slug, signer); err != nil {
				unknown = fmt.Errorf("membership of %s: %w", o, err)
				continue
			}
			memo[strings.ToLower(o)] = m
		}
		switch m {
		case checks.Member:
			return true, nil
		case checks.MembershipUnknown:
			unknown = fmt.Errorf("the membership of %s cannot be read", o)
		}
	}
	return false, unknown
}
