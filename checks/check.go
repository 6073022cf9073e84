// Package checks is the contract between Verdict's verification logic and
// the application around it: the Result of one row, the Check that produces
// it, the typed facts checks share, the Registry and the runner, and the
// Source interface every piece of evidence comes through. It imports only
// the standard library; presets (checks/inferencex) build on it, and nothing
// here talks to GitHub or does I/O of its own.
package checks

import (
	"context"
	"fmt"
	"strings"
)

// Status is the outcome of one check row.
type Status string

const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Warn Status = "WARN"
	NA   Status = "N/A"
)

// Text is a short user-facing line in both languages. Technical tokens
// (flags, paths, SHAs, handles) appear untranslated in both.
type Text struct {
	EN string `json:"en"`
	ZH string `json:"zh"`
}

// T builds a Text. When zh is empty the English text is used for both, which
// is only acceptable for strings made of technical tokens.
func T(en, zh string) Text {
	if zh == "" {
		zh = en
	}
	return Text{EN: en, ZH: zh}
}

// Evidence is one fact behind a result: a link or a value a reviewer can
// follow to see why the row says what it says.
type Evidence struct {
	Label string `json:"label"`
	URL   string `json:"url,omitempty"`
	Value string `json:"value,omitempty"`
}

// Result is what a check returns. Data a later check needs travels as a
// typed Fact, never inside a Result.
type Result struct {
	Status   Status     `json:"status"`
	Reason   Text       `json:"reason"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// NeedsReview marks a result that a deterministic bot cannot decide. It is
	// rendered fail-closed: FAIL with a "Needs human review:" prefix for a
	// blocking check, WARN for an advisory one (see Finalize).
	NeedsReview bool `json:"needs_review,omitempty"`
}

// PassR, FailR, WarnR, NAR and ReviewR are small constructors that keep
// check code readable.
func PassR(reason Text, ev ...Evidence) Result {
	return Result{Status: Pass, Reason: reason, Evidence: ev}
}
func FailR(reason Text, ev ...Evidence) Result {
	return Result{Status: Fail, Reason: reason, Evidence: ev}
}
func WarnR(reason Text, ev ...Evidence) Result {
	return Result{Status: Warn, Reason: reason, Evidence: ev}
}
func NAR(reason Text, ev ...Evidence) Result { return Result{Status: NA, Reason: reason, Evidence: ev} }

// ReviewR is a result a human must decide. Finalize renders it.
func ReviewR(reason Text, ev ...Evidence) Result {
	return Result{Status: Fail, Reason: reason, Evidence: ev, NeedsReview: true}
}

// Unverified is the fail-closed result for missing evidence: a blocking check
// FAILs "could not be verified: <what>", an advisory check WARNs.
func Unverified(what Text) Result {
	return Result{
		Status: Fail,
		Reason: Text{EN: "could not be verified: " + what.EN, ZH: "无法验证：" + what.ZH},
	}
}

// WithEvidence returns r with ev appended to its evidence.
func (r Result) WithEvidence(ev ...Evidence) Result {
	r.Evidence = append(r.Evidence, ev...)
	return r
}

// Check is one row of the verdict, declared once as a value:
//
//	var Evals = &checks.Check{
//		Number:   2,
//		Name:     checks.Text{EN: "Evals", ZH: "评测"},
//		Requires: []checks.Requirement{PassingSweep, sweep.SearchFact},
//		Run:      runEvals,
//	}
type Check struct {
	Number   int
	Name     Text
	Advisory bool
	// SignOff is how the row uses the sign-off; the app holds a row that
	// judges one to FAIL when none was given (a local check).
	SignOff SignOffUse
	// Escalates marks a row whose WARN asks the repository's escalation
	// handles to look (the verdict mentions them).
	Escalates bool
	// Requires lists everything Run reads besides the PR and its Source:
	// other rows (read with PR.ResultOf) and facts (read with Fact.Of). The
	// runner starts the check once the rows it needs, directly or through a
	// fact, have finished; a read of anything not listed fails the row.
	Requires []Requirement
	Run      func(ctx context.Context, pr *PR) Result
}

// Finalize applies the outcome policy to a raw result: advisory checks never
// FAIL, NeedsReview renders fail-closed, and an empty reason is replaced so
// that no row is ever blank.
func (c *Check) Finalize(r Result) Result {
	if strings.TrimSpace(r.Reason.EN) == "" {
		r = Unverified(T("check returned no reason", "检查未给出理由"))
	}
	if r.Reason.ZH == "" {
		r.Reason.ZH = r.Reason.EN
	}
	if r.NeedsReview {
		if !strings.HasPrefix(r.Reason.EN, "Needs human review:") {
			r.Reason.EN = "Needs human review: " + r.Reason.EN
			r.Reason.ZH = "需要人工审核：" + r.Reason.ZH
		}
		if c.Advisory {
			r.Status = Warn
		} else {
			r.Status = Fail
		}
	}
	switch {
	case c.Advisory && r.Status == Fail:
		r.Status = Warn
	case !c.Advisory && r.Status == Warn:
		r.Status = Fail
	}
	// Reasons are one line: a newline would break the row format.
	r.Reason.EN = oneLine(r.Reason.EN)
	r.Reason.ZH = oneLine(r.Reason.ZH)
	return r
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Outcome is one finished row.
type Outcome struct {
	Number   int    `json:"number"`
	Name     Text   `json:"name"`
	Advisory bool   `json:"advisory"`
	Result   Result `json:"result"`
}

// Overall is the verdict over all rows.
type Overall string

const (
	VerdictPass     Overall = "PASS"
	VerdictWarn     Overall = "WARN"
	VerdictRejected Overall = "REJECTED"
)

// Decide returns REJECTED if any row FAILs, else WARN if any row WARNs,
// else PASS.
func Decide(rows []Outcome) Overall {
	v := VerdictPass
	for _, r := range rows {
		switch r.Result.Status {
		case Fail:
			return VerdictRejected
		case Warn:
			v = VerdictWarn
		}
	}
	return v
}

// AndMore is t, the first of several findings, counting the others.
func (t Text) AndMore(others int) Text {
	if others > 0 {
		t.EN += fmt.Sprintf(" (+%d more)", others)
		t.ZH += fmt.Sprintf("（另有 %d 项）", others)
	}
	return t
}
