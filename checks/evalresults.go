package checks

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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
	Task        string
	Conc        string
	N           int // effective sample count, 0 when unknown
	Metrics     []EvalMetric
	// Invalid says why the row cannot be trusted: infrastructure failure,
	// integration error, a score that is not a finite number in [0,1], or
	// no score at all. Empty for a valid row.
	Invalid string
	Source  string
}

// ParseAggEval parses an aggregate agg_eval_<prefix>.json: an array of rows,
// one per config × concurrency × task (INFERENCEX.md §5.8). Each non-null of
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
			return nil, fmt.Errorf("parsing aggregate eval rows: %w: null row", ErrMalformed)
		}
		r := EvalRow{
			ModelPrefix: jStr(m["model_prefix"]),
			Model:       jStr(m["model"]),
			HW:          jStr(m["hw"]),
			Framework:   jStr(m["framework"]),
			Precision:   jStr(m["precision"]),
			Task:        jStr(m["task"]),
			Conc:        jStr(m["conc"]),
			Source:      jStr(m["source"]),
		}
		if r.ModelPrefix == "" {
			r.ModelPrefix = jStr(m["infmax_model_prefix"])
		}
		if n, ok := jNum(m["n_eff"]); ok {
			r.N = int(n)
		}
		for _, k := range []string{"em_strict", "em_flexible"} {
			if v, ok := m[k]; ok && v != nil {
				r.addMetric(k, v, m[k+"_se"])
			}
		}
		if len(r.Metrics) == 0 && r.Invalid == "" {
			if v, ok := m["score"]; ok && v != nil {
				name := jStr(m["score_name"])
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
	f, ok := jNum(v)
	if !ok || f < 0 || f > 1 {
		if r.Invalid == "" {
			r.Invalid = fmt.Sprintf("%s is not a finite score in [0,1] (%s)", name, jText(v))
		}
		return
	}
	m := EvalMetric{Name: name, Value: f}
	if s, ok := jNum(se); ok {
		m.SE, m.HasSE = s, true
	}
	r.Metrics = append(r.Metrics, m)
}

// checkRow applies the row-level validity rules of the e2e collector.
func (r *EvalRow) checkRow(m map[string]any) {
	if r.Invalid != "" {
		return
	}
	if v, ok := m["infrastructure_success"]; ok && v != nil && !jBool(v) {
		r.Invalid = "infrastructure_success is false"
		return
	}
	if v := m["integration_error"]; v != nil && v != "" && v != false {
		r.Invalid = "integration_error: " + clipText(jText(v), 80)
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
	if m["lm_eval_version"] == nil && jStr(m["result_format"]) != "inferencex-eval-v1" {
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
		r := EvalRow{Task: t, Model: jStr(m["model_name"])}
		if n, ok := jNum(jDig(m, "n-samples", t, "effective")); ok {
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
	Conc        string
	EvalConcs   []int
	Completed   []int
	Failed      []int
	Batched     bool // eval_concs present
}

// ParseMetaEnv parses meta_env.json.
func ParseMetaEnv(data []byte) (MetaEnv, error) {
	var m map[string]any
	if err := decodeArtifactJSON(data, &m); err != nil {
		return MetaEnv{}, fmt.Errorf("parsing meta_env.json: %w", err)
	}
	me := MetaEnv{
		ModelPrefix: jStr(m["infmax_model_prefix"]),
		Model:       jStr(m["model"]),
		HW:          jStr(m["hw"]),
		Framework:   jStr(m["framework"]),
		Precision:   jStr(m["precision"]),
		Conc:        jStr(m["conc"]),
	}
	if me.ModelPrefix == "" {
		me.ModelPrefix = jStr(m["model_prefix"])
	}
	var err error
	if v, ok := m["eval_concs"]; ok && v != nil {
		me.Batched = true
		if me.EvalConcs, err = jInts(v); err != nil {
			return me, fmt.Errorf("parsing meta_env.json eval_concs: %w", err)
		}
		if me.Completed, err = jInts(m["completed_eval_concs"]); err != nil {
			return me, fmt.Errorf("parsing meta_env.json completed_eval_concs: %w", err)
		}
		if me.Failed, err = jInts(m["failed_eval_concs"]); err != nil {
			return me, fmt.Errorf("parsing meta_env.json failed_eval_concs: %w", err)
		}
	}
	return me, nil
}

func jInts(v any) ([]int, error) {
	if v == nil {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: not a list", ErrMalformed)
	}
	out := make([]int, 0, len(a))
	for _, e := range a {
		f, ok := jNum(e)
		if !ok || f != float64(int(f)) {
			return nil, fmt.Errorf("%w: %s is not an integer", ErrMalformed, jText(e))
		}
		out = append(out, int(f))
	}
	return out, nil
}

func jText(v any) string {
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
