package reuse

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
)

// Rejection reasons that are not eligibility reasons.
var supersededReason = checks.T(
	"a newer reuse request supersedes this comment",
	"已有更新的复用请求取代了此评论",
)

// decide validates a command comment (checks/inferencex/RULES.md, "Reuse
// commands") in a fixed order: the author's association, the grammar,
// whether it is the newest authorized request, an open PR, then the source
// run's eligibility. The repository's preset decides the associations and
// the eligibility (checks.ReuseRules); decide keeps the order. It returns
// the first failure, or the acceptance with the chosen source run.
// An error means the answer could not be determined (retry or log).
func (r *ack) decide(ctx context.Context, c commentView) (outcome, error) {
	pr, err := r.gh.PullRequest(ctx, r.owner, r.repo, r.job.PR)
	if err != nil {
		return outcome{}, apiError(fmt.Sprintf("reading PR #%d", r.job.PR), err)
	}
	src := r.gh.Evidence(r.owner, r.repo, r.job.PR)
	defer snapshot.Release(src)
	// target is the pull request as the preset reads a command for it.
	target := &checks.PR{Owner: r.owner, Repo: r.repo, Number: r.job.PR, HeadRef: pr.GetHead().GetRef(), Source: src}
	for _, l := range pr.Labels {
		target.Labels = append(target.Labels, l.GetName())
	}
	cfg, invalid, err := r.loadSettings(ctx, pr, target)
	if err != nil {
		return outcome{}, err
	}
	var rules *checks.ReuseRules
	if invalid == nil {
		var unknown *checks.UnknownPresetError
		p, err := checks.Choose(ctx, r.Presets, cfg.Preset, src, target.DefaultSHA, cfg.File())
		switch {
		case errors.As(err, &unknown):
			invalid = err
		case err != nil:
			return outcome{}, retryable(err)
		case p.Reuse == nil || !slices.Contains(p.Commands, "use"):
			return outcome{ignored: true}, nil
		default:
			// The preset reads its settings onto target, where its rules
			// find them; settings it refuses leave nothing to decide with.
			rules = p.Reuse
			if probs := repoconfig.CheckFor(p, cfg, target); len(probs) > 0 {
				invalid = fmt.Errorf("%s on %s is invalid (%w)", repoconfig.Path, target.DefaultBranch, &repoconfig.Error{Problems: probs})
			}
		}
	}
	if invalid != nil {
		return r.rejection(c, checks.T(
			"could not be verified: "+invalid.Error(),
			"无法验证："+checks.Code(invalid.Error()),
		)), nil
	}
	// The race guard (run) reads the newest request with the same
	// associations.
	allowed := rules.Associations(target)
	r.allowed = allowed

	cmd, perr := commands.ParseReuse(c.Body)
	if !commands.AssociationAllowed(c.Association, allowed) {
		return r.unauthorized(c, cmd, perr, allowed), nil
	}
	if perr != commands.OK {
		out := r.rejection(c, commands.ReuseUsage)
		out.reply = r.withFallback(out.reply, func() (string, error) {
			return render.UsageReplyMarkdown(render.UsageReply{CommentID: c.ID, Actor: c.Author, Usage: render.ReuseUsage})
		})
		return out, nil
	}
	comments, err := r.comments(ctx)
	if err != nil {
		return outcome{}, err
	}
	if _, newest, ok := commands.NewestAuthorized(comments, allowed); !ok || newest.ID != c.ID {
		return r.rejection(c, supersededReason), nil
	}
	if pr.GetState() != "open" {
		en, zh := "closed", "关闭"
		if pr.GetMerged() {
			en, zh = "merged", "合并"
		}
		return r.rejection(c, checks.T(
			fmt.Sprintf("PR #%d is %s, not open", r.job.PR, en),
			fmt.Sprintf("PR #%d 已%s，不是打开状态", r.job.PR, zh),
		)), nil
	}
	d := rules.Eligible(ctx, target, checks.ReuseRequest(cmd))
	if d.Err != nil {
		// Evidence that cannot be read for a lasting reason (no Actions
		// permission, an unreadable answer) is an answer worth giving;
		// anything else is retried.
		if errors.Is(d.Err, checks.ErrForbidden) || errors.Is(d.Err, checks.ErrMalformed) || errors.Is(d.Err, checks.ErrTooLarge) {
			return r.rejection(c, d.Reason), nil
		}
		return outcome{}, retryable(d.Err)
	}
	if !d.Eligible {
		out := r.rejection(c, d.Reason)
		out.cmd = cmd
		return out, nil
	}
	return outcome{accepted: true, cmd: cmd, run: d.Run}, nil
}

// rejection is a 👎 with the generic "Reuse rejected: <reason>" reply.
func (r *ack) rejection(c commentView, reason checks.Text) outcome {
	return outcome{reason: reason, reply: func() (string, error) {
		return render.ReuseReplyMarkdown(render.ReuseReply{CommentID: c.ID, PR: r.job.PR, Reason: reason})
	}}
}

// withFallback renders with the specific reply and falls back to the
// generic one (which only needs the reason) if the specific one refuses its
// input, for example an author login it does not accept.
func (r *ack) withFallback(generic, specific func() (string, error)) func() (string, error) {
	return func() (string, error) {
		body, err := specific()
		if err == nil {
			return body, nil
		}
		r.log.Warn("specific reuse reply could not be rendered; using the generic one", "err", err)
		return generic()
	}
}

func (r *ack) unauthorized(c commentView, cmd commands.Reuse, perr commands.Error, allowed []string) outcome {
	assoc := c.Association
	if assoc == "" {
		assoc = "NONE"
	}
	out := r.rejection(c, checks.T(
		fmt.Sprintf("a reuse command requires %s %s author association; @%s is %s", article(allowed), orList(allowed, "or"), c.Author, assoc),
		fmt.Sprintf("复用命令要求作者关联身份为 %s；@%s 为 %s", orList(allowed, "或"), c.Author, assoc),
	))
	label := cmd.String()
	if perr != commands.OK {
		label = commands.ReuseName(c.Body)
	}
	out.reply = r.withFallback(out.reply, func() (string, error) {
		return render.UnauthorizedReplyMarkdown(render.UnauthorizedReply{
			CommentID: c.ID, Actor: c.Author, Command: label, Need: "association", Associations: allowed,
		})
	})
	return out
}

// article is "an" before OWNER and "a" before MEMBER.
func article(list []string) string {
	if len(list) > 0 && strings.ContainsRune("AEIOUaeiou", rune(list[0][0])) {
		return "an"
	}
	return "a"
}

// orList joins "A, B, or C" (English) or "A、B 或 C" (conj "或").
func orList(list []string, conj string) string {
	if len(list) == 0 {
		return "(none)"
	}
	if len(list) == 1 {
		return list[0]
	}
	head, last := list[:len(list)-1], list[len(list)-1]
	if conj != "or" {
		return strings.Join(head, "、") + " " + conj + " " + last
	}
	if len(list) == 2 {
		return head[0] + " or " + last
	}
	return strings.Join(head, ", ") + ", or " + last
}

// loadSettings reads the repository configuration from the default branch,
// never from the PR, and pins that branch on target (DefaultBranch,
// DefaultSHA); the file is read through target.Source. invalid is set when
// the file exists but cannot be used (the answer is then "could not be
// verified"); err when it could not be read at all (retried).
func (r *ack) loadSettings(ctx context.Context, pr *github.PullRequest, target *checks.PR) (cfg repoconfig.Config, invalid, err error) {
	def := pr.GetBase().GetRepo().GetDefaultBranch()
	if def == "" {
		repo, err := r.gh.Repository(ctx, r.owner, r.repo)
		if err != nil {
			return cfg, nil, apiError("reading the repository", err)
		}
		def = repo.GetDefaultBranch()
	}
	sha, err := r.gh.BranchSHA(ctx, r.owner, r.repo, def)
	if err != nil {
		return cfg, nil, apiError("reading default branch "+def, err)
	}
	target.DefaultBranch, target.DefaultSHA = def, sha
	data, err := target.Source.ReadFile(ctx, sha, repoconfig.Path)
	switch {
	case errors.Is(err, checks.ErrNotFound):
		return repoconfig.Default(), nil, nil
	case errors.Is(err, checks.ErrTooLarge), errors.Is(err, checks.ErrMalformed), errors.Is(err, checks.ErrForbidden):
		return cfg, fmt.Errorf("%s on %s could not be read (%v)", repoconfig.Path, def, err), nil
	case err != nil:
		return cfg, nil, retryable(fmt.Errorf("reading %s: %w", repoconfig.Path, err))
	}
	cfg, err = repoconfig.Parse(data, r.Presets)
	if err != nil {
		return cfg, fmt.Errorf("%s on %s is invalid (%v)", repoconfig.Path, def, err), nil
	}
	return cfg, nil, nil
}
