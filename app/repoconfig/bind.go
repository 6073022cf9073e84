package repoconfig

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
)

// Bind chooses the preset pr is verified with among presets (the
// configuration's preset key, else detection on the default branch) and
// lets it read its own settings onto pr. A preset that is not served,
// per-row switches for rows the preset does not have, settings given to a
// preset that takes none and the preset's own problems make an *Error (as
// Parse's, wrapped with the file's path); anything else that stops the
// choice (a detection read) is returned as it is.
func Bind(ctx context.Context, presets []*checks.Preset, cfg Config, pr *checks.PR) (*checks.Preset, error) {
	p, err := checks.Choose(ctx, presets, cfg.Preset, pr.Source, pr.DefaultSHA, cfg.file)
	var unknown *checks.UnknownPresetError
	if errors.As(err, &unknown) {
		line := keyLine(cfg.file, "preset")
		return nil, invalid([]Problem{problem(line, 0, "preset", msg("%v", "%v", err))})
	}
	if err != nil {
		return nil, err
	}
	if probs := CheckFor(p, cfg, pr); len(probs) > 0 {
		return nil, invalid(probs)
	}
	return p, nil
}

// CheckFor validates cfg against preset p: keys of another preset,
// per-row switches for rows p does not have, settings given to a preset
// that takes none, and p's own problems with its settings, which it reads
// onto pr (a scratch PR when only validating).
func CheckFor(p *checks.Preset, cfg Config, pr *checks.PR) []Problem {
	var probs []Problem
	for _, k := range cfg.presetKeys {
		if k.Preset != p.Name {
			probs = append(probs, problem(k.Line, k.Column, k.Key, msg(
				"%s: the %s preset does not take this key", "%s：%s 预设不使用此键", k.Key, p.Name)))
		}
	}
	var absent []int
	for n := range cfg.Checks {
		if _, ok := p.Row(n); !ok {
			absent = append(absent, n)
		}
	}
	sort.Ints(absent)
	for _, n := range absent {
		key := fmt.Sprintf("checks.%d", n)
		probs = append(probs, problem(keyLine(cfg.file, "checks", fmt.Sprint(n)), 0, key,
			msg("%s: the %s preset has no row %d", "%s：%s 预设没有第 %d 行", key, p.Name, n)))
	}
	switch {
	case p.Configure != nil:
		for _, cp := range p.Configure(pr, cfg.file) {
			probs = append(probs, Problem{Line: cp.Line, Key: cp.Key, Message: cp.Message.EN, MessageZH: cp.Message.ZH})
		}
	case cfg.hasPresetSettings():
		probs = append(probs, problem(keyLine(cfg.file, "preset_settings"), 0, "preset_settings",
			msg("preset_settings: the %s preset takes no settings of its own", "preset_settings：%s 预设没有自己的设置", p.Name)))
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })
	return probs
}

// hasPresetSettings reports a preset_settings section with something in it:
// an empty mapping or null sets nothing.
func (c Config) hasPresetSettings() bool {
	n := c.PresetSettings
	switch {
	case n.Kind == 0:
		return false
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return false
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return false
	}
	return true
}

func invalid(probs []Problem) error {
	return fmt.Errorf("%s: %w", Path, &Error{Problems: probs})
}

// keyLine is the line of the key at path in file, 0 when it is not there.
// The file already passed Check, so it parses.
func keyLine(file []byte, path ...string) int {
	var doc yaml.Node
	if yaml.Unmarshal(file, &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	n, line := doc.Content[0], 0
	for _, k := range path {
		found := false
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}
