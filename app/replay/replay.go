// Package replay re-verifies a repository's merged pull requests from its
// git history, offline: every pull-request commit of the default branch's
// first-parent history is verified against its first parent through the
// local check (app/localverify), with a sign-off synthesized from the
// checklist template of that time, and the report says what Verdict's
// readers could not read, how every row came out, and whether the
// changelog entries Verdict took as added agree with the repository's own
// utils/process_changelog.py.
//
// A pull request is a first-parent commit whose subject ends in "(#N)"
// (a squash merge, as GitHub titles it) or a merge commit titled
// "Merge pull request #N from …". Its base, base-branch tip and trusted
// default-branch revision are all its first parent: the state of the
// default branch just before it merged. Its review date is the day it was
// committed.
package replay

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/localverify"
	"github.com/verdict-bot/verdict/checks"
)

// Options select and tune a replay.
type Options struct {
	// Head is the tip to replay from ("" means the default branch).
	Head string
	// Since, when set, replays only the pull requests after that revision.
	Since string
	// Limit, when positive, keeps the newest Limit pull requests.
	Limit int
	// Jobs bounds the pull requests verified at once (2).
	Jobs int
	// Owner and Repo name the repository in links and run claims ("" means
	// the origin remote's when it is on github.com).
	Owner, Repo string
	// Python runs the repository's changelog tool ("python3"); Tool is
	// the comparison mode: ToolEntries (""), ToolFull or ToolOff.
	Python string
	Tool   string
	// Progress, when set, receives a line every few pull requests.
	Progress io.Writer
	// Presets are the checklists served (checks.Choose picks one per PR);
	// Preset, when set, names the one every PR is verified with.
	Presets []*checks.Preset
	Preset  string
	// Branches, when set, are replayed instead of the history: each as a
	// pull request from its base to its head, reviewed on the head's
	// commit day.
	Branches []Branch
}

// Branch is an unmerged branch replayed as a pull request.
type Branch struct {
	Name, SHA, Base string
}

// PR is one merged pull request found in the history.
type PR struct {
	Number  int       `json:"number"`
	SHA     string    `json:"sha"`
	Parent  string    `json:"parent"`
	Subject string    `json:"subject"`
	Merge   bool      `json:"merge_commit,omitempty"` // several parents
	Date    time.Time `json:"date"`
	// Branch names an unmerged branch replayed as a PR (Number 0).
	Branch string `json:"branch,omitempty"`
}

var (
	squashRE = regexp.MustCompile(`\(#([1-9][0-9]*)\)`)
	mergeRE  = regexp.MustCompile(`^Merge pull request #([1-9][0-9]*) from `)
)

// classify tells whether a first-parent commit is a merged pull request.
func classify(c gitsource.Commit) (PR, bool) {
	if len(c.Parents) == 0 {
		return PR{}, false
	}
	pr := PR{SHA: c.SHA, Parent: c.Parents[0], Subject: c.Subject(), Merge: len(c.Parents) > 1, Date: c.Committed}
	var m []string
	if pr.Merge {
		m = mergeRE.FindStringSubmatch(pr.Subject)
	} else if all := squashRE.FindAllStringSubmatch(pr.Subject, -1); len(all) > 0 {
		m = all[len(all)-1] // "Revert "x (#1)" (#2)" is #2
	}
	if m == nil {
		return PR{}, false
	}
	pr.Number, _ = strconv.Atoi(m[1])
	return pr, true
}

// History lists the pull requests of the first-parent history, oldest
// first, and how many first-parent commits were examined.
func History(ctx context.Context, repo *gitsource.Repo, o Options) ([]PR, int, error) {
	head := o.Head
	if head == "" {
		_, sha, err := repo.DefaultBranch(ctx)
		if err != nil {
			return nil, 0, err
		}
		head = sha
	}
	tip, err := repo.Resolve(ctx, head)
	if err != nil {
		return nil, 0, err
	}
	rng := tip
	if o.Since != "" {
		since, err := repo.Resolve(ctx, o.Since)
		if err != nil {
			return nil, 0, fmt.Errorf("--since: %w", err)
		}
		rng = since + ".." + tip
	}
	shas, err := repo.RevList(ctx, "--first-parent", "--reverse", rng)
	if err != nil {
		return nil, 0, err
	}
	var prs []PR
	for _, sha := range shas {
		c, err := repo.Commit(ctx, sha)
		if err != nil {
			return nil, 0, err
		}
		if pr, ok := classify(c); ok {
			prs = append(prs, pr)
		}
	}
	if o.Limit > 0 && len(prs) > o.Limit {
		prs = prs[len(prs)-o.Limit:]
	}
	return prs, len(shas), nil
}

// Run replays the history and returns the report.
func Run(ctx context.Context, repo *gitsource.Repo, o Options) (*Report, error) {
	start := time.Now()
	if o.Jobs <= 0 {
		o.Jobs = 2
	}
	if o.Owner == "" || o.Repo == "" {
		o.Owner, o.Repo = repo.GitHubName(ctx)
	}
	prs, examined, err := History(ctx, repo, o)
	if len(o.Branches) > 0 {
		prs, examined, err = branchPRs(ctx, repo, o.Branches)
	}
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: repo.Dir(), Commits: examined}
	var tool *changelogTool
	switch o.Tool {
	case "", ToolEntries, ToolFull:
		tool, rep.ToolNote = newChangelogTool(ctx, repo, o.Python, o.Tool == ToolFull)
	case ToolOff:
		rep.ToolNote = "the comparison with process_changelog.py was not asked for"
	default:
		return nil, fmt.Errorf("unknown changelog tool mode %q (entries, full or off)", o.Tool)
	}

	results := make([]Result, len(prs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < o.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = replayOne(ctx, repo, prs[i], o, tool)
				mu.Lock()
				done++
				if o.Progress != nil && (done%50 == 0 || done == len(prs)) {
					fmt.Fprintf(o.Progress, "replayed %d/%d pull requests (%.0f s)\n", done, len(prs), time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range prs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep.PRs = results
	rep.Summarize()
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// replayOne verifies one pull request against its first parent.
func replayOne(ctx context.Context, repo *gitsource.Repo, p PR, o Options, tool *changelogTool) Result {
	res := Result{PR: p}
	ch, err := localverify.Prepare(ctx, repo, localverify.Request{
		Base: p.Parent, Head: p.SHA, Number: p.Number,
		Owner: o.Owner, Repo: o.Repo, ReviewDate: p.Date, Presets: o.Presets, Preset: o.Preset,
	})
	if err != nil {
		res.Error = err.Error()
		return res
	}
	so, err := ch.SynthesizeSignOff(ctx)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	ch.SetSignOff(so.Body, so.Signer)
	res.Signer = so.Signer
	out, err := ch.Verify(ctx, true)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Required = out.Scope.Required
	res.Verdict = string(out.Verdict.Overall)
	for _, r := range out.Verdict.Rows {
		res.Rows = append(res.Rows, Row{
			Number: r.Number, Status: string(r.Result.Status), Reason: r.Result.Reason.EN,
			GitHubOnly: out.NeedsGitHub[r.Number],
		})
	}
	res.PassedAnyway = out.PassedAnyway
	facts, err := ch.Facts(ctx)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Affected = len(facts.Affected)
	res.NotText = facts.NotText
	for _, pb := range facts.Problems {
		res.Problems = append(res.Problems, readerProblem(ctx, repo, p.SHA, pb))
	}
	res.Changelog = compareChangelog(ctx, tool, p, facts.Changelog)
	return res
}

// branchPRs are the branches as pull requests: each head against its base,
// dated by the head's commit.
func branchPRs(ctx context.Context, repo *gitsource.Repo, branches []Branch) ([]PR, int, error) {
	var prs []PR
	for _, b := range branches {
		head, err := repo.Resolve(ctx, b.SHA)
		if err != nil {
			return nil, 0, fmt.Errorf("branch %s: %w", b.Name, err)
		}
		base, err := repo.Resolve(ctx, b.Base)
		if err != nil {
			return nil, 0, fmt.Errorf("branch %s: its base: %w", b.Name, err)
		}
		c, err := repo.Commit(ctx, head)
		if err != nil {
			return nil, 0, fmt.Errorf("branch %s: %w", b.Name, err)
		}
		prs = append(prs, PR{SHA: head, Parent: base, Subject: c.Subject(), Date: c.Committed, Branch: b.Name})
	}
	return prs, len(prs), nil
}
