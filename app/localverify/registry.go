package localverify

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/checks"
)

// evidenceOnly are the GitHub-only facts a row may go without and still
// pass, as the owner row does when GitHub refuses them: GitHub's CODEOWNERS
// diagnostics are shown as evidence only, and an unreadable team
// membership is accepted when the signer is listed directly on another
// changed path.
var evidenceOnly = map[string]bool{"CodeownersErrors": true, "TeamMember": true}

var noSignOff = checks.T(
	"no sign-off was given (pass --signoff-file)",
	"未提供签核（请使用 --signoff-file）")

// registry is the App's check set, each row wrapped for a local check:
//
//   - its context names the row, so the tracker knows who asked for what;
//   - a row that asked for evidence only GitHub has and still passed is
//     turned into "could not be verified: … not available in a local
//     check" (a row is never PASS on evidence it could not see), and a
//     non-passing row that does not say why gets the refusal appended;
//   - without a sign-off, the rows that judge one cannot pass, and every
//     row that reads one and does not pass says that none was given.
func registry(p *checks.Preset, t *tracker, signed bool) (*checks.Registry, error) {
	cs := make([]*checks.Check, len(p.Rows))
	for i, c := range p.Rows {
		// A copy with its own Run; requirements on a row resolve by number,
		// so the wrapped rows stand in for the preset's.
		w := *c
		cs[i] = &w
		run, n, use := c.Run, c.Number, c.SignOff
		w.Run = func(ctx context.Context, pr *checks.PR) checks.Result {
			r := run(context.WithValue(ctx, rowKey{}, n), pr)
			r = local(r, n, t)
			if !signed && use != checks.SignOffUnread {
				r = unsigned(r, use == checks.SignOffJudged)
			}
			return r
		}
	}
	reg, err := checks.NewRegistry(cs...)
	if err != nil {
		return nil, fmt.Errorf("the %s preset: %w", p.Name, err)
	}
	return reg, nil
}

// blocking are the refusals that keep a row from deciding: all of them
// except the evidence-only ones.
func blocking(methods []string, errs []error) []error {
	var out []error
	for i, m := range methods {
		if evidenceOnly[m] {
			continue
		}
		out = append(out, errs[i])
	}
	return out
}

func local(r checks.Result, n int, t *tracker) checks.Result {
	methods, errs := t.refused(n)
	blocking := blocking(methods, errs)
	if len(blocking) == 0 || r.Status == checks.NA {
		return r
	}
	what := blocking[0].Error()
	if r.Status == checks.Pass {
		u := checks.Unverified(checks.T(what, what))
		u.Evidence = append(r.Evidence, checks.Evidence{Label: "local check", Value: "the check passed without this evidence: " + r.Reason.EN})
		t.downgrade(n)
		return u
	}
	if !strings.Contains(r.Reason.EN, gitsource.Unavailable) {
		r.Reason.EN += " — " + what
		r.Reason.ZH += " — " + what
	}
	return r
}

// unsigned makes a row that reads the sign-off say that there was none; a
// row that judges the sign-off cannot pass without one.
func unsigned(r checks.Result, judges bool) checks.Result {
	switch {
	case r.Status == checks.NA:
		return r
	case r.Status == checks.Pass && judges:
		return checks.Unverified(noSignOff)
	case r.Status == checks.Pass:
		return r
	}
	r.Reason.EN += " — " + noSignOff.EN
	r.Reason.ZH += " — " + noSignOff.ZH
	return r
}
