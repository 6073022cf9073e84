package repoconfig

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "empty is defaults", in: "", check: func(t *testing.T, c Config) {
			if c.ParetoMinimum != 5 || !c.StatusEnabled() || c.Status.Context != "codeowner-signoff-verify" {
				t.Errorf("defaults not applied: %+v", c)
			}
		}},
		{name: "override", in: "pareto_minimum: 7\ncore_team: '@InferenceX/core'\nstatus:\n  enabled: false\n", check: func(t *testing.T, c Config) {
			if c.ParetoMinimum != 7 || c.CoreTeam != "@InferenceX/core" || c.StatusEnabled() {
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
		{name: "unknown key", in: "paretominimum: 3\n", wantErr: "line 1: unknown key paretominimum"},
		{name: "bad warn_as", in: "status:\n  warn_as: maybe\n", wantErr: "warn_as"},
		{name: "malformed", in: "pareto_minimum: [\n", wantErr: "parsing .github/verdict.yml"},
		{name: "no such check", in: "checks:\n  16:\n    disabled: true\n", wantErr: "no check 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
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

func FuzzParse(f *testing.F) {
	f.Add([]byte("pareto_minimum: 3\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Parse(b)
	})
}
