// Package checks holds Verdict's verification logic: the check contract, the
// registry, the Source interface the checks read evidence through, and the
// parsers they share. Nothing here talks to GitHub or does I/O of its own; a
// check asks its Source for facts and returns a Result.
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

// Result is what a check returns.
type Result struct {
	Status   Status     `json:"status"`
	Reason   Text       `json:"reason"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// NeedsReview marks a result that a deterministic bot cannot decide. It is
	// rendered fail-closed: FAIL with a "Needs human review:" prefix for a
	// blocking check, WARN for an advisory one (see Finalize).
	NeedsReview bool `json:"needs_review,omitempty"`
	// Data carries typed facts a later check consumes (for example the sweep
	// run chosen by Check 1). It is never rendered.
	Data any `json:"-"`
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

// Check is one row of the verdict.
type Check struct {
	Number   int
	Name     Text
	Advisory bool
	// After lists the check numbers whose results this check reads through
	// PR.Prior. The runner orders execution accordingly.
	After []int
	Run   func(ctx context.Context, pr *PR) Result
}

// Finalize applies the outcome policy to a raw result: advisory checks never
// FAIL, NeedsReview renders fail-closed, and an empty reason is replaced so
// that no row is ever blank.
func (c Check) Finalize(r Result) Result {
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
	s = strings.Join(strings.Fields(s), " ")
	return s
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

// Registry is an ordered set of checks.
type Registry struct {
	checks []Check
}

// NewRegistry builds a registry, refusing duplicate numbers.
func NewRegistry(cs ...Check) (*Registry, error) {
	seen := map[int]bool{}
	for _, c := range cs {
		if seen[c.Number] {
			return nil, fmt.Errorf("duplicate check number %d", c.Number)
		}
		seen[c.Number] = true
	}
	if err := checkOrder(cs); err != nil {
		return nil, err
	}
	return &Registry{checks: cs}, nil
}

// checkOrder refuses a dependency cycle among After lists, which would
// otherwise deadlock the runner.
func checkOrder(cs []Check) error {
	after := map[int][]int{}
	for _, c := range cs {
		after[c.Number] = c.After
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := map[int]int{}
	var visit func(n int) error
	visit = func(n int) error {
		switch state[n] {
		case visiting:
			return fmt.Errorf("check %d is part of a dependency cycle", n)
		case done:
			return nil
		}
		state[n] = visiting
		for _, d := range after[n] {
			if _, ok := after[d]; ok {
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		state[n] = done
		return nil
	}
	for _, c := range cs {
		if err := visit(c.Number); err != nil {
			return err
		}
	}
	return nil
}

// Checks returns the registered checks in registration order.
func (r *Registry) Checks() []Check { return append([]Check(nil), r.checks...) }

// Get returns the check with number n.
func (r *Registry) Get(n int) (Check, bool) {
	for _, c := range r.checks {
		if c.Number == n {
			return c, true
		}
	}
	return Check{}, false
}
