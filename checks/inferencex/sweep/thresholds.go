package sweep

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// maxThresholdBytes bounds the thresholds file; the real one is a few KiB.
const maxThresholdBytes = 1 << 20

// maxThresholdNodes bounds YAML nodes, alias expansions included.
const maxThresholdNodes = 100_000

// Thresholds are the eval pass bars of utils/evals/thresholds.yaml (legacy,
// YAML) or infx/evals/thresholds.yaml (e2e, JSON with the same shape):
// default per task, and per model-prefix overrides.
type Thresholds struct {
	Default map[string]float64
	Models  map[string]map[string]float64
	// Fallback applies to a task named nowhere (the validator's --min-score).
	Fallback float64
}

// ParseThresholds parses a thresholds file. A mapping without `default` and
// `models` keys is a legacy flat map of task → threshold, read as default.
func ParseThresholds(data []byte, fallback float64) (Thresholds, error) {
	t := Thresholds{Default: map[string]float64{}, Models: map[string]map[string]float64{}, Fallback: fallback}
	if len(data) > maxThresholdBytes {
		return t, fmt.Errorf("parsing thresholds: %d bytes is over the %d-byte cap: %w", len(data), maxThresholdBytes, checks.ErrTooLarge)
	}
	if err := yamlx.CheckDepth(string(data)); err != nil {
		return t, fmt.Errorf("parsing thresholds: %w: %v", checks.ErrMalformed, err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return t, fmt.Errorf("parsing thresholds: %w: %v", checks.ErrMalformed, err)
	}
	budget := maxThresholdNodes
	if !thresholdNodesWithin(&n, &budget, 0) {
		return t, fmt.Errorf("parsing thresholds: %w: too many nodes or aliases too deep", checks.ErrMalformed)
	}
	var raw map[string]any
	if err := n.Decode(&raw); err != nil {
		return t, fmt.Errorf("parsing thresholds: %w: expected a mapping: %v", checks.ErrMalformed, err)
	}
	_, hasDefault := raw["default"]
	_, hasModels := raw["models"]
	if !hasDefault && !hasModels {
		raw = map[string]any{"default": raw}
	}
	if err := thresholdTable(raw["default"], "default", t.Default); err != nil {
		return t, err
	}
	if v := raw["models"]; v != nil {
		ms, ok := v.(map[string]any)
		if !ok {
			return t, fmt.Errorf("parsing thresholds: %w: models is not a mapping", checks.ErrMalformed)
		}
		for prefix, tv := range ms {
			t.Models[prefix] = map[string]float64{}
			if err := thresholdTable(tv, "models."+prefix, t.Models[prefix]); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}

func thresholdTable(v any, where string, into map[string]float64) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("parsing thresholds: %w: %s is not a mapping", checks.ErrMalformed, where)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var f float64
		switch x := m[k].(type) {
		case int:
			f = float64(x)
		case float64:
			f = x
		default:
			return fmt.Errorf("parsing thresholds: %w: %s.%s is not a number", checks.ErrMalformed, where, k)
		}
		if f != f || f < 0 || f > 1 {
			return fmt.Errorf("parsing thresholds: %w: %s.%s = %v is outside [0,1]", checks.ErrMalformed, where, k, f)
		}
		into[k] = f
	}
	return nil
}

func thresholdNodesWithin(n *yaml.Node, budget *int, depth int) bool {
	*budget--
	if *budget < 0 || depth > 64 {
		return false
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return thresholdNodesWithin(n.Alias, budget, depth+1)
	}
	for _, c := range n.Content {
		if !thresholdNodesWithin(c, budget, depth+1) {
			return false
		}
	}
	return true
}

// For returns the threshold of (model prefix, task) and where it came from:
// the model override, then the default, then the fallback.
func (t Thresholds) For(prefix, task string) (float64, string) {
	if v, ok := t.Models[prefix][task]; ok {
		return v, "models." + prefix + "." + task
	}
	if v, ok := t.Default[task]; ok {
		return v, "default." + task
	}
	return t.Fallback, "fallback"
}

// Score is one metric of one eval row against its bar.
type Score struct {
	Row    EvalRow
	Metric EvalMetric
	Bar    float64
	// From says where the bar came from (models.<prefix>.<task>,
	// default.<task> or fallback).
	From string
}

// Score holds every metric of every row against its bar, in row order.
func (t Thresholds) Score(rows []EvalRow) []Score {
	var out []Score
	for _, r := range rows {
		bar, from := t.For(r.ModelPrefix, r.Task)
		for _, m := range r.Metrics {
			out = append(out, Score{Row: r, Metric: m, Bar: bar, From: from})
		}
	}
	return out
}

// Margin is how far the score lies above its bar (negative below it).
func (s Score) Margin() float64 { return s.Metric.Value - s.Bar }

// Text renders `gsm8k em_strict 0.953 ± 0.006 (n=1319)`, with enough digits
// that the printed value compares with the printed bar as the real value
// does.
func (s Score) Text() string {
	v := scoreDigits(s.Metric.Value, s.Bar)
	if s.Metric.HasSE {
		v += " ± " + strconv.FormatFloat(s.Metric.SE, 'f', 3, 64)
	}
	if s.Row.N > 0 {
		v += fmt.Sprintf(" (n=%d)", s.Row.N)
	}
	return s.Row.Task + " " + s.Metric.Name + " " + v
}

// scoreDigits prints v with the fewest digits (at least three) that keep its
// order against bar.
func scoreDigits(v, bar float64) string {
	for d := 3; d < 10; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		p, _ := strconv.ParseFloat(s, 64)
		if (p < bar) == (v < bar) && (p == bar) == (v == bar) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// FormatNumber prints a bar or threshold as written: no trailing zeros.
func FormatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// LoadThresholds reads the thresholds file of layout l on the default
// branch (RULES.md, Check 2). A missing
// file leaves every task on the configured fallback, as the validator's
// --min-score does; an unreadable or malformed one cannot be trusted.
func LoadThresholds(ctx context.Context, pr *checks.PR, l repo.Layout) (Thresholds, checks.Evidence, *checks.Result) {
	fallback := repo.SettingsParam.Get(pr).DefaultEvalThreshold
	if fallback <= 0 {
		fallback = repo.Defaults().DefaultEvalThreshold
	}
	p := l.Thresholds
	data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, p)
	if errors.Is(err, checks.ErrNotFound) {
		th, _ := ParseThresholds([]byte("{}"), fallback)
		return th, checks.Evidence{Label: "thresholds", Value: fmt.Sprintf("%s absent at %s; fallback %s", p, checks.Short(pr.DefaultSHA), FormatNumber(fallback))}, nil
	}
	if err != nil {
		r := checks.Unverified(checks.T(fmt.Sprintf("could not read %s at %s: %v", p, checks.Short(pr.DefaultSHA), err),
			fmt.Sprintf("无法读取 %s（%s）：%s", p, checks.Short(pr.DefaultSHA), checks.Code(err.Error()))))
		return Thresholds{}, checks.Evidence{}, &r
	}
	th, err := ParseThresholds(data, fallback)
	if err != nil {
		r := checks.Unverified(checks.T(fmt.Sprintf("%s at %s: %v", p, checks.Short(pr.DefaultSHA), err),
			fmt.Sprintf("%s（%s）：%s", p, checks.Short(pr.DefaultSHA), checks.Code(err.Error()))))
		return Thresholds{}, checks.Evidence{}, &r
	}
	return th, checks.Evidence{Label: "thresholds", Value: p + "@" + checks.Short(pr.DefaultSHA)}, nil
}
