package checklist

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Linked is row 5: the PR's description links at least one pull request
// or issue in the allowed repositories (this one by default), and every
// such link is in the item's state (merged by default).
var Linked = verifierRow(5, checks.T("Linked pull request or issue", "关联的拉取请求或议题"), KindLinked, judgeLinked)

// linkRE finds references to pull requests and issues: a github.com pull
// or issue URL, owner/repo#N or #N.
var linkRE = regexp.MustCompile(`(?:https://github\.com/([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)/(?:pull|issues)/([0-9]+)|\b([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)#([0-9]+)|(?:^|[\s(])#([0-9]+))`)

// maxLinks bounds the pull requests and issues one item reads.
const maxLinks = 20

type prRef struct {
	owner, repo string
	number      int
}

func (r prRef) String() string { return fmt.Sprintf("%s/%s#%d", r.owner, r.repo, r.number) }

func refsIn(body, owner, repo string) []prRef {
	var out []prRef
	for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
		r := prRef{owner: owner, repo: repo}
		num := m[7]
		switch {
		case m[3] != "":
			r.owner, r.repo, num = m[1], m[2], m[3]
		case m[6] != "":
			r.owner, r.repo, num = m[4], m[5], m[6]
		}
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			continue
		}
		r.number = n
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func judgeLinked(ctx context.Context, pr *checks.PR, it Item) checks.Result {
	allowed := it.Repos
	if len(allowed) == 0 {
		allowed = []string{pr.Owner + "/" + pr.Repo}
	}
	var refs []prRef
	for _, r := range refsIn(pr.Body, pr.Owner, pr.Repo) {
		if slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, r.owner+"/"+r.repo) }) &&
			!(strings.EqualFold(r.owner+"/"+r.repo, pr.Owner+"/"+pr.Repo) && r.number == pr.Number) {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 {
		return checks.FailR(checks.T(
			"the description links no pull request or issue in "+strings.Join(allowed, ", "),
			"描述中没有关联 "+strings.Join(allowed, ", ")+" 中的拉取请求或议题"))
	}
	if len(refs) > maxLinks {
		refs = refs[:maxLinks]
	}
	state := cmp.Or(it.State, StateMerged)
	var ev []checks.Evidence
	pulls, issues := 0, 0
	// A link that cannot be read keeps the item unverified, unless another
	// link read already breaks it.
	var unread prRef
	var unreadErr error
	for _, r := range refs {
		l, err := readLink(ctx, pr.Source, r)
		if err != nil {
			if unreadErr == nil {
				unread, unreadErr = r, err
			}
			continue
		}
		ev = append(ev, checks.Evidence{Label: r.String(), URL: l.url, Value: l.shown.EN})
		if l.pull {
			pulls++
		} else {
			issues++
		}
		if !l.in(state) {
			return checks.FailR(l.notIn(r, state), ev...)
		}
	}
	if unreadErr != nil {
		return unverified("reading "+unread.String(), "读取 "+unread.String()+" 失败", unreadErr)
	}
	var en, zh []string
	if pulls > 0 {
		en, zh = append(en, fmt.Sprintf("%d linked pull request(s)", pulls)), append(zh, fmt.Sprintf("%d 个关联的拉取请求", pulls))
	}
	if issues > 0 {
		en, zh = append(en, fmt.Sprintf("%d linked issue(s)", issues)), append(zh, fmt.Sprintf("%d 个关联的议题", issues))
	}
	return checks.PassR(checks.T(
		strings.Join(en, " and ")+" "+state,
		strings.Join(zh, "和 ")+"状态为 "+checks.Code(state)), ev...)
}

// link is what one reference turned out to be.
type link struct {
	pull bool
	// state is open or closed; merged is a pull request's merge, reason an
	// issue's state_reason.
	state, reason string
	merged        bool
	url           string
	// shown is the state as a reason names it.
	shown checks.Text
}

// readLink reads a reference through the issues endpoint, which answers
// for issues and pull requests alike, and reads a pull request's merge.
func readLink(ctx context.Context, src checks.Source, r prRef) (link, error) {
	is, err := src.Issue(ctx, r.owner, r.repo, r.number)
	if err != nil {
		return link{}, err
	}
	if !is.PullRequest {
		l := link{state: is.State, reason: is.StateReason, url: is.HTMLURL}
		switch {
		case is.State != "closed":
			l.shown = checks.T(is.State, checks.Code(is.State))
		case is.StateReason == "":
			l.shown = checks.T("closed, GitHub records no reason", "已关闭（GitHub 未记录原因）")
		default:
			reason := strings.ReplaceAll(is.StateReason, "_", " ")
			l.shown = checks.T("closed as "+reason, "已关闭，原因为 "+checks.Code(is.StateReason))
		}
		return l, nil
	}
	up, err := src.UpstreamPR(ctx, r.owner, r.repo, r.number)
	if err != nil {
		return link{}, err
	}
	l := link{pull: true, state: up.State, merged: up.Merged, url: up.HTMLURL}
	shown := up.State
	if up.Merged {
		shown = StateMerged
	}
	l.shown = checks.T(shown, checks.Code(shown))
	return l, nil
}

// in reports whether the link is in state (see the State constants).
func (l link) in(state string) bool {
	switch state {
	case StateMerged:
		return l.pull && l.merged
	case StateCompleted:
		return l.merged || (!l.pull && l.state == "closed" && l.reason == "completed")
	case StateOpen:
		return l.state == "open"
	case StateClosed:
		return l.state == "closed"
	}
	return false
}

// notIn is the reason the link is not in state.
func (l link) notIn(r prRef, state string) checks.Text {
	if !l.pull && state == StateMerged {
		return checks.T(
			fmt.Sprintf("%s is an issue, which cannot be merged (state: completed asks for an issue closed as completed)", r),
			fmt.Sprintf("%s 是议题，无法合并（%s 要求议题以“已完成”关闭）", r, checks.Code("state: completed")))
	}
	what, whatZH := "pull request", "拉取请求"
	if !l.pull {
		what, whatZH = "issue", "议题"
	}
	return checks.T(
		fmt.Sprintf("%s %s is %s, not %s", what, r, l.shown.EN, state),
		fmt.Sprintf("%s %s 的状态为 %s，而不是 %s", whatZH, r, l.shown.ZH, checks.Code(state)))
}
