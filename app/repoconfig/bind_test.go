package repoconfig

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

func TestBind(t *testing.T) {
	row := func(n int) *checks.Check {
		return &checks.Check{Number: n, Name: checks.T("row", "行"), Run: func(context.Context, *checks.PR) checks.Result { return checks.PassR(checks.T("ok", "好")) }}
	}
	var configured []byte
	own := &checks.Preset{Name: "own", Rows: []*checks.Check{row(0), row(1)},
		Configure: func(pr *checks.PR, file []byte) []checks.ConfigProblem {
			configured = file
			if strings.Contains(string(file), "bad: true") {
				return []checks.ConfigProblem{{Line: 3, Key: "preset_settings.bad", Message: checks.T("bad is bad", "bad 不好")}}
			}
			return nil
		}}
	type depth struct {
		Depth int `yaml:"depth"`
	}
	detected := &checks.Preset{Name: "detected", Rows: []*checks.Check{row(0)},
		Settings: &checks.Settings{
			Default: func() reflect.Value { return reflect.ValueOf(depth{Depth: 1}) },
			Keys:    []checks.SettingKey{{Path: "depth", Doc: "How deep."}},
		},
		Detect: func(ctx context.Context, src checks.Source, ref string, _ []byte) (bool, error) {
			_, err := src.ReadFile(ctx, ref, "MARKER")
			if errors.Is(err, checks.ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		}}
	presets := []*checks.Preset{detected, own}
	tests := []struct {
		name, file string
		marker     bool
		want       string // the chosen preset, or the error
	}{
		{"no file, nothing detected: the fallback", "", false, "own"},
		{"detected", "", true, "detected"},
		{"named beats detection", "preset: own\n", true, "own"},
		{"unknown preset", "signoff_phrase: x\npreset: nope\n", false, `line 2: preset "nope" is not served here (served: detected, own)`},
		{"row the preset lacks", "preset: detected\nchecks:\n  1:\n    disabled: true\n", false, "line 3: checks.1: the detected preset has no row 1"},
		{"settings for a preset without any", "preset: detected\npreset_settings:\n  x: 1\n", false, "line 2: preset_settings: the detected preset takes no settings of its own"},
		{"empty settings are none", "preset: detected\npreset_settings: {}\n", false, "detected"},
		{"the preset's own problems", "preset: own\npreset_settings:\n  bad: true\n", false, "line 3: bad is bad"},
		{"its own key", "depth: 2\n", true, "detected"},
		{"another preset's key", "preset: own\ndepth: 2\n", false, "line 2: depth: the own preset does not take this key"},
		{"another preset's key merged in", "preset: own\n<<: {depth: 2}\n", false, "line 2: depth: the own preset does not take this key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.file), presets)
			if err != nil {
				t.Fatal(err)
			}
			src := &checkstest.Source{}
			if tt.marker {
				src.SetFile("main", "MARKER", "x")
			}
			configured = nil
			p, err := Bind(t.Context(), presets, cfg, &checks.PR{Source: src, DefaultSHA: "main"})
			switch {
			case err != nil:
				var invalid *Error
				if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want an *Error containing %q", err, tt.want)
				}
			case p.Name != tt.want:
				t.Fatalf("chose %s, want %s", p.Name, tt.want)
			case p == own && string(configured) != tt.file:
				t.Fatalf("the preset read %q, want the whole file", configured)
			}
		})
	}
}
