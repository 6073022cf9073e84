package commands

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// paretoBypassRE is the older whole-line `/pareto-bypass <sha> <reason>`
// of Check 14, applied to command lines (lines.go); `/verdict bypass 14
// <sha> <reason>` is parsed by ParseVerdict.
var paretoBypassRE = regexp.MustCompile(`^[^\S\n]*/pareto-bypass[^\S\n]+([0-9a-fA-F]{7,40})[^\S\n]+(\S[^\n]*?)[^\S\n]*$`)

// freeTextBypassRE finds bypass claims that are not commands. A claim is
// what a reader sees: words in a code block, an HTML comment or a quote of
// someone else are not the admin's claim.
var freeTextBypassRE = regexp.MustCompile(`(?i)\badmin (bypass|exception)\b`)

// claimsBypass reports whether the ordinary text of body claims a bypass.
func claimsBypass(body string) bool {
	if !freeTextBypassRE.MatchString(body) {
		return false
	}
	for _, l := range proseLines(body) {
		if freeTextBypassRE.MatchString(l) {
			return true
		}
	}
	return false
}

// Bypass is the admin-bypass state of a check on the assessed commit.
type Bypass struct {
	Verified bool
	By       string // @login of the verified bypass or of a free-text claim
	URL      string
	Reason   string
	// Claimed is an admin's free-text claim, which a bot cannot verify.
	Claimed bool
	// Why explains each bypass that did not count (newest first).
	Why []Refusal
}

// Refusal says why one comment's bypass did not count.
type Refusal struct {
	Why checks.Text // one clause, without the link
	URL string      // the comment
}

// bypassMentionRE finds a bypass command written anywhere in a body, also
// where it is not a command (a quote, code, the middle of a line).
var bypassMentionRE = regexp.MustCompile(`(?i)/(?:verdict[^\S\n]+bypass[^\S\n]+(\d+)|(pareto)-bypass)\b`)

// mentionsBypass reports whether body writes a bypass of check where it is
// not a command; inProse says it is in ordinary text (mid-line or in a list
// item) rather than in a quote, code or an HTML comment.
func mentionsBypass(body string, check int) (found, inProse bool) {
	of := func(line string) bool {
		for _, m := range bypassMentionRE.FindAllStringSubmatch(line, -1) {
			if m[1] == fmt.Sprint(check) || m[2] != "" && check == 14 {
				return true
			}
		}
		return false
	}
	if !of(body) {
		return false, false
	}
	for _, l := range proseLines(body) {
		if of(l) {
			return true, true
		}
	}
	return true, false
}

// Text is the row fragment: "admin bypass verified (@x, <url>)", "admin
// bypass claimed by @x, not machine-verifiable" or "admin bypass not
// verified".
func (b Bypass) Text() checks.Text {
	switch {
	case b.Verified:
		return checks.T(fmt.Sprintf("admin bypass verified (@%s, %s)", b.By, b.URL),
			fmt.Sprintf("管理员豁免已验证（@%s，%s）", b.By, b.URL))
	case b.Claimed:
		return checks.T(fmt.Sprintf("admin bypass claimed by @%s, not machine-verifiable", b.By),
			fmt.Sprintf("管理员豁免由 @%s 声称，无法机器验证", b.By))
	case len(b.Why) > 0:
		// A refused bypass says why in the row itself: whoever posted it
		// must not have to guess.
		w := b.Why[0].Why
		en, zh := "admin bypass not verified: "+w.EN, "管理员豁免未验证："+w.ZH
		if n := len(b.Why) - 1; n > 0 {
			en += fmt.Sprintf(" (%d more listed below)", n)
			zh += fmt.Sprintf("（另有 %d 条列于下方）", n)
		}
		return checks.T(en, zh)
	}
	return checks.T("admin bypass not verified", "管理员豁免未验证")
}

// bypassCommand extracts a bypass of check from one comment body: the SHA
// prefix and the reason.
func bypassCommand(body string, check int) (sha, reason string, ok bool) {
	pareto := check == 14 && strings.Contains(body, "/pareto-bypass")
	if !pareto && !strings.Contains(body, "/verdict") {
		return "", "", false
	}
	lines := commandLines(body)
	if c, e := parseVerdictLines(lines); e == OK && c.Action == ActionBypass && c.Check == check {
		return strings.ToLower(c.SHA), c.Reason, true
	}
	if pareto {
		if m := matching(lines, paretoBypassRE); m != nil {
			last := m[len(m)-1]
			return strings.ToLower(last[1]), last[2], true
		}
	}
	return "", "", false
}

// FindBypass looks for an admin bypass of check on the assessed commit head
// in the PR's human comments, newest first. A bypass counts only when its
// SHA prefix names head and its author is an admin by the strict test
// (permission and role_name both admin); failed lookups grant nothing.
func FindBypass(ctx context.Context, src checks.Source, head string, check int) (Bypass, error) {
	cs, err := src.Comments(ctx)
	if err != nil {
		return Bypass{}, fmt.Errorf("reading PR comments for a bypass: %w", err)
	}
	var b Bypass
	perms := map[string]checks.Permission{}
	// admin answers whether login is an admin by the strict test, and if
	// not, why not.
	admin := func(login string) (bool, checks.Text) {
		p, ok := perms[login]
		if !ok {
			var err error
			p, err = src.Permission(ctx, login)
			if err != nil {
				return false, checks.T(fmt.Sprintf("the permission of @%s could not be read", login),
					fmt.Sprintf("无法读取 @%s 的权限", login))
			}
			perms[login] = p
		}
		switch {
		case p.IsAdmin():
			return true, checks.Text{}
		case p.Permission == "admin":
			return false, checks.T(fmt.Sprintf("@%s has `admin` permission, but the role is %s, not `admin`", login, checks.Code(p.RoleName)),
				fmt.Sprintf("@%s 拥有 `admin` 权限，但角色为 %s，不是 `admin`", login, checks.Code(p.RoleName)))
		}
		return false, checks.T(fmt.Sprintf("@%s is not an admin (permission %s)", login, checks.Code(p.Permission)),
			fmt.Sprintf("@%s 不是管理员（权限为 %s）", login, checks.Code(p.Permission)))
	}
	assessed := strings.ToLower(head)
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		if c.AuthorIsBot || c.Author == "" {
			continue
		}
		sha, reason, ok := bypassCommand(c.Body, check)
		if !ok {
			if found, inProse := mentionsBypass(c.Body, check); found {
				why := checks.T(fmt.Sprintf("the bypass by @%s is quoted, in code or in an HTML comment, so it is not a command", c.Author),
					fmt.Sprintf("@%s 的豁免位于引用、代码或 HTML 注释中，不算命令", c.Author))
				if inProse {
					why = checks.T(fmt.Sprintf("the bypass by @%s is not on a line of its own, so it is not a command", c.Author),
						fmt.Sprintf("@%s 的豁免没有单独成行，不算命令", c.Author))
				}
				b.Why = append(b.Why, Refusal{Why: why, URL: c.URL})
				continue
			}
			if !b.Claimed && claimsBypass(c.Body) {
				if isAdmin, _ := admin(c.Author); isAdmin {
					b.Claimed, b.By = true, c.Author
				}
			}
			continue
		}
		if !strings.HasPrefix(assessed, sha) {
			b.Why = append(b.Why, Refusal{URL: c.URL, Why: checks.T(
				fmt.Sprintf("@%s named commit %s, not the assessed head %s", c.Author, sha, checks.Short(head)),
				fmt.Sprintf("@%s 指定的提交是 %s，不是所评估的最新提交 %s", c.Author, sha, checks.Short(head)))})
			continue
		}
		if isAdmin, why := admin(c.Author); !isAdmin {
			b.Why = append(b.Why, Refusal{Why: why, URL: c.URL})
			continue
		}
		return Bypass{Verified: true, By: c.Author, URL: c.URL, Reason: reason}, nil
	}
	if b.Claimed {
		b.Why = append(b.Why, Refusal{Why: checks.T("@"+b.By+" claimed a bypass in free text", "@"+b.By+" 以普通文字声称豁免")})
	}
	return b, nil
}
