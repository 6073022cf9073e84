// Package modelsmd reads an InferenceX repository's MODELS.md: its
// deprecation notices, its scenario table and its model support matrix, as
// the tables and sentences the maintainers write them in. What it cannot read
// it reports as problems; it never fails.
package modelsmd

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Doc is what MODELS.md says about retired models and scenarios.
type Doc struct {
	Notices   []Notice
	Scenarios []ScenarioStatus
	Matrix    []Row
	// Problems are tables or rows that could not be read; a config they
	// might concern needs a human.
	Problems []Problem
}

// Problem is a MODELS.md table or row that could not be read.
// Prefixes are the model prefixes it concerns (nil: unknown, so any).
type Problem struct {
	Line     int
	Msg      string
	Prefixes []string
}

// Notice is a "### <Weekday>, <Month> <D>, <YYYY>" subsection:
// the heading date is the last allowed day.
type Notice struct {
	Heading string
	LastDay time.Time
	Line    int
	Rules   []Rule
}

// Rule is one retirement: model prefixes × scenarios and/or a
// precision. No scenarios means every scenario. NonSpecOnly restricts it to
// the non-spec-decode arm.
type Rule struct {
	Prefixes    []string
	Scenarios   []string
	Precision   string
	NonSpecOnly bool
	// Since is the first day the rule applies (zero: always).
	Since time.Time
	Line  int
	Text  string
}

// ScenarioStatus is one row of the "## Scenarios" table.
type ScenarioStatus struct {
	Name       string
	Deprecated bool
	Since      time.Time
	Exception  string
	Line       int
}

// Row is one row of the "## Model support matrix".
type Row struct {
	Model     string
	Prefixes  []string
	Retired   bool
	RetiredOn time.Time
	// Fully is set when the cell says "fully retired".
	Fully      bool
	Deprecated []Rule
	Line       int
}

var (
	noticeHeadRE = regexp.MustCompile(`^###\s+((?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),\s+[A-Z][a-z]+\s+\d{1,2},\s+\d{4})\s*$`)
	scenarioRE   = regexp.MustCompile(`(?i)\b(single-turn\s+\d+k\d+k|agentic\s+coding)\b`)
	backtickRE   = regexp.MustCompile("`([^`]+)`")
	isoDateRE    = regexp.MustCompile(`\b(\d{4}-\d{2}-\d{2})\b`)
	sinceRE      = regexp.MustCompile(`(?i)since\s+(\d{4}-\d{2}-\d{2})`)
	retiredRE    = regexp.MustCompile(`(?i)retired\s+(\d{4}-\d{2}-\d{2})`)
	precisionRE  = regexp.MustCompile(`(?i)(?:all\s+)?\**\b(bf16|fp16|fp8|fp4|int4|int8|mxfp4|nvfp4)\b\**\s+recipes`)
	nonSpecRE    = regexp.MustCompile(`(?i)\bnon-[a-z0-9]+`)
	lastDayRE    = regexp.MustCompile("is the last day for the \\*\\*(.+?)\\*\\* scenario on \\*\\*(.+?)\\*\\* \\(`([^`]+)`\\)")
	footnoteRE   = regexp.MustCompile(`\[\^[^\]]*\]`)
)

// CanonicalScenario normalizes a scenario name ("single-turn 8K1K" →
// "Single-turn 8k1k").
func CanonicalScenario(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 2 && f[0] == "single-turn" {
		return "Single-turn " + f[1]
	}
	if len(f) == 2 && f[0] == "agentic" && f[1] == "coding" {
		return "Agentic coding"
	}
	return strings.TrimSpace(s)
}

type table struct {
	header  []string
	rows    [][]string
	lines   []int
	line    int    // first line
	caption string // nearest non-empty line above
	after   string // text after the table up to the next table or heading
}

// Parse parses MODELS.md. It never fails: what it cannot read is in
// Problems.
func Parse(text string) *Doc {
	doc := &Doc{}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	type section struct {
		h2, h3 string
		h3Line int
		tables []*table
		text   []string
	}
	var secs []*section
	cur := &section{}
	secs = append(secs, cur)
	var tbl *table // the table of the current section that text follows
	inTable := false
	lastText := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "|"):
			cells := tableCells(t)
			if !inTable {
				tbl = &table{line: i + 1, caption: lastText, header: cells}
				cur.tables = append(cur.tables, tbl)
				inTable = true
				continue
			}
			if isSeparatorRow(cells) {
				continue
			}
			tbl.rows = append(tbl.rows, cells)
			tbl.lines = append(tbl.lines, i+1)
			continue
		case strings.HasPrefix(t, "## "):
			cur = &section{h2: strings.TrimSpace(t[3:])}
			secs = append(secs, cur)
			tbl, lastText = nil, ""
		case strings.HasPrefix(t, "### "):
			cur = &section{h2: cur.h2, h3: t, h3Line: i + 1}
			secs = append(secs, cur)
			tbl, lastText = nil, ""
		case t != "":
			lastText = t
			cur.text = append(cur.text, t)
			if tbl != nil {
				tbl.after += " " + t
			}
		}
		inTable = false
	}
	for _, s := range secs {
		h2 := strings.ToLower(s.h2)
		switch {
		case strings.Contains(h2, "deprecation") && s.h3 != "":
			m := noticeHeadRE.FindStringSubmatch(s.h3)
			if m == nil {
				continue
			}
			d, err := time.Parse("Monday, January 2, 2006", strings.Join(strings.Fields(m[1]), " "))
			if err != nil {
				doc.Problems = append(doc.Problems, Problem{Line: s.h3Line, Msg: fmt.Sprintf("notice date %q does not parse", m[1])})
				continue
			}
			n := Notice{Heading: m[1], LastDay: d, Line: s.h3Line}
			for _, t := range s.tables {
				if strings.Contains(strings.ToLower(t.after+" "+t.caption), "not yet enacted") {
					continue
				}
				n.Rules = append(n.Rules, doc.noticeRules(t)...)
			}
			if len(s.tables) == 0 {
				for _, t := range s.text {
					if m := lastDayRE.FindStringSubmatch(t); m != nil {
						n.Rules = append(n.Rules, Rule{Prefixes: []string{m[3]}, Scenarios: []string{CanonicalScenario(m[1])}, Line: s.h3Line, Text: t})
					}
				}
			}
			doc.Notices = append(doc.Notices, n)
		case h2 == "scenarios":
			for _, t := range s.tables {
				doc.scenarioRows(t)
			}
		case strings.Contains(h2, "support matrix"):
			for _, t := range s.tables {
				doc.matrixRows(t)
			}
		}
	}
	return doc
}

func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	parts := strings.Split(row, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func isSeparatorRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":- ") != "" {
			return false
		}
	}
	return true
}

func column(header []string, names ...string) int {
	for i, h := range header {
		l := strings.ToLower(h)
		for _, n := range names {
			if strings.Contains(l, n) {
				return i
			}
		}
	}
	return -1
}

func cell(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return row[i]
}

func (doc *Doc) noticeRules(t *table) []Rule {
	mc, dc := column(t.header, "model"), column(t.header, "deprecated")
	if mc < 0 || dc < 0 {
		doc.Problems = append(doc.Problems, Problem{Line: t.line, Msg: "deprecation table has no Model/Deprecated columns"})
		return nil
	}
	var out []Rule
	for i, r := range t.rows {
		prefixes := backticked(cell(r, mc))
		rule, ok := parseDeprecated(cell(r, dc))
		if len(prefixes) == 0 || !ok {
			doc.Problems = append(doc.Problems, Problem{Line: t.lines[i], Msg: fmt.Sprintf("deprecation row %q cannot be read", strings.Join(r, " | ")), Prefixes: prefixes})
			continue
		}
		rule.Prefixes, rule.Line, rule.Text = prefixes, t.lines[i], strings.Join(r, " | ")
		out = append(out, rule)
	}
	return out
}

// parseDeprecated reads one "Deprecated" cell item: scenarios, a retired
// precision, a non-spec-decode arm qualifier, a removal date.
func parseDeprecated(s string) (Rule, bool) {
	var r Rule
	if m := isoDateRE.FindStringSubmatch(s); m != nil {
		r.Since, _ = time.Parse("2006-01-02", m[1])
	}
	s = stripParens(s)
	for _, m := range scenarioRE.FindAllString(s, -1) {
		r.Scenarios = append(r.Scenarios, CanonicalScenario(m))
	}
	if m := precisionRE.FindStringSubmatch(s); m != nil {
		r.Precision = strings.ToLower(m[1])
	}
	r.NonSpecOnly = nonSpecRE.MatchString(s)
	return r, len(r.Scenarios) > 0 || r.Precision != ""
}

func stripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// splitOutsideParens splits on commas outside parentheses.
func splitOutsideParens(s string) []string {
	var out []string
	depth, st := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, s[st:i])
				st = i + 1
			}
		}
	}
	return append(out, s[st:])
}

func backticked(s string) []string {
	var out []string
	for _, m := range backtickRE.FindAllStringSubmatch(s, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

func (doc *Doc) scenarioRows(t *table) {
	sc, st := column(t.header, "scenario"), column(t.header, "status")
	if sc < 0 || st < 0 {
		doc.Problems = append(doc.Problems, Problem{Line: t.line, Msg: "Scenarios table has no Scenario/Status columns"})
		return
	}
	for i, r := range t.rows {
		status := cell(r, st)
		s := ScenarioStatus{Name: CanonicalScenario(cell(r, sc)), Line: t.lines[i]}
		if strings.Contains(strings.ToLower(status), "deprecated") {
			s.Deprecated = true
			if m := sinceRE.FindStringSubmatch(status); m != nil {
				s.Since, _ = time.Parse("2006-01-02", m[1])
			}
			if regexp.MustCompile(`(?i)\bexcept`).MatchString(status) {
				s.Exception = status
			}
		}
		doc.Scenarios = append(doc.Scenarios, s)
	}
}

func (doc *Doc) matrixRows(t *table) {
	pc, ac, dc := column(t.header, "prefix"), column(t.header, "active"), column(t.header, "deprecated")
	if pc < 0 || ac < 0 {
		doc.Problems = append(doc.Problems, Problem{Line: t.line, Msg: "support matrix has no Prefix/Active columns"})
		return
	}
	for i, r := range t.rows {
		row := Row{Model: cell(r, 0), Prefixes: backticked(cell(r, pc)), Line: t.lines[i]}
		if len(row.Prefixes) == 0 {
			doc.Problems = append(doc.Problems, Problem{Line: t.lines[i], Msg: fmt.Sprintf("support-matrix row %q has no backticked prefix", cell(r, 0))})
			continue
		}
		active := strings.TrimSpace(cell(r, ac))
		if strings.HasPrefix(strings.ToLower(active), "none") {
			row.Retired = true
			row.Fully = strings.Contains(strings.ToLower(active), "fully retired")
			if m := retiredRE.FindStringSubmatch(active); m != nil {
				row.RetiredOn, _ = time.Parse("2006-01-02", m[1])
			}
		}
		for _, item := range splitOutsideParens(footnoteRE.ReplaceAllString(cell(r, dc), "")) {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			rule, ok := parseDeprecated(item)
			if !ok {
				doc.Problems = append(doc.Problems, Problem{Line: t.lines[i], Msg: fmt.Sprintf("deprecated-scenario item %q cannot be read", item), Prefixes: row.Prefixes})
				continue
			}
			rule.Prefixes, rule.Line, rule.Text = row.Prefixes, t.lines[i], item
			row.Deprecated = append(row.Deprecated, rule)
		}
		doc.Matrix = append(doc.Matrix, row)
	}
}

// Covers reports whether prefix is one of prefixes (an empty prefix never is).
func Covers(prefixes []string, prefix string) bool {
	return prefix != "" && slices.Contains(prefixes, prefix)
}

// Label names what the rule retires of scenario sc: the scenario, and the
// precision when the rule names one.
func (d Rule) Label(sc string) string {
	if d.Precision != "" {
		return sc + " " + d.Precision
	}
	return sc
}

// Applies reports whether the rule retires scenario sc of a config with
// this model prefix, precision and spec-decode classification: the prefix
// matches, and so do the scenarios, precision and spec-decode arm the rule
// names.
func (d Rule) Applies(prefix, precision string, specDecode bool, sc string) bool {
	if !Covers(d.Prefixes, prefix) {
		return false
	}
	if len(d.Scenarios) > 0 && !slices.Contains(d.Scenarios, sc) {
		return false
	}
	if d.Precision != "" && !strings.EqualFold(d.Precision, precision) {
		return false
	}
	if d.NonSpecOnly && specDecode {
		return false
	}
	return true
}
