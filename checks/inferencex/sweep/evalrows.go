package sweep

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// EvalMetric is one score an eval row must meet the threshold with.
type EvalMetric struct {
	Name  string // em_strict, em_flexible, score or exact_match,<filter>
	Value float64
	SE    float64
	HasSE bool
}

// EvalRow is one (config, concurrency, task) eval result, from an aggregate
// row of agg_eval_*.json or from a task of an lm-eval results*.json.
type EvalRow struct {
	ModelPrefix string
	Model       string
	HW          string
	Framework   string
	Precision   string
	// SpecDecoding is the row's spec-decoding method ("none" without a
	// draft), "" when the artifact does not say.
	SpecDecoding string
	Task         string
	Conc         string
	N            int // effective sample count, 0 when unknown
	Metrics      []EvalMetric
	// Invalid says why the row cannot be trusted: infrastructure failure,
	// integration error, a score that is not a finite number in [0,1], or
	// no score at all. Empty for a valid row.
	Invalid string
	Source  string
}

// ParseAggEval parses an aggregate agg_eval_<prefix>.json: an array of rows,
// one per config × concurrency × task. Each non-null of
// em_strict and em_flexible is a metric; score counts only when neither
// exists (accuracy- or resolved-scored tasks).
func ParseAggEval(data []byte) ([]EvalRow, error) {
	var raw []map[string]any
	if err := decodeArtifactJSON(data, &raw); err != nil {
		return nil, fmt.Errorf("parsing aggregate eval rows: %w", err)
	}
	rows := make([]EvalRow, 0, len(raw))
	for _, m := range raw {
		if m == nil {
			return nil, fmt.Errorf("parsing aggregate eval rows: %w: null row", checks.ErrMalformed)
		}
		r := EvalRow{
			ModelPrefix: asText(m["model_prefix"]),
			Model:       asText(m["model"]),
			HW:          asText(m["hw"]),
			Framework:   asText(m["framework"]),
			Precision:   asText(m["precision"]),
			Task:        asText(m["task"]),
			Conc:        asText(m["conc"]),
			Source:      asText(m["source"]),
		}
		r.SpecDecoding = specText(m["spec_decoding"])
		if r.ModelPrefix == "" {
			r.ModelPrefix = asText(m["infmax_model_prefix"])
		}
		if n, ok := realNumber(m["n_eff"]); ok {
			r.N = int(n)
		}
		for _, k := range []string{"em_strict", "em_flexible"} {
			if v, ok := m[k]; ok && v != nil {
				r.addMetric(k, v, m[k+"_se"])
			}
		}
		if len(r.Metrics) == 0 && r.Invalid == "" {
			if v, ok := m["score"]; ok && v != nil {
				name := asText(m["score_name"])
				if name == "" {
					name = "score"
				}
				r.addMetric(name, v, m["score_se"])
			}
		}
		r.checkRow(m)
		rows = append(rows, r)
	}
	return rows, nil
}

func (r *EvalRow) addMetric(name string, v, se any) {
	f, ok := realNumber(v)
	if !ok || f < 0 || f > 1 {
		if r.Invalid == "" {
			r.Invalid = fmt.Sprintf("%s is not a finite score in [0,1] (%s)", name, jsonText(v))
		}
		return
	}
	m := EvalMetric{Name: name, Value: f}
	if s, ok := realNumber(se); ok {
		m.SE, m.HasSE = s, true
	}
	r.Metrics = append(r.Metrics, m)
}

// checkRow applies the row-level validity rules of the e2e collector.
func (r *EvalRow) checkRow(m map[string]any) {
	if r.Invalid != "" {
		return
	}
	if v, ok := m["infrastructure_success"]; ok && v != nil && !asBool(v) {
		r.Invalid = "infrastructure_success is false"
		return
	}
	if v := m["integration_error"]; v != nil && v != "" && v != false {
		r.Invalid = "integration_error: " + clipText(jsonText(v), 80)
		return
	}
	if len(r.Metrics) == 0 {
		r.Invalid = "no score"
	}
}

// ParseLMEvalResult parses one lm-eval results*.json. ok is false when the
// file is not a result file (neither lm_eval_version nor result_format
// inferencex-eval-v1). Every metric named exact_match,<filter> (stderr
// excluded) of every task is a metric, as validate_scores.py checks them;
// tasks without one are not scored rows.
func ParseLMEvalResult(data []byte) (rows []EvalRow, ok bool, err error) {
	var m map[string]any
	if err := decodeArtifactJSON(data, &m); err != nil {
		return nil, false, fmt.Errorf("parsing lm-eval results: %w", err)
	}
	if m["lm_eval_version"] == nil && asText(m["result_format"]) != "inferencex-eval-v1" {
		return nil, false, nil
	}
	res, _ := m["results"].(map[string]any)
	tasks := make([]string, 0, len(res))
	for t := range res {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	for _, t := range tasks {
		tm, _ := res[t].(map[string]any)
		names := make([]string, 0, len(tm))
		for k := range tm {
			if strings.HasPrefix(k, "exact_match,") && !strings.Contains(k, "stderr") {
				names = append(names, k)
			}
		}
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		r := EvalRow{Task: t, Model: asText(m["model_name"])}
		if n, ok := realNumber(dig(m, "n-samples", t, "effective")); ok {
			r.N = int(n)
		}
		for _, k := range names {
			r.addMetric(k, tm[k], tm[strings.Replace(k, "exact_match,", "exact_match_stderr,", 1)])
		}
		if r.Invalid == "" && len(r.Metrics) == 0 {
			r.Invalid = "no score"
		}
		rows = append(rows, r)
	}
	return rows, true, nil
}

// MetaEnv is the part of an eval job's meta_env.json the checks use.
type MetaEnv struct {
	ModelPrefix string
	Model       string
	HW          string
	Framework   string
	Precision   string
	// SpecDecoding is as in EvalRow.
	SpecDecoding string
	Conc         string
	EvalConcs    []int
	Completed    []int
	Failed       []int
	Batched      bool // eval_concs present
}

// ParseMetaEnv parses meta_env.json.
func ParseMetaEnv(data []byte) (MetaEnv, error) {
	var m map[string]any
	if err := decodeArtifactJSON(data, &m); err != nil {
		return MetaEnv{}, fmt.Errorf("parsing meta_env.json: %w", err)
	}
	me := MetaEnv{
		ModelPrefix: asText(m["infmax_model_prefix"]),
		Model:       asText(m["model"]),
		HW:          asText(m["hw"]),
		Framework:   asText(m["framework"]),
		Precision:   asText(m["precision"]),
		Conc:        asText(m["conc"]),
	}
	if me.ModelPrefix == "" {
		me.ModelPrefix = asText(m["model_prefix"])
	}
	me.SpecDecoding = specText(m["spec_decoding"])
	var err error
	if v, ok := m["eval_concs"]; ok && v != nil {
		me.Batched = true
		if me.EvalConcs, err = intList(v); err != nil {
			return me, fmt.Errorf("parsing meta_env.json eval_concs: %w", err)
		}
		if me.Completed, err = intList(m["completed_eval_concs"]); err != nil {
			return me, fmt.Errorf("parsing meta_env.json completed_eval_concs: %w", err)
		}
		if me.Failed, err = intList(m["failed_eval_concs"]); err != nil {
			return me, fmt.Errorf("parsing meta_env.json failed_eval_concs: %w", err)
		}
	}
	return me, nil
}

// specText is a spec-decoding value, lowercased; the collector's "unknown"
// placeholder is "" (not said).
func specText(v any) string {
	s := strings.ToLower(strings.TrimSpace(asText(v)))
	if s == "unknown" {
		return ""
	}
	return s
}

func intList(v any) ([]int, error) {
	if v == nil {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: not a list", checks.ErrMalformed)
	}
	out := make([]int, 0, len(a))
	for _, e := range a {
		f, ok := realNumber(e)
		if !ok || f != float64(int(f)) {
			return nil, fmt.Errorf("%w: %s is not an integer", checks.ErrMalformed, jsonText(e))
		}
		out = append(out, int(f))
	}
	return out, nil
}

func jsonText(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Label names the row's config: model prefix, then hardware, framework,
// precision and concurrency when known.
func (r EvalRow) Label() string {
	parts := []string{r.ModelPrefix}
	if r.ModelPrefix == "" {
		parts[0] = r.Model
	}
	for _, p := range []string{strings.ToLower(r.HW), r.Framework, r.Precision} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if r.Conc != "" {
		parts = append(parts, "c"+r.Conc)
	}
	return strings.Join(parts, " ")
}

// SortEvalRows orders rows by model prefix, task, hardware, framework,
// precision, concurrency and source.
func SortEvalRows(rows []EvalRow) {
	key := func(r EvalRow) string {
		return strings.Join([]string{r.ModelPrefix, r.Task, r.HW, r.Framework, r.Precision, fmt.Sprintf("%012s", r.Conc), r.Source}, "\x00")
	}
	sort.SliceStable(rows, func(i, j int) bool { return key(rows[i]) < key(rows[j]) })
}
