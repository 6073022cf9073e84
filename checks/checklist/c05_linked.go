package checklist

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// LinkedPR is row 5: the PR's description links at least one pull request
// in the allowed repositories (this one by default), and every such
// linked pull request is in the item's state (merged by default).
var LinkedPR = verifierRow(5, checks.T("Linked pull request", "关联的拉取请求"), KindLinked, judgeLinked)

// linkRE finds pull request references: a github.com pull URL, owner/repo#N
// or #N.
var linkRE = regexp.MustCompile(`(?:https://github\.com/([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)/pull/([0-9]+)|\b([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)#([0-9]+)|(?:^|[\s(])#([0-9]+))`)

// maxLinks bounds the pull requests one item reads.
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
			"the description links no pull request in "+strings.Join(allowed, ", "),
			"描述中没有关联 "+strings.Join(allowed, ", ")+" 中的拉取请求"))
	}
	if len(refs) > maxLinks {
		refs = refs[:maxLinks]
	}
	state := it.State
	if state == "" {
		state = "merged"
	}
	var ev []checks.Evidence
	for _, r := range refs {
		up, err := pr.Source.UpstreamPR(ctx, r.owner, r.repo, r.number)
		if err != nil {
			return unverified("reading "+r.String(), "读取 "+r.String()+" 失败", err)
		}
		ev = append(ev, checks.Evidence{Label: r.String(), URL: up.HTMLURL, Value: up.State})
		ok := false
		switch state {
		case "merged":
			ok = up.Merged
		case "open":
			ok = up.State == "open"
		case "closed":
			ok = up.State == "closed"
		}
		if !ok {
			got := up.State
			if up.Merged {
				got = "merged"
			}
			return checks.FailR(checks.T(
				fmt.Sprintf("%s is %s, not %s", r, got, state),
				fmt.Sprintf("%s 的状态为 %s，而不是 %s", r, checks.Code(got), checks.Code(state))), ev...)
		}
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("%d linked pull request(s) %s", len(refs), state),
		fmt.Sprintf("%d 个关联的拉取请求状态为 %s", len(refs), checks.Code(state))), ev...)
}
