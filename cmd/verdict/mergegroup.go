package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// appMergeGroups answers GitHub's merge queue. A group may merge when every
// PR in it may: its standing verdict is PASS (or WARN, when WARN counts as
// success) for its current head, and that verdict read its rules at the
// group's base commit, or a verification of the same sign-off with the
// rules at the group's base (nothing published on the PR) passes. So a
// CODEOWNERS rule, a checklist or a threshold that changed on the base
// branch after the verdict is applied before the PR merges.
type appMergeGroups struct {
	v appVerifier
}

// queueEntryRE reads a group's branch: gh-readonly-queue/<base>/pr-<N>-<parent SHA>.
var queueEntryRE = regexp.MustCompile(`^refs/heads/gh-readonly-queue/(.+)/pr-([1-9][0-9]{0,9})-([0-9a-f]{40})$`)

// maxGroupPRs bounds the PRs one group is checked for (GitHub's queue
// merges at most 100 at once).
const maxGroupPRs = 100

func (m appMergeGroups) MergeGroup(ctx context.Context, a jobs.MergeGroupArgs, at jobs.Attempt) error {
	log := m.v.log.With("repo", a.FullName(), "head_sha", a.HeadSHA, "delivery_id", a.DeliveryID)
	entry := queueEntryRE.FindStringSubmatch(a.HeadRef)
	if entry == nil || "refs/heads/"+entry[1] != a.BaseRef {
		log.Info("merge group ref not understood; nothing published", "ref", a.HeadRef)
		return nil
	}
	number, _ := strconv.Atoi(entry[2])
	gh, err := m.v.client(ctx, a.InstallationID)
	if err != nil {
		return err
	}
	bots, err := m.v.id.bots(ctx)
	if err != nil {
		return err
	}
	src := gh.Evidence(a.Owner, a.Name, number)
	defer snapshot.Release(src)
	cfg, err := snapshot.Configuration(ctx, gh, src, servedPresets, a.Owner, a.Name)
	var invalid *snapshot.ConfigError
	if err != nil && !errors.As(err, &invalid) {
		return err
	}
	cfg.BotLogins = append(cfg.BotLogins, bots...)
	pub := publish.FromConfig(gh, cfg)
	group := publish.GroupCheck{Owner: a.Owner, Repo: a.Name, SHA: a.HeadSHA}
	if a.Action == "destroyed" {
		group.State, group.Description = publish.GroupCancelled, "Merge group removed from the queue / 合并组已移出队列"
		group.Summary = "The merge queue removed this group; nothing is checked on it.\n\n合并队列已移除此合并组，不再检查。"
		return pub.Group(ctx, group)
	}
	if invalid != nil {
		return m.settle(ctx, log, pub, group, []groupResult{{PR: number, Why: checks.T(
			"the repository configuration (.github/verdict.yml) is invalid", "仓库配置（.github/verdict.yml）无效")}})
	}
	if !at.Retry() {
		group.State, group.Description = publish.GroupPending, "Checking the merge group's sign-offs / 正在检查合并组的签核"
		if err := pub.Group(ctx, group); err != nil {
			log.Warn("marking the merge group as being checked", "err", err)
		}
	}
	prs, err := groupPulls(ctx, gh, a, number)
	if err != nil {
		return err
	}
	var results []groupResult
	for _, n := range prs {
		r, err := m.judge(ctx, gh, a, n, cfg.Status.WarnAs != "failure")
		if err != nil {
			// A transient failure is retried while attempts remain; the
			// last one, or a refusal, fails the group closed rather than
			// leave the queue waiting.
			if err = ghclient.Classify(err); ctx.Err() != nil || retry.IsTransient(err) && at.Number < at.Max {
				return err
			}
			r = groupResult{PR: n, Why: checks.T("could not be checked: "+oneLine(err), "无法检查："+oneLine(err))}
		}
		results = append(results, r)
	}
	return m.settle(ctx, log, pub, group, results)
}

// groupResult is one PR's answer in a group; Why is empty when it may merge.
type groupResult struct {
	PR  int
	OK  checks.Text // why it may merge
	Why checks.Text // why it may not
}

// groupPulls are the PRs a group merges: the entry its ref names, and the
// entries ahead of it whose groups it is built on (each entry's branch
// names its parent; a parent that is another entry's group commit is that
// entry), read from one listing of the queue's branches.
func groupPulls(ctx context.Context, gh *ghapi.Client, a jobs.MergeGroupArgs, number int) ([]int, error) {
	prs := []int{number}
	refs, err := gh.MatchingRefs(ctx, a.Owner, a.Name, "heads/gh-readonly-queue/"+strings.TrimPrefix(a.BaseRef, "refs/heads/")+"/")
	if err != nil {
		return nil, fmt.Errorf("listing the merge queue's branches: %w", err)
	}
	type entry struct {
		pr     int
		parent string
	}
	bySHA := map[string]entry{}
	for _, r := range refs {
		m := queueEntryRE.FindStringSubmatch(r.GetRef())
		if m == nil || "refs/heads/"+m[1] != a.BaseRef {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		bySHA[r.GetObject().GetSHA()] = entry{pr: n, parent: m[3]}
	}
	parent := a.BaseSHA
	for len(prs) < maxGroupPRs {
		e, ok := bySHA[parent]
		if !ok {
			break
		}
		delete(bySHA, parent) // a cycle cannot loop
		if !slices.Contains(prs, e.pr) {
			prs = append(prs, e.pr)
		}
		parent = e.parent
	}
	return prs, nil
}

// judge decides whether PR number may merge in group a.
func (m appMergeGroups) judge(ctx context.Context, gh *ghapi.Client, a jobs.MergeGroupArgs, number int, warnPasses bool) (groupResult, error) {
	res := groupResult{PR: number}
	pull, err := gh.PullRequest(ctx, a.Owner, a.Name, number)
	if err != nil {
		return res, fmt.Errorf("reading PR #%d: %w", number, err)
	}
	head := pull.GetHead().GetSHA()
	v, err := m.v.verifier(ctx)
	if err != nil {
		return res, err
	}
	rec, err := v.Standing(ctx, a.Owner, a.Name, number, head)
	if err != nil {
		return res, err
	}
	passes := func(o checks.Overall) bool { return o == checks.VerdictPass || o == checks.VerdictWarn && warnPasses }
	var ref signoff.Ref // zero: the newest sign-off, when no verdict stands
	switch {
	case rec == nil:
		// No verdict stands for the head: the PR may need no sign-off (its
		// files the core team's), or its sign-off was never verified.
		// Decide it now, with the rules at the group's base.
	case !passes(checks.Overall(rec.Verdict)):
		res.Why = checks.T(fmt.Sprintf("its verdict for %s is %s", short(head), rec.Verdict),
			fmt.Sprintf("其对 %s 的裁决为 %s", short(head), rec.Verdict))
		return res, nil
	case rec.AssessedBase == a.BaseSHA:
		res.OK = checks.T(fmt.Sprintf("%s for %s, with the rules at the group's base %s", rec.Verdict, short(head), short(a.BaseSHA)),
			fmt.Sprintf("%s 的裁决为 %s，规则读取自合并组的基提交 %s", short(head), rec.Verdict, short(a.BaseSHA)))
		return res, nil
	}
	// The rules may have changed under the verdict: verify the same
	// sign-off again with the rules at the group's base.
	if rec != nil {
		if ref, err = signoff.ParseKey(rec.Key); err != nil {
			return res, fmt.Errorf("the standing sign-off of PR #%d: %w", number, err)
		}
	}
	release, err := m.v.admit(ctx, a.InstallationID)
	if err != nil {
		return res, err
	}
	defer release()
	pinned := atBase{GitHub: gh, branch: strings.TrimPrefix(a.BaseRef, "refs/heads/"), sha: a.BaseSHA}
	out, err := v.Verify(ctx, pinned, verify.Request{Owner: a.Owner, Repo: a.Name, Number: number, SignOff: ref,
		Explicit: true, SkipActor: true, DeliveryID: a.DeliveryID})
	if err != nil {
		return res, err
	}
	switch {
	case out.Status == verify.NotRequired:
		res.OK = checks.T("no sign-off is required with the rules at the group's base "+short(a.BaseSHA),
			"按合并组基提交 "+short(a.BaseSHA)+" 的规则无需签核")
	case out.Status != verify.Verified && rec == nil:
		res.Why = checks.T("no verdict stands for its head "+short(head)+" and none could be made: "+out.SkipReason,
			"其头提交 "+short(head)+" 没有有效的裁决，也无法得出："+out.SkipReason)
	case out.Status != verify.Verified:
		res.Why = checks.T("not verified again with the rules at the group's base: "+out.SkipReason,
			"按合并组基提交的规则未能重新验证："+out.SkipReason)
	case passes(out.Verdict.Overall):
		res.OK = checks.T(fmt.Sprintf("verified again with the rules at the group's base %s: %s", short(a.BaseSHA), out.Verdict.Overall),
			fmt.Sprintf("按合并组基提交 %s 的规则重新验证：%s", short(a.BaseSHA), out.Verdict.Overall))
	default:
		var en, zh []string
		for _, r := range out.Verdict.Rows {
			if r.Result.Status == checks.Fail {
				en = append(en, fmt.Sprintf("Check %d: %s", r.Number, r.Result.Reason.EN))
				zh = append(zh, fmt.Sprintf("检查 %d：%s", r.Number, r.Result.Reason.ZH))
			}
		}
		res.Why = checks.T(fmt.Sprintf("with the rules at the group's base %s its sign-off is %s (%s)", short(a.BaseSHA),
			out.Verdict.Overall, strings.Join(en, "; ")),
			fmt.Sprintf("按合并组基提交 %s 的规则，其签核为 %s（%s）", short(a.BaseSHA), out.Verdict.Overall, strings.Join(zh, "；")))
	}
	return res, nil
}

// settle publishes the group's answer: success only when every PR may merge.
func (m appMergeGroups) settle(ctx context.Context, log *slog.Logger, pub *publish.Publisher, g publish.GroupCheck, results []groupResult) error {
	var en, zh []string
	failed := 0
	for _, r := range results {
		if r.Why.EN != "" {
			failed++
			en = append(en, fmt.Sprintf("- ❌ #%d: %s", r.PR, r.Why.EN))
			zh = append(zh, fmt.Sprintf("- ❌ #%d：%s", r.PR, r.Why.ZH))
			continue
		}
		en = append(en, fmt.Sprintf("- ✅ #%d: %s", r.PR, r.OK.EN))
		zh = append(zh, fmt.Sprintf("- ✅ #%d：%s", r.PR, r.OK.ZH))
	}
	g.State, g.Description = publish.GroupSuccess, "Every sign-off in the merge group verified / 合并组内的签核均已验证"
	if failed > 0 {
		first := results[0]
		for _, r := range results {
			if r.Why.EN != "" {
				first = r
				break
			}
		}
		g.State = publish.GroupFailure
		g.Description = fmt.Sprintf("PR #%d may not merge: %s", first.PR, first.Why.EN)
	}
	g.Summary = "Merge group " + short(g.SHA) + ":\n\n" + strings.Join(en, "\n") +
		"\n\n<details>\n<summary>中文</summary>\n\n合并组 " + short(g.SHA) + "：\n\n" + strings.Join(zh, "\n") + "\n\n</details>\n"
	log.Info("merge group checked", "verdict", g.State, "prs", len(results), "failed", failed)
	return pub.Group(ctx, g)
}

// atBase is GitHub as a merge group sees it: the base branch's tip is the
// group's base commit, so a verification reads its rules there.
type atBase struct {
	verify.GitHub
	branch, sha string
}

func (g atBase) BranchSHA(ctx context.Context, owner, repo, branch string) (string, error) {
	if branch == g.branch {
		return g.sha, nil
	}
	return g.GitHub.BranchSHA(ctx, owner, repo, branch)
}

// Evidence reads nothing ahead at a branch's name: the branch's tip on
// GitHub is not the group's base (a group queued behind another is built
// on that group's commit), so what was read there would never be
// confirmed. Everything is read at the commits the snapshot pins.
func (g atBase) Evidence(owner, repo string, number int) snapshot.Evidence {
	src := g.GitHub.Evidence(owner, repo, number)
	if s, ok := src.(*ghsource.Source); ok {
		return noReadAhead{s}
	}
	return src
}

// noReadAhead is an evidence source without reads ahead at branch names.
type noReadAhead struct{ *ghsource.Source }

func (noReadAhead) ReadAhead(context.Context, string, ...string) {}
func (noReadAhead) Pin(string, string)                           {}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
