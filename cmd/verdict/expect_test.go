package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/checks"
)

// expectFile is a fixture's expect.json: the `verdict check` invocations
// TestScenarios runs on the fixture and what each must print. The format is
// documented in testdata/README.md; unknown keys are errors so that a typo
// cannot turn an assertion into a no-op.
type expectFile struct {
	// Date is the --date of every invocation that does not set its own.
	Date        string       `json:"date"`
	Invocations []invocation `json:"invocations"`
}

// invocation is one run of `verdict check --fixture DIR --format json`
// (and of the markdown format when asked) and its expected output.
type invocation struct {
	// Name names the subtest; default: the flags, or "default".
	Name string `json:"name,omitempty"`
	// About says what the invocation exercises, for the reader.
	About string `json:"about,omitempty"`

	// Preset names the checklist the verdict's rows come from (default
	// inferencex); the rows are held to its row numbers.
	Preset string `json:"preset,omitempty"`

	Repo    string `json:"repo,omitempty"`
	PR      int    `json:"pr,omitempty"`
	SignOff string `json:"signoff,omitempty"`
	Date    string `json:"date,omitempty"`
	// Edits, when set, run the invocation on a copy of the fixture changed
	// by them, in order.
	Edits []fixtureEdit `json:"edits,omitempty"`

	Exit *int `json:"exit"`
	// Verdict is PASS, WARN, REJECTED, NOT_REQUIRED or "none" (nothing on
	// stdout in either format).
	Verdict string `json:"verdict"`
	// AssessedSHA is a prefix of the assessed commit's SHA.
	AssessedSHA string `json:"assessed_sha,omitempty"`
	// VerifiedSignOff is the key of the sign-off the verdict is about.
	VerifiedSignOff string `json:"verified_signoff,omitempty"`

	// Rows lists every row of the verdict, in order, unless PartialRows,
	// when only the listed rows (possibly none) are checked.
	PartialRows bool      `json:"partial_rows,omitempty"`
	Rows        []rowWant `json:"rows,omitempty"`

	// FormatsAgree runs the invocation in markdown too and requires the
	// two runs to agree: same exit code, same verdict, sign-off and commit,
	// every row with its status. Markdown expectations imply it.
	FormatsAgree bool `json:"formats_agree,omitempty"`

	// Text expectations on the compacted JSON output, the markdown output
	// and the JSON run's stderr.
	JSON     []textWant `json:"json,omitempty"`
	Markdown []textWant `json:"markdown,omitempty"`
	Stderr   []textWant `json:"stderr,omitempty"`
}

// preset is the served preset the invocation's rows come from, nil when
// none has its name.
func (inv invocation) preset() *checks.Preset {
	name := cmp.Or(inv.Preset, "inferencex")
	i := slices.IndexFunc(servedPresets, func(p *checks.Preset) bool { return p.Name == name })
	if i < 0 {
		return nil
	}
	return servedPresets[i]
}

// rowWant is what one row must say.
type rowWant struct {
	Check  int    `json:"check"`
	Status string `json:"status"`
	// About says why the row must say this, for the reader.
	About string `json:"about,omitempty"`
	// Contains, Prefix, Matches (an RE2 regexp) and NotContains apply to
	// the English reason, ZHContains to the Chinese one.
	Contains    []string `json:"contains,omitempty"`
	Prefix      string   `json:"prefix,omitempty"`
	Matches     string   `json:"matches,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
	ZHContains  []string `json:"zh_contains,omitempty"`
	// AllowUnverified lets the English reason say "could not be verified"
	// (for fixtures that withhold the evidence on purpose).
	AllowUnverified bool `json:"allow_unverified,omitempty"`
	// AllowUntranslated lets the Chinese reason be empty or equal the English.
	AllowUntranslated bool `json:"allow_untranslated,omitempty"`

	re *regexp.Regexp
}

// textWant is a set of assertions on one stretch of an output: the text
// after the first From (default: the start) up to the first To after it
// (default: the end). A From or To that does not occur is a mismatch.
type textWant struct {
	From        string         `json:"from,omitempty"`
	To          string         `json:"to,omitempty"`
	StartsWith  string         `json:"starts_with,omitempty"`
	Contains    []string       `json:"contains,omitempty"`
	NotContains []string       `json:"not_contains,omitempty"`
	Count       map[string]int `json:"count,omitempty"`
	// Lines is the number of lines of the stretch with surrounding
	// white space trimmed (0: not checked).
	Lines int `json:"lines,omitempty"`
}

// fixtureEdit changes one file of the fixture copy. Exactly one of Replace (every
// occurrence becomes With; it must occur), Write (the file's new lines),
// MoveTo and Delete is set.
type fixtureEdit struct {
	Path    string   `json:"path"`
	Replace string   `json:"replace,omitempty"`
	With    string   `json:"with,omitempty"`
	Write   []string `json:"write,omitempty"`
	MoveTo  string   `json:"move_to,omitempty"`
	Delete  bool     `json:"delete,omitempty"`
}

const (
	expectName  = "expect.json"
	verdictNone = "none"
)

var expectVerdicts = []string{"PASS", "WARN", "REJECTED", "NOT_REQUIRED", verdictNone}
var rowStatuses = []string{"PASS", "WARN", "FAIL", "N/A"}

// loadExpect reads and validates an expect.json.
func loadExpect(file string) (*expectFile, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var e expectFile
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", file, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decoding %s: data after the top-level object", file)
	}
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &e, nil
}

func (e *expectFile) validate() error {
	if len(e.Invocations) == 0 {
		return fmt.Errorf("no invocations")
	}
	if e.Date != "" {
		if _, err := time.Parse(time.DateOnly, e.Date); err != nil {
			return fmt.Errorf("date %q is not YYYY-MM-DD", e.Date)
		}
	}
	seen := map[string]bool{}
	for i := range e.Invocations {
		inv := &e.Invocations[i]
		if inv.Name == "" {
			inv.Name = inv.defaultName()
		}
		if seen[inv.Name] {
			return fmt.Errorf("two invocations named %q", inv.Name)
		}
		seen[inv.Name] = true
		if inv.Date == "" {
			inv.Date = e.Date
		}
		if err := inv.validate(); err != nil {
			return fmt.Errorf("invocation %q: %w", inv.Name, err)
		}
	}
	return nil
}

func (inv *invocation) defaultName() string {
	var parts []string
	if inv.PR != 0 {
		parts = append(parts, fmt.Sprintf("pr=%d", inv.PR))
	}
	if inv.SignOff != "" {
		parts = append(parts, "signoff="+inv.SignOff)
	}
	if inv.Date != "" {
		parts = append(parts, "date="+inv.Date)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

func (inv *invocation) validate() error {
	if inv.Exit == nil {
		return fmt.Errorf("no exit code")
	}
	if !slices.Contains(expectVerdicts, inv.Verdict) {
		return fmt.Errorf("verdict %q is not one of %v", inv.Verdict, expectVerdicts)
	}
	if inv.Date == "" {
		// The review date moves deprecation verdicts: never leave it to the calendar.
		return fmt.Errorf("no date (set it for the file or the invocation)")
	}
	if _, err := time.Parse(time.DateOnly, inv.Date); err != nil {
		return fmt.Errorf("date %q is not YYYY-MM-DD", inv.Date)
	}
	if inv.PR != 0 && inv.Repo == "" {
		return fmt.Errorf("pr %d without repo", inv.PR)
	}
	hasRows := inv.Verdict != verdictNone && inv.Verdict != "NOT_REQUIRED"
	if !hasRows && (len(inv.Rows) > 0 || inv.PartialRows) {
		return fmt.Errorf("verdict %s has no rows to expect", inv.Verdict)
	}
	if hasRows && len(inv.Rows) == 0 && !inv.PartialRows {
		return fmt.Errorf("verdict %s without rows (list them, or set partial_rows)", inv.Verdict)
	}
	if inv.Verdict == verdictNone && (len(inv.JSON) > 0 || len(inv.Markdown) > 0) {
		return fmt.Errorf("output expectations on an invocation that prints nothing")
	}
	if len(inv.Markdown) > 0 {
		inv.FormatsAgree = true
	}
	preset := inv.preset()
	if preset == nil {
		return fmt.Errorf("preset %q is not served", inv.Preset)
	}
	name, presetRows := preset.Name, len(preset.Rows)
	for i := range inv.Rows {
		r := &inv.Rows[i]
		_, known := preset.Row(r.Check)
		switch {
		case !inv.PartialRows && r.Check != i:
			return fmt.Errorf("rows[%d] is Check %d: list every row in order, or set partial_rows", i, r.Check)
		case inv.PartialRows && i > 0 && r.Check <= inv.Rows[i-1].Check:
			return fmt.Errorf("rows[%d] (Check %d) is not after Check %d", i, r.Check, inv.Rows[i-1].Check)
		case !known:
			return fmt.Errorf("rows[%d]: the %s preset has no Check %d", i, name, r.Check)
		case !slices.Contains(rowStatuses, r.Status):
			return fmt.Errorf("Check %d: status %q is not one of %v", r.Check, r.Status, rowStatuses)
		}
		if r.Matches != "" {
			re, err := regexp.Compile(r.Matches)
			if err != nil {
				return fmt.Errorf("Check %d: %w", r.Check, err)
			}
			r.re = re
		}
	}
	if !inv.PartialRows && hasRows && len(inv.Rows) != presetRows {
		return fmt.Errorf("%d rows listed, want all %d (or set partial_rows)", len(inv.Rows), presetRows)
	}
	for i, e := range inv.Edits {
		if err := e.validate(); err != nil {
			return fmt.Errorf("edits[%d]: %w", i, err)
		}
	}
	return nil
}

func (e fixtureEdit) validate() error {
	n := 0
	for _, set := range []bool{e.Replace != "", e.Write != nil, e.MoveTo != "", e.Delete} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%s: set exactly one of replace, write, move_to, delete", e.Path)
	}
	if e.With != "" && e.Replace == "" {
		return fmt.Errorf("%s: with without replace", e.Path)
	}
	for _, p := range []string{e.Path, e.MoveTo} {
		if p != "" && (!filepath.IsLocal(filepath.FromSlash(p)) || path.Clean(p) != p || p == expectName) {
			return fmt.Errorf("path %q must be a clean relative path inside the fixture", p)
		}
	}
	if e.Path == "" {
		return fmt.Errorf("no path")
	}
	return nil
}

// apply performs the edit on the fixture copy rooted at dir.
func (e fixtureEdit) apply(dir string) error {
	p := filepath.Join(dir, filepath.FromSlash(e.Path))
	switch {
	case e.Delete:
		return os.Remove(p)
	case e.MoveTo != "":
		q := filepath.Join(dir, filepath.FromSlash(e.MoveTo))
		if err := os.MkdirAll(filepath.Dir(q), 0o755); err != nil {
			return err
		}
		return os.Rename(p, q)
	case e.Write != nil:
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(strings.Join(e.Write, "\n")+"\n"), 0o644)
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if !bytes.Contains(raw, []byte(e.Replace)) {
		return fmt.Errorf("%s does not contain %q", e.Path, e.Replace)
	}
	return os.WriteFile(p, bytes.ReplaceAll(raw, []byte(e.Replace), []byte(e.With)), 0o644)
}

// copyFixture copies the regular files under src to dst.
func copyFixture(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
