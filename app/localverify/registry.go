package localverify

import (
	"context"
	"strings"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// judgesSignOff are the InferenceX rows that judge the sign-off itself:
// its author (0), its checklist (5) and the draft precision it records
// (13). readsSignOff are the rows that take links and exceptions from its
// additional detail section: the upstream recipe (3), an image exception
// (6), a waiver (10).
var (
	judgesSignOff = map[int]bool{0: true, 5: true, 13: true}
	readsSignOff  = map[int]bool{3: true, 6: true, 10: true}
)

// evidenceOnly are the GitHub-only facts Check 0 may go without and still
// pass, as it does when GitHub refuses them: GitHub's CODEOWNERS
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
func registry(t *tracker, signed bool) *checks.Registry {
	preset := inferencex.Registry().Checks()
	cs := make([]*checks.Check, len(preset))
	for i, c := range preset {
		// A copy with its own Run; requirements on a row resolve by number,
		// so the wrapped rows stand in for the preset's.
		w := *c
		cs[i] = &w
		run, n := c.Run, c.Number
		w.Run = func(ctx context.Context, pr *checks.PR) checks.Result {
			r := run(context.WithValue(ctx, rowKey{}, n), pr)
			r = local(r, n, t)
			if !signed && (judgesSignOff[n] || readsSignOff[n]) {
				r = unsigned(r, judgesSignOff[n])
			}
			return r
		}
	}
	reg, err := checks.NewRegistry(cs...)
	if err != nil {
		panic(err) // the preset's own numbers: they cannot collide
	}
	return reg
}

// blocking are the refusals that keep row n from deciding: all of them
// except the evidence-only ones of Check 0.
func blocking(n int, methods []string, errs []error) []error {
	var out []error
	for i, m := range methods {
		if n == 0 && evidenceOnly[m] {
			continue
		}
		out = append(out, errs[i])
	}
	return out
}

func local(r checks.Result, n int, t *tracker) checks.Result {
	methods, errs := t.refused(n)
	blocking := blocking(n, methods, errs)
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
