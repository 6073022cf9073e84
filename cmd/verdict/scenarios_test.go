package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

var updateExpect = flag.Bool("update", false, "write expect.json, from the current output, for fixtures that have none (never overwrites one)")

var fixturesRoot = filepath.Join("..", "..", "testdata", "fixtures")

func fixtureDir(name string) string { return filepath.Join(fixturesRoot, name) }

// TestScenarios runs every fixture under testdata/fixtures through
// `verdict check --fixture` as its expect.json says and reports each
// difference as "fixture/expect.json [invocation]: what: got ..., want ...".
// The format of expect.json and the rules every row must meet are in
// testdata/README.md.
func TestScenarios(t *testing.T) {
	names, err := fixtureNames(fixturesRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := fixtureDir(name)
			e, wrote, err := scenarioExpect(dir, *updateExpect)
			if err != nil {
				t.Fatal(err)
			}
			if wrote {
				// A failure, so that a draft nobody read cannot pass for an assertion.
				t.Errorf("wrote %s from the current output: review every row, trim each reason to what the scenario is about, commit it and run again without -update", filepath.Join(dir, expectName))
			}
			for _, inv := range e.Invocations {
				t.Run(inv.Name, func(t *testing.T) {
					t.Parallel()
					for _, m := range runAndCompare(dir, inv, t.TempDir) {
						t.Errorf("%s [%s]: %s", filepath.ToSlash(filepath.Join(name, expectName)), inv.Name, m)
					}
				})
			}
		})
	}
}

// fixtureNames lists the fixture directories under root.
func fixtureNames(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no fixtures under %s", root)
	}
	return names, nil
}

// checkRun is what one cmdCheck call printed.
type checkRun struct {
	Ran    bool
	Code   int
	Stdout string
	Stderr string
}

func captureCheck(args ...string) checkRun {
	var stdout, stderr bytes.Buffer
	code := cmdCheck(context.Background(), args, &stdout, &stderr)
	return checkRun{Ran: true, Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// jsonVerdict is `verdict check --format json` decoded. Reason is set for
// NOT_REQUIRED only.
type jsonVerdict struct {
	Verdict     string    `json:"verdict"`
	Reason      string    `json:"reason"`
	AssessedSHA string    `json:"assessed_sha"`
	SignOff     string    `json:"signoff"`
	Checks      []jsonRow `json:"checks"`
}

type jsonRow struct {
	Number   int    `json:"number"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Reason   string `json:"reason"`
	ReasonZH string `json:"reason_zh"`
}

// scenarioRun is an invocation run in JSON and, when Markdown.Ran, in
// markdown.
type scenarioRun struct {
	JSON, Markdown checkRun
	// Compact is the JSON output compacted to one line; V is it decoded.
	Compact string
	V       jsonVerdict
}

// run runs cmdCheck on dir with the invocation's flags, in markdown too
// when the invocation asks for it (each run is a whole verification, the
// bulk of the suite's time). The error is for output that is not a verdict
// at all.
func (inv invocation) run(dir string) (scenarioRun, error) {
	args := []string{"--fixture", dir, "--date", inv.Date}
	if inv.Repo != "" {
		args = append(args, "--repo", inv.Repo)
	}
	if inv.PR != 0 {
		args = append(args, "--pr", fmt.Sprint(inv.PR))
	}
	if inv.SignOff != "" {
		args = append(args, "--signoff", inv.SignOff)
	}
	r := scenarioRun{JSON: captureCheck(append(args, "--format", "json")...)}
	if inv.FormatsAgree {
		r.Markdown = captureCheck(args...)
	}
	if r.JSON.Stdout == "" {
		return r, nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, []byte(r.JSON.Stdout)); err != nil {
		return r, fmt.Errorf("invalid JSON on stdout (exit %d): %v\n%s", r.JSON.Code, err, r.JSON.Stdout)
	}
	r.Compact = c.String()
	if err := json.Unmarshal([]byte(r.JSON.Stdout), &r.V); err != nil {
		return r, fmt.Errorf("decoding the JSON verdict: %v\n%s", err, r.JSON.Stdout)
	}
	return r, nil
}

// runAndCompare runs inv on the fixture at dir (on an edited copy in a
// directory from tempDir when inv has edits) and returns the mismatches.
func runAndCompare(dir string, inv invocation, tempDir func() string) []string {
	if len(inv.Edits) > 0 {
		tmp := tempDir()
		if err := copyFixture(dir, tmp); err != nil {
			return []string{fmt.Sprintf("copying the fixture: %v", err)}
		}
		for i, e := range inv.Edits {
			if err := e.apply(tmp); err != nil {
				return []string{fmt.Sprintf("edits[%d]: %v", i, err)}
			}
		}
		dir = tmp
	}
	r, err := inv.run(dir)
	if err != nil {
		return []string{err.Error()}
	}
	return inv.compare(r)
}

// compare returns every way r differs from what inv expects.
func (inv invocation) compare(r scenarioRun) []string {
	var ms []string
	bad := func(format string, a ...any) { ms = append(ms, fmt.Sprintf(format, a...)) }
	if r.JSON.Code != *inv.Exit {
		bad("exit code %d, want %d (stderr: %q)", r.JSON.Code, *inv.Exit, strings.TrimSpace(r.JSON.Stderr))
	}
	got := r.V.Verdict
	if r.JSON.Stdout == "" {
		got = verdictNone
	}
	if got != inv.Verdict {
		bad("verdict %s, want %s", got, inv.Verdict)
		return ms // nothing below would be about the same output
	}
	if inv.Verdict == verdictNone && strings.TrimSpace(r.JSON.Stderr) == "" {
		bad("no verdict and no error message on stderr")
	}
	if inv.AssessedSHA != "" && !strings.HasPrefix(r.V.AssessedSHA, inv.AssessedSHA) {
		bad("assessed %q, want a SHA starting %q", r.V.AssessedSHA, inv.AssessedSHA)
	}
	if inv.VerifiedSignOff != "" && r.V.SignOff != inv.VerifiedSignOff {
		bad("verified sign-off %q, want %q", r.V.SignOff, inv.VerifiedSignOff)
	}
	switch {
	case inv.Verdict == "NOT_REQUIRED" && len(r.V.Checks) > 0:
		bad("NOT_REQUIRED with %d rows, want none", len(r.V.Checks))
	case len(inv.Rows) > 0 || inv.PartialRows:
		ms = append(ms, compareRows(inv, r.V.Checks)...)
	}
	if inv.FormatsAgree {
		if !r.Markdown.Ran {
			return append(ms, "formats_agree without a markdown run")
		}
		ms = append(ms, formatsAgree(r)...)
	}
	for _, w := range inv.JSON {
		ms = append(ms, w.compare("JSON output", r.Compact)...)
	}
	for _, w := range inv.Markdown {
		ms = append(ms, w.compare("markdown", r.Markdown.Stdout)...)
	}
	for _, w := range inv.Stderr {
		ms = append(ms, w.compare("stderr", r.JSON.Stderr)...)
	}
	return ms
}

const unverifiedPhrase = "could not be verified"

// compareRows checks the rows against inv.Rows and the rules every row
// meets unless it opts out: the preset's rows numbered in order, no "could not be
// verified" (the fixture holds the evidence), a Chinese reason that is
// there and is not the English one.
func compareRows(inv invocation, rows []jsonRow) []string {
	var ms []string
	bad := func(format string, a ...any) { ms = append(ms, fmt.Sprintf(format, a...)) }
	if want := len(inv.preset().Rows); len(rows) != want {
		bad("%d rows, want %d", len(rows), want)
	}
	for i, c := range rows {
		if c.Number != i {
			bad("row %d is Check %d, want the rows in order", i, c.Number)
			return ms
		}
	}
	for _, c := range rows {
		if c.ReasonZH == c.Reason {
			continue // reported below as untranslated
		}
		if words := checkstest.EnglishInChinese(c.ReasonZH); len(words) > 0 {
			bad("Check %d (%s): Chinese reason %q leaves %q untranslated", c.Number, c.Name, c.ReasonZH, words)
		}
	}
	for _, w := range inv.Rows {
		if w.Check >= len(rows) {
			bad("Check %d: missing, want %s", w.Check, w.Status)
			continue
		}
		c := rows[w.Check]
		at := fmt.Sprintf("Check %d (%s)", c.Number, c.Name)
		if c.Status != w.Status {
			bad("%s: got %s %q, want %s", at, c.Status, c.Reason, w.Status)
		}
		for _, s := range w.Contains {
			if !strings.Contains(c.Reason, s) {
				bad("%s: reason %q does not contain %q", at, c.Reason, s)
			}
		}
		if !strings.HasPrefix(c.Reason, w.Prefix) {
			bad("%s: reason %q does not start with %q", at, c.Reason, w.Prefix)
		}
		if w.re != nil && !w.re.MatchString(c.Reason) {
			bad("%s: reason %q does not match %q", at, c.Reason, w.Matches)
		}
		for _, s := range w.NotContains {
			if strings.Contains(c.Reason, s) {
				bad("%s: reason %q contains %q", at, c.Reason, s)
			}
		}
		for _, s := range w.ZHContains {
			if !strings.Contains(c.ReasonZH, s) {
				bad("%s: Chinese reason %q does not contain %q", at, c.ReasonZH, s)
			}
		}
		if !w.AllowUnverified && strings.Contains(c.Reason, unverifiedPhrase) {
			bad("%s: reason %q says %q although the fixture holds the evidence (or set allow_unverified)", at, c.Reason, unverifiedPhrase)
		}
		if !w.AllowUntranslated && (c.ReasonZH == "" || c.ReasonZH == c.Reason) {
			bad("%s: Chinese reason missing or untranslated: %q (or set allow_untranslated)", at, c.ReasonZH)
		}
	}
	return ms
}

// zhSummary opens the Chinese half of a markdown verdict.
const zhSummary = "<summary>中文</summary>"

// englishPart is the markdown before the Chinese <details> block.
func englishPart(md string) string {
	en, _, _ := strings.Cut(md, zhSummary)
	return en
}

// formatsAgree compares the markdown run with the JSON run.
func formatsAgree(r scenarioRun) []string {
	var ms []string
	bad := func(format string, a ...any) { ms = append(ms, fmt.Sprintf(format, a...)) }
	md := r.Markdown.Stdout
	if r.Markdown.Code != r.JSON.Code {
		bad("markdown run exited %d, JSON run %d (stderr: %q)", r.Markdown.Code, r.JSON.Code, strings.TrimSpace(r.Markdown.Stderr))
	}
	switch {
	case r.JSON.Stdout == "" || md == "":
		if (r.JSON.Stdout == "") != (md == "") {
			bad("markdown run printed %d bytes, JSON run %d", len(md), len(r.JSON.Stdout))
		}
		return ms
	case r.V.Verdict == "NOT_REQUIRED":
		if want := "No sign-off required: " + r.V.Reason + ".\n"; md != want {
			bad("markdown %q, want %q", md, want)
		}
		return ms
	}
	header := map[string]string{"PASS": render.HeaderPass, "WARN": render.HeaderWarn, "REJECTED": render.HeaderRejected}[r.V.Verdict]
	if want := render.Marker(r.V.SignOff) + "\n" + header + "\n"; !strings.HasPrefix(md, want) {
		first, _, _ := strings.Cut(md, "\n\n")
		bad("markdown starts %q, want %q", first, want)
	}
	en := englishPart(md)
	for _, c := range r.V.Checks {
		if row := fmt.Sprintf(" Check %d (%s): %s — ", c.Number, c.Name, c.Status); !strings.Contains(en, row) {
			bad("markdown has no row %q", row)
		}
	}
	if foot := "Assessed commit: `" + r.V.AssessedSHA + "`."; !strings.Contains(en, foot) {
		bad("markdown lacks %q", foot)
	}
	if _, zh, ok := strings.Cut(md, zhSummary); ok {
		for _, line := range strings.Split(zh, "\n") {
			if words := checkstest.EnglishInChinese(line); len(words) > 0 {
				bad("Chinese half of the markdown: %q leaves %q untranslated", line, words)
			}
		}
	}
	return ms
}

// compare checks the stretch of text w selects; what names the output.
func (w textWant) compare(what, text string) []string {
	var ms []string
	bad := func(format string, a ...any) { ms = append(ms, fmt.Sprintf(format, a...)) }
	if w.From != "" {
		_, after, ok := strings.Cut(text, w.From)
		if !ok {
			return []string{fmt.Sprintf("%s has no %q:\n%s", what, w.From, text)}
		}
		what, text = fmt.Sprintf("%s after %q", what, w.From), after
	}
	if w.To != "" {
		before, _, ok := strings.Cut(text, w.To)
		if !ok {
			return []string{fmt.Sprintf("%s has no %q:\n%s", what, w.To, text)}
		}
		what, text = fmt.Sprintf("%s before %q", what, w.To), before
	}
	if !strings.HasPrefix(text, w.StartsWith) {
		bad("%s does not start with %q:\n%s", what, w.StartsWith, text)
	}
	for _, s := range w.Contains {
		if !strings.Contains(text, s) {
			bad("%s does not contain %q:\n%s", what, s, text)
		}
	}
	for _, s := range w.NotContains {
		if strings.Contains(text, s) {
			bad("%s contains %q:\n%s", what, s, text)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(w.Count)) {
		if n := strings.Count(text, s); n != w.Count[s] {
			bad("%s contains %q %d times, want %d:\n%s", what, s, n, w.Count[s], text)
		}
	}
	if w.Lines > 0 {
		if n := strings.Count(strings.TrimSpace(text), "\n") + 1; n != w.Lines {
			bad("%s has %d lines, want %d:\n%s", what, n, w.Lines, text)
		}
	}
	return ms
}
