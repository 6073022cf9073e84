package inferencex

import (
	"context"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

// reuseRules decide the reuse commands as row 4 reads them (RULES.md,
// "Reuse commands"), so that the acknowledger's answer and the row agree:
// the settings' reuse associations, and the sweep's eligibility rules.
var reuseRules = &checks.ReuseRules{
	Associations: func(pr *checks.PR) []string { return settingsOf(pr).ReuseAssociations },
	Eligible:     reuseEligible,
}

func reuseEligible(ctx context.Context, pr *checks.PR, req checks.ReuseRequest) checks.ReuseDecision {
	t := sweep.ReuseTarget{Number: pr.Number, HeadRef: pr.HeadRef, Labels: pr.Labels}
	d := sweep.ReuseEligibility(ctx, pr.Source, settingsOf(pr), t, commands.Reuse(req))
	return checks.ReuseDecision{Eligible: d.Eligible, Run: d.Run, Reason: d.Reason, Err: d.Err}
}

// settingsOf are the settings configure handed to pr; a PR the app did not
// configure (a row run on its own) reads the defaults.
func settingsOf(pr *checks.PR) *repo.Settings {
	if s := repo.SettingsParam.Get(pr); s != nil {
		return s
	}
	d := repo.Defaults()
	return &d
}
