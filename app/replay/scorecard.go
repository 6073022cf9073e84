package replay

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// Expectation is what a person who judged a real pull request by hand
// says each row should be (the scorecard file, testdata/scorecard).
type Expectation struct {
	PR     int    `yaml:"pr"`
	Branch string `yaml:"branch"`
	SHA    string `yaml:"sha"`
	// Base is the commit an unmerged branch is judged against (its
	// merge-base with the default branch).
	Base string `yaml:"base"`
	// Rows are the expected statuses by check number: PASS, FAIL, N/A or
	// REVIEW (needs human review, which renders as a failing row).
	Rows    map[int]ExpectedRow `yaml:"rows"`
	Skipped string              `yaml:"skipped"`
}

// ExpectedRow is one judged row.
type ExpectedRow struct {
	Status string `yaml:"status"`
	Why    string `yaml:"why"`
}

// LoadExpectations reads a scorecard file.
func LoadExpectations(data []byte) ([]Expectation, error) {
	if err := yamlx.CheckDepth(string(data)); err != nil {
		return nil, err
	}
	var out []Expectation
	if err := yaml.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("reading the scorecard: %w", err)
	}
	for _, e := range out {
		for n, r := range e.Rows {
			switch r.Status {
			case "PASS", "FAIL", "N/A", "REVIEW":
			default:
				return nil, fmt.Errorf("scorecard: PR %d row %d: status %q is not PASS, FAIL, N/A or REVIEW", e.PR, n, r.Status)
			}
		}
	}
	return out, nil
}

// Scorecard is how a replay's rows agree with the judged ones.
type Scorecard struct {
	// Judged is the number of judged PRs the replay verified; Rows their
	// judged rows; Agree those whose status matches (REVIEW matches a
	// failing row).
	Judged, Rows, Agree int
	// FalsePass are rows judged failing that passed (or said N/A);
	// FalseFail rows judged passing (or N/A) that failed; Mixed rows
	// judged PASS that said N/A or the other way round.
	FalsePass, FalseFail, Mixed int
	PerCheck                    map[int]*CheckScore
	Disagreements               []Disagreement
	// NotReplayed are judged PRs (#N) and branches the replay did not
	// verify.
	NotReplayed []string
}

// CheckScore is one row number's figures.
type CheckScore struct{ Rows, Agree, FalsePass, FalseFail, Mixed int }

// Disagreement is one row where the replay and the judge differ.
type Disagreement struct {
	PR       int
	Branch   string // an unmerged branch's name (PR 0)
	Check    int
	Expected string
	Got      string
	Why      string // the judge's reason
	Reason   string // Verdict's reason
}

func passing(s string) bool { return s == "PASS" || s == "N/A" }

// Score compares a replay with the expectations of merged PRs.
func Score(rep *Report, exp []Expectation) Scorecard {
	sc := Scorecard{PerCheck: map[int]*CheckScore{}}
	byKey := map[string]Result{}
	for _, r := range rep.PRs {
		byKey[resultKey(r.PR.Number, r.PR.Branch)] = r
	}
	for _, e := range exp {
		if (e.PR == 0 && e.Branch == "") || len(e.Rows) == 0 {
			continue
		}
		key := resultKey(e.PR, e.Branch)
		res, ok := byKey[key]
		if !ok || res.Error != "" {
			sc.NotReplayed = append(sc.NotReplayed, key)
			continue
		}
		sc.Judged++
		got := map[int]Row{}
		for _, r := range res.Rows {
			got[r.Number] = r
		}
		for _, n := range slices.Sorted(mapKeys(e.Rows)) {
			want := e.Rows[n]
			row, ok := got[n]
			if !ok {
				continue
			}
			cs := sc.PerCheck[n]
			if cs == nil {
				cs = &CheckScore{}
				sc.PerCheck[n] = cs
			}
			sc.Rows++
			cs.Rows++
			switch {
			case want.Status == row.Status, (want.Status == "REVIEW" || want.Status == "FAIL") && row.Status == "FAIL":
				sc.Agree++
				cs.Agree++
				continue
			case !passing(want.Status) && passing(row.Status):
				sc.FalsePass++
				cs.FalsePass++
			case passing(want.Status) && !passing(row.Status):
				sc.FalseFail++
				cs.FalseFail++
			default:
				sc.Mixed++
				cs.Mixed++
			}
			sc.Disagreements = append(sc.Disagreements, Disagreement{PR: e.PR, Branch: e.Branch, Check: n, Expected: want.Status, Got: row.Status, Why: want.Why, Reason: row.Reason})
		}
	}
	sort.Strings(sc.NotReplayed)
	return sc
}

// resultKey names a replayed PR (#N) or branch in a scorecard.
func resultKey(number int, branch string) string {
	if branch != "" {
		return branch
	}
	return fmt.Sprintf("#%d", number)
}

func mapKeys[V any](m map[int]V) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Text prints the scorecard for people.
func (sc Scorecard) Text(w io.Writer) {
	pct := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
	}
	fmt.Fprintf(w, "scorecard: %d judged PRs or branches, %d rows: %d agree (%s), %d false PASS, %d false FAIL, %d PASS/N/A swaps\n",
		sc.Judged, sc.Rows, sc.Agree, pct(sc.Agree, sc.Rows), sc.FalsePass, sc.FalseFail, sc.Mixed)
	for _, n := range slices.Sorted(mapKeys(sc.PerCheck)) {
		c := sc.PerCheck[n]
		fmt.Fprintf(w, "  check %2d: %3d rows, %3d agree (%s), %2d false PASS, %2d false FAIL, %2d swaps\n", n, c.Rows, c.Agree, pct(c.Agree, c.Rows), c.FalsePass, c.FalseFail, c.Mixed)
	}
	if len(sc.NotReplayed) > 0 {
		fmt.Fprintf(w, "  not replayed: %v\n", sc.NotReplayed)
	}
	for _, d := range sc.Disagreements {
		fmt.Fprintf(w, "  %s check %d: judged %s (%s), got %s: %s\n", resultKey(d.PR, d.Branch), d.Check, d.Expected, d.Why, d.Got, oneLine(d.Reason, 200))
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
