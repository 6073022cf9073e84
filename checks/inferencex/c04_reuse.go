package inferencex

import (
	"context"
	"fmt"
	"sort"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

// ReuseCommand is row 4 (advisory): has an authorized maintainer asked for
// the sweep to be reused (RULES.md, Check 4)? Without a command the PR can
// still merge through a full sweep, so it WARNs. Whether the requested source
// run is eligible right now is reported next to the outcome without changing
// it; the acknowledger enforces eligibility.
var ReuseCommand = &checks.Check{
	Number:   4,
	Name:     checks.Text{EN: "Reuse command", ZH: "复用命令"},
	Advisory: true,
	Run:      runReuse,
}

// ReuseNoneReason is the WARN reason when no authorized command exists.
var ReuseNoneReason = checks.T(
	"No authorized reuse command has been posted on this PR; an authorized maintainer should comment /use <run_id> before merging via reuse.",
	"此 PR 上尚无获授权的复用命令；如需通过复用合并，获授权的维护者应在合并前评论 /use <run_id>。",
)

func runReuse(ctx context.Context, pr *checks.PR) checks.Result {
	comments, err := pr.Source.Comments(ctx)
	if err != nil {
		return checks.Unverified(checks.T("the PR's comments could not be read ("+err.Error()+")", "无法读取 PR 评论（"+checks.Code(err.Error())+"）"))
	}
	s := settingsOf(pr)
	cmd, c, ok := commands.NewestAuthorized(comments, s.ReuseAssociations)
	if !ok {
		return checks.WarnR(ReuseNoneReason, ignoredCommands(comments, s.ReuseAssociations)...)
	}

	en := fmt.Sprintf("@%s posted %s (%s)", c.Author, cmd, c.Association)
	zh := fmt.Sprintf("@%s 发布了 %s（%s）", c.Author, cmd, c.Association)
	if !cmd.Pinned {
		en += ", auto-select"
		zh += "，自动选择源运行"
	}
	en += "."
	zh += "。"
	ev := []checks.Evidence{{Label: "Reuse command", URL: c.URL, Value: cmd.String()}}

	d := sweep.ReuseEligibility(ctx, pr.Source, s, sweep.ReuseTarget{Number: pr.Number, HeadRef: pr.HeadRef, Labels: pr.Labels}, cmd)
	switch {
	case d.Err != nil:
		ev = append(ev, checks.Evidence{Label: "Source run eligibility", Value: "not checked: " + d.Reason.EN})
	case d.Eligible:
		ev = append(ev, checks.Evidence{Label: "Source run eligibility", URL: d.Run.HTMLURL, Value: "eligible: " + d.Reason.EN})
	default:
		// Worth saying in the row: the maintainer believes reuse is set up,
		// but the merge gate will refuse this source.
		en += " Not currently eligible: " + d.Reason.EN + "."
		zh += " 当前不符合复用条件：" + d.Reason.ZH + "。"
		ev = append(ev, checks.Evidence{Label: "Source run eligibility", URL: d.Run.HTMLURL, Value: "not eligible: " + d.Reason.EN})
	}
	return checks.PassR(checks.T(en, zh), ev...)
}

// ignoredCommands lists valid commands whose authors are not authorized, so a
// WARN row shows why a visible "/use" did not count.
func ignoredCommands(comments []checks.Comment, allowed []string) []checks.Evidence {
	sorted := append([]checks.Comment(nil), comments...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CreatedAt.Before(sorted[j].CreatedAt) })
	var ev []checks.Evidence
	for _, c := range sorted {
		if commands.AssociationAllowed(c.Association, allowed) {
			continue
		}
		if cmd, err := commands.ParseReuse(c.Body); err == commands.OK {
			ev = append(ev, checks.Evidence{
				Label: "Ignored reuse command (author not authorized)",
				URL:   c.URL,
				Value: fmt.Sprintf("@%s (%s): %s", c.Author, sweep.OrNone(c.Association), cmd),
			})
		}
	}
	return ev
}
