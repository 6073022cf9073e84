package repoconfig

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// served are the presets the binary serves.
var served = []*checks.Preset{inferencex.Preset, checklist.Preset}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "empty is defaults", in: "", check: func(t *testing.T, c Config) {
			if c.MaxFileBytes != 8<<20 || !c.StatusEnabled() || c.Status.Context != "codeowner-signoff-verify" {
				t.Errorf("defaults not applied: %+v", c)
			}
		}},
		{name: "comments only is defaults", in: "# nothing yet\n", check: func(t *testing.T, c Config) {
			if c.MaxFileBytes != 8<<20 {
				t.Errorf("defaults not applied: %+v", c)
			}
		}},
		{name: "override", in: "pareto_minimum: 7\nmax_file_bytes: 1048576\ncore_team: '@InferenceX/core'\nstatus:\n  enabled: false\n", check: func(t *testing.T, c Config) {
			if c.MaxFileBytes != 1<<20 || c.CoreTeam != "@InferenceX/core" || c.StatusEnabled() {
				t.Errorf("override not applied: %+v", c)
			}
			if c.Status.Context != "codeowner-signoff-verify" {
				t.Errorf("unset nested field lost its default: %q", c.Status.Context)
			}
		}},
		{name: "disable a check", in: "checks:\n  3:\n    disabled: true\n", check: func(t *testing.T, c Config) {
			if c.Enabled(3) || !c.Enabled(4) {
				t.Errorf("check toggles wrong")
			}
		}},
		{name: "a preset's key", in: "image_orgs:\n  trt: [nvcr.io/nvidia/]\n", check: func(t *testing.T, c Config) {
			if string(c.File()) == "" {
				t.Errorf("the file is not kept for the preset to read")
			}
		}},
		{name: "unknown key", in: "paretominimum: 3\n", wantErr: "line 1: unknown key paretominimum (did you mean pareto_minimum?)"},
		{name: "bad warn_as", in: "status:\n  warn_as: maybe\n", wantErr: `line 2: status.warn_as must be success or failure, not "maybe"`},
		{name: "malformed", in: "pareto_minimum: [\n", wantErr: ".github/verdict.yml: line 1: YAML syntax:"},
		{name: "not a check number", in: "checks:\n  1000:\n    disabled: true\n", wantErr: "line 2: checks: 1000 is not a row number of the preset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.in), served)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				var ce *Error
				if !errors.As(err, &ce) {
					t.Errorf("err %T is not a *repoconfig.Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// TestCheck: every kind of defect is found at its line, all of them in one
// pass, with the key named in the file's terms.
func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // Problem.String() of every problem, in order
	}{
		{name: "valid", in: "signoff_phrase: As a reviewer\nlayout: e2e\npaths:\n  models: docs/MODELS.md\n"},
		{name: "typo with suggestion", in: "# x\n\nsign_off_phrase: x\n",
			want: []string{"line 3: unknown key sign_off_phrase (did you mean signoff_phrase?)"}},
		{name: "nested typo", in: "status:\n  warnas: failure\n",
			want: []string{"line 2: unknown key status.warnas (did you mean status.warn_as?)"}},
		{name: "far from any key", in: "colour: blue\n", want: []string{"line 1: unknown key colour"}},
		{name: "every problem at once", in: "pareto_minimum: 0\nstatus:\n  warn_as: maybe\nbogus: 1\ndefault_eval_threshold: 1.5\n",
			want: []string{
				"line 1: pareto_minimum must be between 1 and 1000, not 0",
				`line 3: status.warn_as must be success or failure, not "maybe"`,
				"line 4: unknown key bogus",
				"line 5: default_eval_threshold must be between 0 and 1, not 1.5",
			}},
		{name: "wrong types", in: "pareto_minimum: many\nbenchmark_groups: single-node\nstatus: [a]\n",
			want: []string{
				`line 1: pareto_minimum must be an integer, not str "many"`,
				`line 2: benchmark_groups must be a list, not str "single-..."`,
				"line 3: status must be a mapping, not seq",
			}},
		{name: "list item", in: "reuse_associations:\n  - OWNER\n  - maintainer\n",
			want: []string{`line 3: reuse_associations[1] must be one of OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE, not "maintainer"`}},
		{name: "empty prefix", in: "benchmark_groups: ['single-node ', '']\n",
			want: []string{`line 1: benchmark_groups[1] must be non-empty, not ""`}},
		{name: "handles", in: "core_team: SemiAnalysisAI/core\nescalation_handles: ['@a', b]\n",
			want: []string{
				`line 1: core_team must be a GitHub handle such as @login or @org/team, not "SemiAnalysisAI/core"`,
				`line 2: escalation_handles[1] must be a GitHub handle such as @login or @org/team, not "b"`,
			}},
		{name: "paths", in: "paths:\n  models: ../MODELS.md\n  waiver_dir: /etc\n  root: x/\n",
			want: []string{
				`line 2: paths.models must be a relative path inside the repository (forward slashes, no .. or leading /), not "../MODELS.md"`,
				`line 3: paths.waiver_dir must be a relative path inside the repository (forward slashes, no .. or leading /), not "/etc"`,
				"line 4: paths.root cannot be set: choose the layout with layout: legacy or e2e instead",
			}},
		{name: "layout", in: "layout: flat\n", want: []string{`line 1: layout must be legacy or e2e (or empty), not "flat"`}},
		{name: "check key not a number", in: "checks:\n  three: {disabled: true}\n",
			want: []string{`line 2: checks.three must be an integer, not str "three"`}},
		{name: "duplicate key", in: "pareto_minimum: 3\npareto_minimum: 4\n",
			want: []string{`line 2: mapping key "pareto_minimum" already defined at line 1`}},
		{name: "not a mapping", in: "- a\n- b\n", want: []string{"line 1: the file must be a mapping of keys (key: value), not a list"}},
		{name: "too large", in: "#" + strings.Repeat("x", maxBytes), want: []string{"the file is 262145 bytes, over the 262144-byte limit"}},
		{name: "merge key", in: "base: &b {enabled: false}\nstatus:\n  <<: *b\n", want: []string{"line 1: unknown key base"}},
		{name: "max_file_bytes", in: "max_file_bytes: 12\n", want: []string{"line 1: max_file_bytes must be between 1024 and 8388608, not 12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, probs := Check([]byte(tt.in), served)
			var got []string
			for _, p := range probs {
				got = append(got, p.String())
				if !hasHan(p.MessageZH) {
					t.Errorf("problem %q has no Chinese message: %q", p.Message, p.MessageZH)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if len(probs) > 0 && cfg.MaxFileBytes != Default().MaxFileBytes {
				t.Errorf("an invalid file must leave the defaults, got max_file_bytes %d", cfg.MaxFileBytes)
			}
		})
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func TestProblemChinese(t *testing.T) {
	_, probs := Check([]byte("# x\nsign_off_phrase: x\nstatus:\n  warn_as: maybe\n"), served)
	var got []string
	for _, p := range probs {
		got = append(got, p.StringZH())
	}
	want := []string{
		"第 2 行：未知的键 sign_off_phrase（是否想写 signoff_phrase？）",
		`第 4 行：status.warn_as 必须是 success 或 failure，而不是 "maybe"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDefaultsSatisfyTable: the preset obeys the key table, so a problem
// always comes from the file.
func TestDefaultsSatisfyTable(t *testing.T) {
	tb, err := tableFor(served)
	if err != nil {
		t.Fatal(err)
	}
	w := walker{specs: tb.specs}
	if probs := w.constraints(tb.defaults(), "", "", nil); len(probs) > 0 {
		t.Errorf("defaults violate the key table: %v", probs)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("pareto_minimum: 3\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("checks:\n  3: {disabled: true}\nstatus: {warn_as: failure}\n"))
	f.Add([]byte("x: &x {a: *x}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, probs := Check(b, served)
		_, err := Parse(b, served)
		if (err == nil) != (len(probs) == 0) {
			t.Fatalf("Parse and Check disagree: err %v, problems %v", err, probs)
		}
		if len(probs) > 0 && cfg.MaxFileBytes != Default().MaxFileBytes {
			t.Fatal("invalid input changed the configuration")
		}
		for _, p := range probs {
			if p.Message == "" {
				t.Fatalf("problem without a message: %+v", p)
			}
		}
	})
}

// Each switch turns off only itself: the defaults must not share one bool
// the decoder writes through.
func TestSwitchesAreIndependent(t *testing.T) {
	for _, tc := range []struct {
		in                     string
		status, checkRun, hide bool
	}{
		{"", true, true, true},
		{"status:\n  enabled: false\n", false, true, true},
		{"check_run:\n  enabled: false\n", true, false, true},
		{"minimize_outdated: false\n", true, true, false},
	} {
		c, err := Parse([]byte(tc.in), served)
		if err != nil {
			t.Fatal(err)
		}
		if c.StatusEnabled() != tc.status || c.CheckRunEnabled() != tc.checkRun || c.MinimizeOutdatedEnabled() != tc.hide {
			t.Errorf("%q: status %v, check run %v, minimize %v; want %v, %v, %v", tc.in, c.StatusEnabled(),
				c.CheckRunEnabled(), c.MinimizeOutdatedEnabled(), tc.status, tc.checkRun, tc.hide)
		}
		if d := Default(); !d.StatusEnabled() || !d.CheckRunEnabled() || !d.MinimizeOutdatedEnabled() {
			t.Fatalf("parsing %q changed the defaults", tc.in)
		}
	}
}
