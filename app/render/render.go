// Package render turns a finished verification into the comment body Verdict
// publishes: the English verdict in the fixed layout reviewers and the
// repository's tooling read (header, failing and warning rows, the passing
// ones collapsed, footer), followed by the same verdict in Chinese inside
// <details><summary>中文</summary>. It also renders the JSON form of a
// verdict, the recipe reminder and the short command replies. Rendering never
// decides anything: the overall verdict comes from the caller and the guard
// (Validate) refuses a body whose rows disagree with it.
//
// Body layout. The English part is, byte for byte:
//
//	marker(KEY) + "\n" + verdict + "\n\nAssessed commit: `H`.\n"
//
// and the Chinese block follows it after one blank line:
//
//	"\n<details>\n<summary>中文</summary>\n\n" + 中文 verdict + "\n\n评估的提交：`H`。\n\n</details>\n"
//
// Keeping the footer inside the English part (rather than at the very end)
// means the English part can be cut out with EnglishPart, validated and
// compared by any tool that reads English verdicts only, and the Chinese
// block never sits between a verdict and the commit it was made for.
package render

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Verdict is everything the renderer needs for one sign-off's verdict.
type Verdict struct {
	// Key is the sign-off key (issuecomment-<id>, pullrequestreview-<id> or
	// discussion_r<id>) that the hidden marker carries.
	Key string
	// Author is the sign-off author's login (with or without "@"); it is
	// mentioned on a REJECTED verdict.
	Author string
	// HeadSHA is the pinned commit that was assessed.
	HeadSHA string
	// Preset is the checklist the rows come from: the guard holds the
	// text to its rows, and rows without a name take the preset's.
	Preset  *checks.Preset
	Rows    []checks.Outcome
	Overall checks.Overall
	// Escalation is the paragraph the verdict leads with when a row that
	// escalates WARNs (the preset's Escalation, Markdown); without one the
	// verdict cannot be rendered, as its WARN would ask no one.
	Escalation checks.Text
	// AdvancedTo is the newer head that was not assessed, "" if none.
	AdvancedTo string
	// AffectedConfigs are the config keys the preset judged affected: nil
	// when unknown (the model was not built), empty when none. Only the JSON
	// verdict carries them.
	AffectedConfigs []string
}

// maxReasonRunes bounds one reason so that sixteen rows in two languages stay
// well inside GitHub's 65536-character comment limit.
const maxReasonRunes = 1000

var (
	shaRE        = regexp.MustCompile(`^[0-9a-f]{40}$`)
	loginRE      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$`)
	statusDashRE = regexp.MustCompile(`: (PASS|FAIL|N/A|WARN) — `)
)

// statusEmoji is the fixed emoji of each row status.
var statusEmoji = map[checks.Status]string{
	checks.Pass: "✅",
	checks.Fail: "❌",
	checks.NA:   "➖",
	checks.Warn: "⚠️",
}

// Marker is the hidden first line that keys a verdict comment to its sign-off.
// It does not check key; callers validate it first.
func Marker(key string) string {
	return "<!-- codeowner-signoff-verify signoff=" + key + " -->"
}

// Body is a verdict comment ready to publish. Only Render and Invalid make
// one, after the guard has accepted its text, so Overall is always the
// verdict the text announces: a publisher takes the commit status from it
// and never reads the verdict back out of the text.
type Body struct {
	key, headSHA string
	overall      checks.Overall
	markdown     string
}

// Key is the sign-off key the body's marker carries.
func (b Body) Key() string { return b.key }

// HeadSHA is the commit the body says it assessed.
func (b Body) HeadSHA() string { return b.headSHA }

// Overall is the verdict the body announces.
func (b Body) Overall() checks.Overall { return b.overall }

// Markdown is the whole comment: English part, then the Chinese block.
func (b Body) Markdown() string { return b.markdown }

// English is the marker, the English verdict and its footer.
func (b Body) English() string { return EnglishPart(b.markdown) }

// Chinese is what follows the English part: the collapsed Chinese block.
func (b Body) Chinese() string { return strings.TrimPrefix(b.markdown, b.English()) }

// IsZero reports a Body that Render or Invalid did not make.
func (b Body) IsZero() bool { return b == Body{} }

// Render renders the full comment body for v. The English verdict is run
// through Validate first; if the guard rejects it, Render returns the fixed
// "did not produce a valid verdict" body (REJECTED) together with an error,
// so a caller that publishes anyway publishes a REJECTED verdict, never a
// malformed one. Malformed inputs (key, SHAs, handles) are an error with
// the zero Body.
func Render(v Verdict) (Body, error) {
	if err := v.checkInputs(); err != nil {
		return Body{}, err
	}
	en, err := v.verdictText(EN)
	if err != nil {
		return Body{}, err
	}
	if verr := Validate(en, v.Preset); verr != nil {
		body, err := Invalid(v.Key, v.HeadSHA)
		if err != nil {
			return Body{}, err
		}
		return body, fmt.Errorf("rendered verdict failed validation: %w", verr)
	}
	zh, err := v.verdictText(ZH)
	if err != nil {
		return Body{}, err
	}
	md, err := compose(v.Key, v.HeadSHA, en, zh)
	if err != nil {
		return Body{}, err
	}
	return Body{key: v.Key, headSHA: v.HeadSHA, overall: v.Overall, markdown: md}, nil
}

// Markdown is Render's text: the full comment body for v, or the invalid
// verdict's with an error when the guard refused it.
func Markdown(v Verdict) (string, error) {
	b, err := Render(v)
	return b.markdown, err
}

// Invalid is the body published when no valid verdict exists: the REJECTED
// header, the fixed sentence that no valid verdict was produced, the footer.
func Invalid(key, headSHA string) (Body, error) {
	if err := checkKeySHA(key, headSHA); err != nil {
		return Body{}, err
	}
	var parts [2]string
	for i, l := range langs {
		h, err := text(l, "header."+string(checks.VerdictRejected), nil)
		if err != nil {
			return Body{}, err
		}
		s, err := text(l, "invalid", nil)
		if err != nil {
			return Body{}, err
		}
		parts[i] = h + "\n\n" + s
	}
	md, err := compose(key, headSHA, parts[0], parts[1])
	if err != nil {
		return Body{}, err
	}
	return Body{key: key, headSHA: headSHA, overall: checks.VerdictRejected, markdown: md}, nil
}

// InvalidMarkdown is Invalid's text.
func InvalidMarkdown(key, headSHA string) (string, error) {
	b, err := Invalid(key, headSHA)
	return b.markdown, err
}

// EnglishPart returns the English part (marker, English verdict, footer)
// of a body produced by this package: everything before the Chinese block.
func EnglishPart(body string) string {
	summary, err := text(ZH, "lang.summary", nil)
	if err != nil {
		return body
	}
	// The first occurrence is the right one: reasons are single lines with
	// HTML neutralized, so the English part cannot contain this sequence.
	if i := strings.Index(body, "\n\n<details>\n<summary>"+summary+"</summary>\n"); i >= 0 {
		return body[:i+1]
	}
	return body
}

// compose joins marker, English verdict, footer and the Chinese block.
func compose(key, sha, en, zh string) (string, error) {
	footEN, err := text(EN, "footer", sha)
	if err != nil {
		return "", err
	}
	footZH, err := text(ZH, "footer", sha)
	if err != nil {
		return "", err
	}
	block, err := chineseBlock(zh + "\n\n" + footZH)
	if err != nil {
		return "", err
	}
	return Marker(key) + "\n" + en + "\n\n" + footEN + "\n" + "\n" + block, nil
}

func checkKeySHA(key, sha string) error {
	if !signoff.ValidKey(key) && key != LocalKey {
		return fmt.Errorf("invalid sign-off key %q", key)
	}
	if !shaRE.MatchString(sha) {
		return fmt.Errorf("invalid assessed commit %q: want 40 lowercase hex digits", sha)
	}
	return nil
}

func (v Verdict) checkInputs() error {
	if v.Preset == nil {
		return errors.New("the verdict names no preset")
	}
	if err := checkKeySHA(v.Key, v.HeadSHA); err != nil {
		return err
	}
	if v.AdvancedTo != "" && !shaRE.MatchString(v.AdvancedTo) {
		return fmt.Errorf("invalid advanced head %q: want 40 lowercase hex digits", v.AdvancedTo)
	}
	if v.Overall == checks.VerdictRejected && !v.localUnsigned() && !loginRE.MatchString(strings.TrimPrefix(v.Author, "@")) {
		return fmt.Errorf("invalid sign-off author %q for the REJECTED mention", v.Author)
	}
	if v.escalates() && strings.TrimSpace(v.Escalation.EN) == "" {
		return errors.New("a row that escalates WARNs and the verdict has no escalation paragraph")
	}
	return nil
}

// escalates reports a WARN of a row that escalates.
func (v Verdict) escalates() bool {
	return slices.ContainsFunc(v.Rows, func(o checks.Outcome) bool {
		c, ok := v.Preset.Row(o.Number)
		return ok && c.Escalates && o.Result.Status == checks.Warn
	})
}

// row is the data of one rendered row.
type row struct {
	Emoji  string
	Number int
	Name   string
	Status string
	Reason string
}

// verdictText renders the verdict of language l without marker and footer:
// header, [escalation], [@author line], expanded rows, collapsed group,
// [head-advanced sentence], joined by blank lines.
func (v Verdict) verdictText(l Lang) (string, error) {
	rows := slices.Clone(v.Rows)
	slices.SortStableFunc(rows, func(a, b checks.Outcome) int { return a.Number - b.Number })

	var sections []string
	add := func(name string, data any) error {
		s, err := text(l, name, data)
		if err == nil {
			sections = append(sections, s)
		}
		return err
	}
	switch v.Overall {
	case checks.VerdictPass, checks.VerdictWarn, checks.VerdictRejected:
	default:
		return "", fmt.Errorf("unknown overall verdict %q", v.Overall)
	}
	if err := add("header."+string(v.Overall), nil); err != nil {
		return "", err
	}

	var fails, warns, others, collapsed []row
	for _, o := range rows {
		r := makeRow(l, v.Preset, o)
		switch o.Result.Status {
		case checks.Fail:
			fails = append(fails, r)
		case checks.Warn:
			warns = append(warns, r)
		case checks.Pass, checks.NA:
			collapsed = append(collapsed, r)
		default:
			// An unknown status stays visible; the guard then rejects it.
			others = append(others, r)
		}
	}

	if v.escalates() {
		p := v.Escalation.EN
		if l == ZH && v.Escalation.ZH != "" {
			p = v.Escalation.ZH
		}
		sections = append(sections, strings.TrimSpace(p))
	}
	if v.Overall == checks.VerdictRejected && !v.localUnsigned() {
		data := map[string]any{"Author": strings.TrimPrefix(v.Author, "@"), "Blocking": fails}
		if err := add("author", data); err != nil {
			return "", err
		}
	}

	expanded := append(append(fails, warns...), others...)
	if len(expanded) > 0 {
		s, err := joinRows(l, expanded)
		if err != nil {
			return "", err
		}
		sections = append(sections, s)
	}
	if len(collapsed) > 0 {
		summary, err := text(l, "details.summary", nil)
		if err != nil {
			return "", err
		}
		s, err := joinRows(l, collapsed)
		if err != nil {
			return "", err
		}
		sections = append(sections, "<details>\n<summary>"+summary+"</summary>\n\n"+s+"\n\n</details>")
	}
	if v.AdvancedTo != "" {
		if err := add("advanced", v.AdvancedTo); err != nil {
			return "", err
		}
	}
	return strings.Join(sections, "\n\n"), nil
}

func joinRows(l Lang, rows []row) (string, error) {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		s, err := text(l, "row", r)
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n\n"), nil
}

func makeRow(l Lang, p *checks.Preset, o checks.Outcome) row {
	name, reason := o.Name.EN, o.Result.Reason.EN
	var canonical checks.Text
	if c, ok := p.Row(o.Number); ok {
		canonical = c.Name
	}
	if name == "" {
		name = canonical.EN
	}
	if l == ZH {
		// The Chinese name is canonical when the row carries the canonical
		// English name; a custom check supplies its own.
		switch {
		case o.Name.ZH != "":
			name = o.Name.ZH
		case canonical.ZH != "" && (o.Name.EN == "" || o.Name.EN == canonical.EN):
			name = canonical.ZH
		}
		if o.Result.Reason.ZH != "" {
			reason = o.Result.Reason.ZH
		}
	}
	return row{
		Emoji:  statusEmoji[o.Result.Status],
		Number: o.Number,
		Name:   cleanInline(name),
		Status: string(o.Result.Status),
		Reason: cleanInline(reason),
	}
}
