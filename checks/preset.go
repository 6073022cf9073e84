package checks

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// SignOffUse is how a row uses the sign-off.
type SignOffUse int

const (
	// SignOffUnread: the row judges the change, not the sign-off.
	SignOffUnread SignOffUse = iota
	// SignOffRead: the row takes links or exceptions from the sign-off's
	// text (an upstream link, a waiver) and judges the change with them.
	SignOffRead
	// SignOffJudged: the row judges the sign-off itself (who signed, what
	// it ticked, what it records); it cannot pass without one.
	SignOffJudged
)

// Preset is one checklist, and the one value through which the app reaches
// it: its rows, each declaring what the app must know of it (number, name,
// advisory, how it uses the sign-off, whether its WARN escalates), and what
// the preset reports beside its rows. The app never names a row by number.
type Preset struct {
	// Name is how .github/verdict.yml's preset key names it.
	Name string
	// Title names the checklist in both languages.
	Title Text
	// Rows are the rows in order.
	Rows []*Check
	// Affected, when set, names the units of the change the rows judged
	// affected (sorted), for the verdict's report once the rows have run;
	// ok is false when no row worked them out.
	Affected func(pr *PR) (keys []string, ok bool)
	// Detect reports whether the repository at ref (its default branch,
	// whose configuration file is config, nil when there is none) is laid
	// out for this preset: a repository whose configuration names no
	// preset gets the first one that detects it. Nil never detects; the
	// first preset without Detect is the fallback.
	Detect func(ctx context.Context, src Source, ref string, config []byte) (bool, error)
	// Configure reads the preset's own settings from the configuration
	// file (the whole file, so that lines are right; nil when there is
	// none) and hands them to the rows through pr. It returns every
	// problem found; with any, the repository's configuration is invalid
	// and nothing is verified. Nil: the preset takes no settings of its own.
	Configure func(pr *PR, file []byte) []ConfigProblem
	// Settings, when set, are the top-level keys of the configuration file
	// the preset takes beside the app's (Configure reads them): the app
	// validates them and publishes them in its schema.
	Settings *Settings
	// Escalation, when set, is the paragraph a verdict leads with when a
	// row that escalates (Check.Escalates) WARNs: what is asked, and of
	// whom, from the settings Configure read onto pr. Markdown.
	Escalation func(pr *PR) Text
	// Owners reads the ownership rules: the CODEOWNERS file at the base
	// tip, which decides whether a pull request needs a sign-off at all
	// (the app's gate), and the core team whose files need none. The
	// preset reads and parses the file once for the gate and its own owner
	// row; the path is set even with an error, so that the gate can name
	// it. Required.
	Owners func(ctx context.Context, pr *PR) (Owners, error)
	// Marks are the files Detect reads on the default branch: the app
	// reads them ahead, beside the configuration.
	Marks []string
	// ReadAhead, when set, starts the reads the rows will make once the
	// pull request is pinned and the settings read, so that the rows wait
	// less. It returns at once and decides nothing.
	ReadAhead func(ctx context.Context, pr *PR)
	// Commands are the slash commands the preset's rows read (without the
	// slash, e.g. "use"): the app acknowledges a command only in a
	// repository whose preset takes it.
	Commands []string
	// Reuse, when set, decides the reuse commands ("use" in Commands): who
	// may give one and whether the run a request names may be reused. The
	// app answers the command (reaction, reply); the preset decides. Nil
	// takes no reuse commands: the app leaves them unanswered.
	Reuse *ReuseRules
	// Remind, when set, decides whether a newly opened pull request gets
	// the reminder of what its sign-off will need, and what it links to
	// and says. Nil sends none.
	Remind func(ctx context.Context, pr *PR) (Reminder, bool, error)
	// Sample writes the sign-off a code owner of the change would post,
	// opening with phrase (the repository's sign-off phrase, which the app
	// reads for every preset): a replay of merged history has no real
	// sign-off at hand. A checklist or ownership file it cannot read
	// leaves the sign-off without what it would give, for the rows to
	// report; the error is for what stops it writing one at all. Nil: the
	// preset cannot write one, and the replay says so instead of verifying.
	Sample func(ctx context.Context, pr *PR, phrase string) (SampleSignOff, error)
	// Inputs reports, once the rows have run, what they could not read of
	// the change and its changelog as they read it, for the replay's
	// report (building what no row built). Nil: the preset reports none.
	Inputs func(ctx context.Context, pr *PR) (Inputs, error)
}

// Owners is where a repository's ownership rules are.
type Owners struct {
	// CodeOwners is the path of the CODEOWNERS file, read at the base tip.
	CodeOwners string
	// Empty: the file holds nothing but white space.
	Empty bool
	// Match returns the owners of a repository path by the file's last
	// matching rule; ok is false when no rule matches.
	Match func(path string) (owners []string, ok bool)
	// Problems are the file's lines that could not be used, as
	// "line N: why".
	Problems []string
	// CoreTeam owns the files that need no sign-off ("" for none).
	CoreTeam string
}

// Reminder is the reminder on a new pull request of what its sign-off will
// need: the repository paths it links (the checklist, CODEOWNERS) and its
// text, which the preset writes from what the app works out.
type Reminder struct {
	Checklist, CodeOwners string
	// Text writes the reminder in both languages (Markdown), without the
	// marker the app adds.
	Text func(ReminderFacts) Text
}

// ReminderFacts are what the app works out for a reminder; the app checks
// them (a login, https links, a phrase without backticks) before the
// preset writes them into Markdown.
type ReminderFacts struct {
	// Author is the pull request's author without "@"; "" leaves the
	// greeting unaddressed.
	Author string
	// ShowReview: a changed file has an owner other than a repository
	// admin or the core team, so the author must ask for a sign-off.
	ShowReview bool
	// CodeOwnersURL and ChecklistURL link the two files on the default
	// branch.
	CodeOwnersURL, ChecklistURL string
	// SignOffPhrase is the repository's sign-off phrase.
	SignOffPhrase string
}

// ConfigProblem is one defect of a preset's settings, at its line.
type ConfigProblem struct {
	// Line is 1-based; 0 when the defect concerns the whole section.
	Line int
	// Key is the dotted path of the key.
	Key     string
	Message Text
}

// Choose picks the preset a repository is verified with: the one named
// (the configuration's preset key), else the first of presets that detects
// the repository at ref (config is its configuration file), else the first
// without Detect. A name no preset has is an *UnknownPresetError.
func Choose(ctx context.Context, presets []*Preset, name string, src Source, ref string, config []byte) (*Preset, error) {
	if name != "" {
		names := make([]string, 0, len(presets))
		for _, p := range presets {
			if p.Name == name {
				return p, nil
			}
			names = append(names, p.Name)
		}
		return nil, &UnknownPresetError{Name: name, Served: names}
	}
	var fallback *Preset
	for _, p := range presets {
		if p.Detect == nil {
			if fallback == nil {
				fallback = p
			}
			continue
		}
		ok, err := p.Detect(ctx, src, ref, config)
		if err != nil {
			return nil, fmt.Errorf("detecting whether the repository is laid out for the %s preset: %w", p.Name, err)
		}
		if ok {
			return p, nil
		}
	}
	if fallback == nil {
		return nil, errors.New("no preset detects this repository and none is a fallback")
	}
	return fallback, nil
}

// UnknownPresetError: the configuration names a preset that is not served.
type UnknownPresetError struct {
	Name   string
	Served []string
}

func (e *UnknownPresetError) Error() string {
	return fmt.Sprintf("preset %q is not served here (served: %s)", e.Name, strings.Join(e.Served, ", "))
}

// Registry returns the registry of the preset's rows.
func (p *Preset) Registry() (*Registry, error) {
	reg, err := NewRegistry(p.Rows...)
	if err != nil {
		return nil, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	return reg, nil
}

// Row returns the row with number n.
func (p *Preset) Row(n int) (*Check, bool) {
	for _, c := range p.Rows {
		if c.Number == n {
			return c, true
		}
	}
	return nil, false
}

// AffectedOf is Affected, false when the preset reports none.
func (p *Preset) AffectedOf(pr *PR) ([]string, bool) {
	if p.Affected == nil {
		return nil, false
	}
	return p.Affected(pr)
}

// Authorship is what the app found out about who wrote the sign-off's
// current body (its edit history, its ledger) and for which commit it was
// given. It is decided beside the rows: the row that judges who signed
// reads it through PR.Authorship and may wait for it.
type Authorship struct {
	// Tampered: someone other than its author changed the body.
	Tampered bool
	// Editor is who did, "" when that could not be determined.
	Editor string
	// Unknown says why the editor could not be determined; with Tampered
	// unset it is only a note on the row (nothing shows an edit).
	Unknown string
	// GivenFor is the commit the body was first assessed on, when that is
	// not the head assessed now: a sign-off written before a push says
	// nothing of the code pushed after it.
	GivenFor string
}

// Authored is r, the result of the row that judges who signed, with the
// authorship findings applied: a sign-off its author did not write (or
// wrote for another commit) fails the row, and a history that could not be
// read is noted on it. A PR without an Authorship reader (a local check)
// leaves r as it is.
func Authored(ctx context.Context, pr *PR, r Result) Result {
	if pr.Authorship == nil {
		return r
	}
	in, err := pr.Authorship(ctx)
	if err != nil {
		return Unverified(T("who wrote the sign-off: "+err.Error(), "签核的撰写者："+verbatim(err.Error())))
	}
	author := pr.SignOff.Author
	switch {
	case in.Tampered && in.Editor != "":
		return FailR(T(
			fmt.Sprintf("the sign-off was edited by @%s, not by its author @%s; the author must re-confirm by editing or posting it again", in.Editor, author),
			fmt.Sprintf("签核由 @%s 编辑，而非其作者 @%s；作者必须再次编辑或重新发布签核以重新确认", in.Editor, author)), r.Evidence...)
	case in.Tampered:
		return FailR(T(
			fmt.Sprintf("the sign-off changed after its author @%s wrote it and the editor could not be determined (%s); the author must re-confirm by editing or posting it again", author, in.Unknown),
			fmt.Sprintf("签核在作者 @%s 撰写后被修改，且无法确定编辑者（%s）；作者必须再次编辑或重新发布签核以重新确认", author, verbatim(in.Unknown))), r.Evidence...)
	case in.GivenFor != "":
		return FailR(T(
			fmt.Sprintf("the sign-off was given for commit %s and the head has moved since; @%s must re-confirm it for the new head by editing or posting it again", commit12(in.GivenFor), author),
			fmt.Sprintf("签核针对的是提交 %s，此后头部提交已变更；@%s 必须通过再次编辑或重新发布签核，为新的头部提交重新确认", commit12(in.GivenFor), author)), r.Evidence...)
	case in.Unknown != "":
		r.Reason = T(
			r.Reason.EN+fmt.Sprintf(" (Whether the sign-off was edited, and by whom, could not be determined: %s.)", in.Unknown),
			r.Reason.ZH+fmt.Sprintf("（无法确定签核是否被编辑以及由谁编辑：%s。）", verbatim(in.Unknown)))
	}
	return r
}

// commit12 is a commit as the authorship reasons print it: 12 characters,
// as code.
func commit12(sha string) string {
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return "`" + sha + "`"
}

// verbatim shows an error's English text inside Chinese prose.
func verbatim(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

// EscalationOf is the preset's escalation paragraph for pr; empty when the
// preset has none.
func (p *Preset) EscalationOf(pr *PR) Text {
	if p.Escalation == nil {
		return Text{}
	}
	return p.Escalation(pr)
}
