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
	// Why explains a bypass command that did not verify (newest first).
	Why []string
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
	admin := func(login string) (bool, string) {
		p, ok := perms[login]
		if !ok {
			var err error
			p, err = src.Permission(ctx, login)
			if err != nil {
				return false, "permission lookup failed: " + err.Error()
			}
			perms[login] = p
		}
		if p.IsAdmin() {
			return true, ""
		}
		return false, fmt.Sprintf("permission %s, role %s", p.Permission, p.RoleName)
	}
	assessed := strings.ToLower(head)
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		if c.AuthorIsBot || c.Author == "" {
			continue
		}
		sha, reason, ok := bypassCommand(c.Body, check)
		if !ok {
			if !b.Claimed && claimsBypass(c.Body) {
				if isAdmin, _ := admin(c.Author); isAdmin {
					b.Claimed, b.By = true, c.Author
				}
			}
			continue
		}
		if !strings.HasPrefix(assessed, sha) {
			b.Why = append(b.Why, fmt.Sprintf("@%s named %s, not the assessed commit %s (%s)", c.Author, sha, checks.Short(head), c.URL))
			continue
		}
		if isAdmin, why := admin(c.Author); !isAdmin {
			b.Why = append(b.Why, fmt.Sprintf("@%s is not an admin: %s (%s)", c.Author, why, c.URL))
			continue
		}
		return Bypass{Verified: true, By: c.Author, URL: c.URL, Reason: reason}, nil
	}
	if b.Claimed {
		b.Why = append(b.Why, "@"+b.By+" claimed a bypass in free text")
	}
	return b, nil
}
