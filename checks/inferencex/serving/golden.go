package serving

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Golden acceptance-length curves (RULES.md, Check 11): one YAML file per
// curve stem, exactly one top-level key naming the measured model, then
// thinking mode, then num_speculative_tokens → AL.

// maxCurveBytes bounds a golden file; real curves are a few hundred bytes.
const maxCurveBytes = 256 << 10

// Curve is a parsed golden AL file.
type Curve struct {
	// Model is the measured model (the file's only top-level key).
	Model string
	// Modes maps thinking_on / thinking_off to draft length → AL.
	Modes map[string]map[int]float64
}

// Value returns the golden AL for mode and draft length n.
func (c Curve) Value(mode string, n int) (float64, bool) {
	v, ok := c.Modes[mode][n]
	return v, ok
}

// ParseCurve parses a golden AL file. It refuses anything that is not the
// documented shape: aliases, more than one model, non-integer draft lengths,
// non-finite values or values outside [1, n+1].
func ParseCurve(data []byte) (Curve, error) {
	var c Curve
	if len(data) > maxCurveBytes {
		return c, fmt.Errorf("golden AL file is %d bytes, over the %d-byte cap: %w", len(data), maxCurveBytes, checks.ErrTooLarge)
	}
	if err := yamlx.CheckDepth(string(data)); err != nil {
		return c, err
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return c, fmt.Errorf("parsing golden AL YAML: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return c, errors.New("golden AL file holds more than one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return c, errors.New("golden AL file is empty")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return c, errors.New("golden AL file is not a mapping")
	}
	if len(root.Content) != 2 {
		return c, fmt.Errorf("golden AL file must have exactly one top-level key (the measured model), found %d", len(root.Content)/2)
	}
	if err := noAlias(root, 0); err != nil {
		return c, err
	}
	c.Model = root.Content[0].Value
	if strings.TrimSpace(c.Model) == "" {
		return c, errors.New("golden AL file has an empty model key")
	}
	modes := root.Content[1]
	if modes.Kind != yaml.MappingNode || len(modes.Content) == 0 {
		return c, fmt.Errorf("golden AL model %q has no thinking modes", c.Model)
	}
	c.Modes = map[string]map[int]float64{}
	for i := 0; i+1 < len(modes.Content); i += 2 {
		mode := modes.Content[i].Value
		if mode != "thinking_on" && mode != "thinking_off" {
			return c, fmt.Errorf("golden AL model %q: unknown thinking mode %q", c.Model, mode)
		}
		if _, dup := c.Modes[mode]; dup {
			return c, fmt.Errorf("golden AL model %q: duplicate thinking mode %q", c.Model, mode)
		}
		tbl := modes.Content[i+1]
		if tbl.Kind != yaml.MappingNode || len(tbl.Content) == 0 {
			return c, fmt.Errorf("golden AL %s is not a draft-length table", mode)
		}
		vals := map[int]float64{}
		for j := 0; j+1 < len(tbl.Content); j += 2 {
			kn, vn := tbl.Content[j], tbl.Content[j+1]
			n, err := strconv.Atoi(kn.Value)
			if err != nil || kn.Kind != yaml.ScalarNode || n < 1 || n > 64 {
				return c, fmt.Errorf("golden AL %s: draft length %q is not an integer in 1..64", mode, kn.Value)
			}
			if _, dup := vals[n]; dup {
				return c, fmt.Errorf("golden AL %s: duplicate draft length %d", mode, n)
			}
			f, err := strconv.ParseFloat(vn.Value, 64)
			if vn.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return c, fmt.Errorf("golden AL %s[%d]: %q is not a finite number", mode, n, vn.Value)
			}
			if f < 1 || f > float64(n+1) {
				return c, fmt.Errorf("golden AL %s[%d] = %g is outside [1, %d]", mode, n, f, n+1)
			}
			vals[n] = f
		}
		c.Modes[mode] = vals
	}
	return c, nil
}

func noAlias(n *yaml.Node, depth int) error {
	if depth > 8 {
		return errors.New("golden AL file is nested too deeply")
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return errors.New("golden AL file uses YAML anchors or aliases")
	}
	for _, c := range n.Content {
		if err := noAlias(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// stemRE keeps a curve stem a plain file name: it is built from PR-controlled
// master fields and must never walk out of the golden folder.
var stemRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$`)

// CurveStem selects the golden curve file stem for a model prefix and
// speculative method, following the e2e golden module's curve_name rules.
func CurveStem(prefix, method, draftPath, draftSample string) (string, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	m := strings.ToLower(strings.TrimSpace(method))
	if prefix == "" {
		return "", errors.New("config has no model-prefix")
	}
	if m == "" || m == "none" {
		return "", errors.New("speculative method is not set")
	}
	// The model's own head: SGLang EAGLE/NEXTN and *_mtp method names.
	switch {
	case m == "eagle" || m == "nextn":
		if prefix == "minimaxm3" {
			m = "eagle3"
		} else {
			m = "mtp"
		}
	case strings.HasSuffix(m, "_mtp") || strings.HasSuffix(m, "-mtp"):
		m = "mtp"
	}
	var stem string
	switch {
	case m == "dspark" && (prefix == "dsv4" || prefix == "dsv4dspark" || prefix == "dsv4dsparkprob"):
		stem = "dsv4-pro-0813-dspark"
	case m == "eagle3" && namesGQA(draftPath):
		// An EAGLE3 draft of the grouped-query-attention variant has its
		// own curve.
		stem = prefix + "_eagle3_gqa"
	case prefix == "kimik3" && m == "dspark":
		switch strings.ToLower(strings.TrimSpace(draftSample)) {
		case "probabilistic":
			stem = "kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method"
		case "greedy":
			stem = "kimik3_dspark"
		default:
			return "", fmt.Errorf("kimik3 dspark needs draft_sample_method probabilistic or greedy, got %q", draftSample)
		}
	default:
		stem = prefix + "_" + m
	}
	if !stemRE.MatchString(stem) || strings.Contains(stem, "..") {
		return "", fmt.Errorf("curve name %q is not a plain file name", stem)
	}
	return stem, nil
}

// namesGQA reports whether a draft path names the GQA variant as a word
// ("Inferact/MiniMax-M3-EAGLE3-GQA", ".../eagle3_gqa").
func namesGQA(draftPath string) bool {
	for _, w := range words(draftPath, false) {
		if w == "gqa" {
			return true
		}
	}
	return false
}

// MethodLabel is the method as the PASS reason prints it (MTP, EAGLE3, DSpark).
func MethodLabel(stem, prefix string) string {
	m := strings.TrimPrefix(stem, strings.ToLower(prefix)+"_")
	switch {
	case strings.Contains(stem, "dspark"):
		return "DSpark"
	case strings.HasPrefix(m, "eagle3"):
		return "EAGLE3"
	}
	return strings.ToUpper(m)
}

// ThroughLauncher reports whether the config runs through the e2e SRT
// launcher (an srt-recipe or CONFIG_FILE recipe), which injects the golden AL
// for agentic spec-decode throughput runs.
func ThroughLauncher(c *repo.ConfigEntry) bool {
	for _, sc := range c.Scenarios {
		for _, ss := range sc.Search {
			if ss.SrtRecipe != "" || len(ss.ConfigFiles) > 0 {
				return true
			}
		}
	}
	return false
}

// MasterThinkingOff reports whether the master entry's scenario or search
// space configures thinking off (a thinking* field set to thinking_off or a
// false value).
func MasterThinkingOff(c *repo.ConfigEntry) bool {
	off := func(m map[string]any) bool {
		for k, v := range m {
			if !strings.Contains(strings.ToLower(k), "thinking") {
				continue
			}
			switch strings.ToLower(fmt.Sprint(v)) {
			case "thinking_off", "off", "false", "0", "disabled":
				return true
			}
		}
		return false
	}
	for _, sc := range c.Scenarios {
		if off(sc.Fields.Map()) {
			return true
		}
		for _, ss := range sc.Search {
			if off(ss.Fields.Map()) {
				return true
			}
		}
	}
	return false
}
