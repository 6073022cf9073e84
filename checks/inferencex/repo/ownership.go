package repo

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/codeowners"
)

// Who owns the paths a PR changes, under the CODEOWNERS file at the base
// tip (CodeOwnersFact), and whether the sign-off author is one of them.

// maxOwnerEvidence caps per-path evidence rows on very large PRs.
const maxOwnerEvidence = 20

// Ownership is the verdict on one changed path.
type Ownership struct {
	Path    string
	Rule    codeowners.Rule
	Matched bool
	Kind    string // "specific", "default" or "unowned"
	// For specific paths: how the signer is an owner ("", "direct",
	// "team", "unverifiable").
	Via      string
	Team     string   // the team that made the signer an owner
	Unknowns []string // teams of owners(P) whose membership could not be read
}

// OwnerPaths returns every path the PR touches, previous names of renames
// included (a rename out of an owned path needs that owner too), deduplicated
// in file-list order.
func OwnerPaths(files []checks.ChangedFile) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// DistinctPaths counts the distinct paths of the changed-file list (the
// PR's changed-file count, when the list is complete).
func DistinctPaths(files []checks.ChangedFile) int {
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Path] = true
	}
	return len(seen)
}

// AssessOwnership decides, for each changed path, which rule owns it and
// whether and how signer is one of its owners (RULES.md, Check 0).
func AssessOwnership(co codeowners.File, paths []string, signer string, teams *TeamOracle) []Ownership {
	out := make([]Ownership, 0, len(paths))
	direct := false
	for _, p := range paths {
		po := Ownership{Path: p}
		po.Rule, po.Matched = co.Match(p)
		switch {
		case !po.Matched || len(po.Rule.Owners) == 0:
			po.Kind = "unowned"
		case po.Rule.CatchAll:
			po.Kind = "default"
		default:
			po.Kind = "specific"
			po.Via, po.Team, po.Unknowns = ownsSpecific(po.Rule.Owners, signer, teams)
			direct = direct || po.Via == "direct"
		}
		out = append(out, po)
	}
	// Unreadable team membership must not hard-fail a signer who is plainly
	// a CODEOWNER of this change: directly listed on another changed
	// specific path (RULES.md, Check 0).
	if direct {
		for i := range out {
			if out[i].Kind == "specific" && out[i].Via == "" && len(out[i].Unknowns) > 0 {
				out[i].Via = "unverifiable"
			}
		}
	}
	return out
}

// ownsSpecific decides whether signer owns a specific path with owners.
func ownsSpecific(owners []string, signer string, teams *TeamOracle) (via, team string, unknowns []string) {
	for _, o := range owners {
		if strings.EqualFold(o, "@"+signer) {
			return "direct", "", nil
		}
	}
	for _, o := range owners {
		if !codeowners.IsTeam(o) {
			continue
		}
		switch teams.Member(o) {
		case checks.Member:
			return "team", o, nil
		case checks.MembershipUnknown:
			unknowns = append(unknowns, o)
		}
	}
	return "", "", unknowns
}

// RecognizedOwner reports whether signer is a recognized CODEOWNER: listed
// anywhere, or a confirmed member of any listed team. It returns how, and
// the teams whose membership could not be read.
func RecognizedOwner(co codeowners.File, signer string, teams *TeamOracle) (how string, unknowns []string) {
	if co.Listed(signer) {
		return "listed", nil
	}
	for _, t := range co.Teams() {
		switch teams.Member(t) {
		case checks.Member:
			return t, nil
		case checks.MembershipUnknown:
			unknowns = append(unknowns, t)
		}
	}
	return "", unknowns
}

// TeamOracle asks Source about team membership at most once per team, in
// the order the rule needs the answers (so the evidence is deterministic).
type TeamOracle struct {
	ctx   context.Context
	src   checks.Source
	login string
	seen  map[string]checks.Membership
	order []string
}

// NewTeamOracle asks src about login's team memberships.
func NewTeamOracle(ctx context.Context, src checks.Source, login string) *TeamOracle {
	return &TeamOracle{ctx: ctx, src: src, login: login, seen: map[string]checks.Membership{}}
}

// Member is login's membership of team, asked once.
func (o *TeamOracle) Member(team string) checks.Membership {
	k := strings.ToLower(team)
	if m, ok := o.seen[k]; ok {
		return m
	}
	m := checks.MembershipUnknown
	if org, slug, ok := codeowners.SplitTeam(team); ok {
		if got, err := o.src.TeamMember(o.ctx, org, slug, o.login); err == nil {
			m = got
		}
	}
	o.seen[k] = m
	o.order = append(o.order, team)
	return m
}

// Evidence lists the memberships asked, in the order they were asked.
func (o *TeamOracle) Evidence() []checks.Evidence {
	var ev []checks.Evidence
	for _, t := range o.order {
		v := map[checks.Membership]string{checks.Member: "member", checks.NotMember: "not a member", checks.MembershipUnknown: "unverifiable"}[o.seen[strings.ToLower(t)]]
		ev = append(ev, checks.Evidence{Label: "Team " + t, Value: "@" + o.login + ": " + v})
	}
	return ev
}

// CodeownersErrorsEvidence reports GitHub's own diagnostics at B. They do
// not decide the row (the scope gate refuses such files before Check 0
// runs), but a reviewer must see them.
func CodeownersErrorsEvidence(ctx context.Context, pr *checks.PR) ([]checks.Evidence, []int) {
	errs, err := pr.Source.CodeownersErrors(ctx, pr.BaseTip)
	if err != nil {
		return []checks.Evidence{{Label: "GitHub CODEOWNERS errors", Value: "could not be read: " + err.Error()}}, nil
	}
	if len(errs) == 0 {
		return []checks.Evidence{{Label: "GitHub CODEOWNERS errors", Value: "none"}}, nil
	}
	var ev []checks.Evidence
	var lines []int
	for i, e := range errs {
		lines = append(lines, e.Line)
		if i < maxOwnerEvidence {
			v := e.Message
			if e.Kind != "" {
				v = e.Kind + ": " + v
			}
			ev = append(ev, checks.Evidence{Label: fmt.Sprintf("GitHub CODEOWNERS error (line %d)", e.Line), Value: v})
		}
	}
	return ev, lines
}

// OwnershipEvidence is the per-path evidence of Check 0: the specific
// paths with their rule and verdict (capped), the others counted.
func OwnershipEvidence(owned []Ownership) []checks.Evidence {
	var ev []checks.Evidence
	def, unowned := 0, 0
	shown := 0
	for _, po := range owned {
		switch po.Kind {
		case "default":
			def++
			continue
		case "unowned":
			unowned++
			continue
		}
		if shown == maxOwnerEvidence {
			continue
		}
		shown++
		verdict := map[string]string{
			"direct":       "signer listed",
			"team":         "signer is a member of " + po.Team,
			"unverifiable": "accepted: team membership unverifiable",
			"":             "signer is not an owner",
		}[po.Via]
		ev = append(ev, checks.Evidence{Label: po.Path, Value: fmt.Sprintf("line %d %s: %s — %s",
			po.Rule.Line, po.Rule.Pattern, strings.Join(po.Rule.Owners, " "), verdict)})
	}
	if def > 0 {
		ev = append(ev, checks.Evidence{Label: "Default paths", Value: fmt.Sprintf("%d (catch-all rule)", def)})
	}
	if unowned > 0 {
		ev = append(ev, checks.Evidence{Label: "Unowned paths", Value: fmt.Sprint(unowned)})
	}
	return ev
}
