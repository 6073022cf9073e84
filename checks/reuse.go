package checks

import (
	"context"
	"fmt"
	"sort"
)

// ReuseCheck is row 4 of the InferenceX preset: has an authorized maintainer
// asked for the sweep to be reused (§3.2, §3.3)? It is advisory: without a
// command the PR can still merge through a full sweep, so it WARNs. Whether
// the requested source run is eligible right now (§3.4) is reported next to
// the outcome without changing it; the acknowledger enforces eligibility.
func ReuseCheck() Check { return row(4, runReuse) }

// ReuseNoneReason is the WARN reason when no authorized command exists.
var ReuseNoneReason = T(
	"No authorized reuse command has been posted on this PR; an authorized maintainer should comment /use <run_id> before merging via reuse.",
	"此 PR 上尚无获授权的复用命令；如需通过复用合并，获授权的维护者应在合并前评论 /use <run_id>。",
)

func runReuse(ctx context.Context, pr *PR) Result {
	comments, err := pr.Source.Comments(ctx)
	if err != nil {
		return Unverified(T("the PR's comments could not be read ("+err.Error()+")", "无法读取 PR 评论（"+err.Error()+"）"))
	}
	s := pr.Settings
	if s == nil {
		d := Defaults()
		s = &d
	}
	cmd, c, ok := NewestAuthorized(comments, s.ReuseAssociations)
	if !ok {
		return WarnR(ReuseNoneReason, ignoredCommands(comments, s.ReuseAssociations)...)
	}

	en := fmt.Sprintf("@%s posted %s (%s)", c.Author, cmd, c.Association)
	zh := fmt.Sprintf("@%s 发布了 %s（%s）", c.Author, cmd, c.Association)
	if !cmd.Pinned {
		en += ", auto-select"
		zh += "，自动选择源运行"
	}
	en += "."
	zh += "。"
	ev := []Evidence{{Label: "Reuse command", URL: c.URL, Value: cmd.String()}}

	d := ReuseEligibility(ctx, pr.Source, s, ReuseTarget{Number: pr.Number, HeadRef: pr.HeadRef, Labels: pr.Labels}, cmd)
	switch {
	case d.Err != nil:
		ev = append(ev, Evidence{Label: "Source run eligibility", Value: "not checked: " + d.Reason.EN})
	case d.Eligible:
		ev = append(ev, Evidence{Label: "Source run eligibility", URL: d.Run.HTMLURL, Value: "eligible: " + d.Reason.EN})
	default:
		// Worth saying in the row: the maintainer believes reuse is set up,
		// but the merge gate will refuse this source.
		en += " Not currently eligible: " + d.Reason.EN + "."
		zh += " 当前不符合复用条件：" + d.Reason.ZH + "。"
		ev = append(ev, Evidence{Label: "Source run eligibility", URL: d.Run.HTMLURL, Value: "not eligible: " + d.Reason.EN})
	}
	return PassR(T(en, zh), ev...)
}

// ignoredCommands lists valid commands whose authors are not authorized, so a
// WARN row shows why a visible "/use" did not count.
func ignoredCommands(comments []Comment, allowed []string) []Evidence {
	sorted := append([]Comment(nil), comments...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CreatedAt.Before(sorted[j].CreatedAt) })
	var ev []Evidence
	for _, c := range sorted {
		if AssociationAllowed(c.Association, allowed) {
			continue
		}
		if cmd, err := ParseReuseCommand(c.Body); err == CommandOK {
			ev = append(ev, Evidence{
				Label: "Ignored reuse command (author not authorized)",
				URL:   c.URL,
				Value: fmt.Sprintf("@%s (%s): %s", c.Author, orNone(c.Association), cmd),
			})
		}
	}
	return ev
}
