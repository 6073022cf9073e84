package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// FrameworkAliases maps a row's framework to the name the InferenceX app
// uses in hardware keys (getHardwareKey). Frameworks not listed keep their
// own name.
var FrameworkAliases = map[string]string{
	"atom-disagg": "mooncake-atom",
}

// DisaggHardwareKeys are the `<gpu>_<framework>` keys for which the app keeps
// a separate `-disagg` series; a disaggregated row of any other series pools
// with the aggregated one (RULES.md, Check 14).
var DisaggHardwareKeys = map[string]bool{}

// BenchRow is one benchmark measurement read from a run's artifacts, with
// the fields that decide its app series.
type BenchRow struct {
	ModelPrefix string
	Scenario    string // "8k1k" for fixed-seq, scenario_type for AgentX
	HW          string
	Framework   string
	Precision   string
	Spec        string
	Disagg      bool
	Agentic     bool
	Image       string
	Point       Point
	// Artifact is the artifact the row came from, for evidence.
	Artifact string
}

// HardwareKey is the app's getHardwareKey: the GPU base (hw up to the first
// '-'), the framework alias, `-disagg` where the app keeps such a series, and
// for fixed-seq rows the spec-decoding suffix. AgentX rows carry no spec
// suffix: one AgentX curve mixes MTP and non-MTP points.
func (r BenchRow) HardwareKey() string {
	gpu := strings.ToLower(strings.TrimSpace(r.HW))
	gpu = strings.TrimPrefix(gpu, "cluster:")
	if i := strings.IndexByte(gpu, '-'); i >= 0 {
		gpu = gpu[:i]
	}
	fw := strings.ToLower(r.Framework)
	if a, ok := FrameworkAliases[fw]; ok {
		fw = a
	}
	k := gpu + "_" + fw
	if r.Disagg && DisaggHardwareKeys[k] {
		k += "-disagg"
	}
	if !r.Agentic {
		switch spec := strings.ToLower(r.Spec); spec {
		case "", "none":
		default:
			k += "_" + spec
		}
	}
	return k
}

// Percentile is the latency statistic of the row's curve.
func (r BenchRow) Percentile() string {
	if r.Agentic {
		return "p90"
	}
	return "median"
}

// CurveKey is the app's series key
// `<model-prefix>/<scenario>/<hwKey>/<precision>/<run>/<percentile>`.
// Images, config keys, recipes and agg/disagg topologies of one series share
// a key on purpose.
func (r BenchRow) CurveKey(runID int64) string {
	return fmt.Sprintf("%s/%s/%s/%s/%d/%s", r.ModelPrefix, r.Scenario, r.HardwareKey(),
		strings.ToLower(r.Precision), runID, r.Percentile())
}

// seqScenario names a fixed-seq scenario the way the app does: 8192/1024 is
// 8k1k; lengths that are not whole KiB stay numeric.
func seqScenario(isl, osl string) string {
	f := func(s string) string {
		var n int
		if _, err := fmt.Sscanf(s, "%d", &n); err == nil && n > 0 && n%1024 == 0 && fmt.Sprint(n) == s {
			return fmt.Sprintf("%dk", n/1024)
		}
		return s
	}
	if isl == "" || osl == "" {
		return ""
	}
	return f(isl) + f(osl)
}

// ParseAggBmk parses the fixed-seq aggregate agg_bmk.json (or one per-config
// agg_<name>.json): x = median_e2el seconds, y = tput_per_gpu.
func ParseAggBmk(data []byte) ([]BenchRow, error) {
	rows, err := objects(data)
	if err != nil {
		return nil, fmt.Errorf("parsing benchmark rows: %w", err)
	}
	out := make([]BenchRow, 0, len(rows))
	for _, m := range rows {
		r := benchIdentity(m)
		r.Scenario = seqScenario(asText(m["isl"]), asText(m["osl"]))
		r.Point = pointOf(m, m["median_e2el"], m["tput_per_gpu"])
		out = append(out, r)
	}
	return out, nil
}

// ParseAgenticResult parses one AgentX result file of a bmk_agentic_*
// artifact: x = request_metrics.latency.e2el.p90 seconds, y =
// request_metrics.throughput.per_gpu.total_tput_tps.
func ParseAgenticResult(data []byte) ([]BenchRow, error) {
	rows, err := objects(data)
	if err != nil {
		return nil, fmt.Errorf("parsing agentic result: %w", err)
	}
	out := make([]BenchRow, 0, len(rows))
	for _, m := range rows {
		r := benchIdentity(m)
		r.Agentic = true
		r.Scenario = asText(m["scenario_type"])
		if r.Scenario == "" {
			r.Scenario = "agentic-coding"
		}
		r.Point = pointOf(m,
			dig(m, "request_metrics", "latency", "e2el", "p90"),
			dig(m, "request_metrics", "throughput", "per_gpu", "total_tput_tps"))
		out = append(out, r)
	}
	return out, nil
}

func benchIdentity(m map[string]any) BenchRow {
	r := BenchRow{
		ModelPrefix: asText(m["infmax_model_prefix"]),
		HW:          asText(m["hw"]),
		Framework:   asText(m["framework"]),
		Precision:   asText(m["precision"]),
		Spec:        asText(m["spec_decoding"]),
		Disagg:      asBool(m["disagg"]),
		Image:       asText(m["image"]),
	}
	if r.ModelPrefix == "" {
		r.ModelPrefix = asText(m["model_prefix"])
	}
	return r
}

// pointOf builds a point; the canonical flag is recorded when the key is
// present at all, and counts only when literally true.
func pointOf(m map[string]any, x, y any) Point {
	p := Point{}
	xf, okx := realNumber(x)
	yf, oky := realNumber(y)
	p.X, p.Y, p.OK = xf, yf, okx && oky
	if v, ok := m[FrontierFlagKey]; ok {
		p.HasFlag = true
		p.Flag = v == true
	}
	return p
}

// SeriesComplete reports whether the row names everything its curve key
// needs; a row that does not cannot be placed on any curve.
func (r BenchRow) SeriesComplete() bool {
	return r.ModelPrefix != "" && r.HW != "" && r.Framework != "" && r.Precision != "" && r.Scenario != "" &&
		!strings.Contains(r.ModelPrefix+r.HW+r.Framework+r.Precision+r.Scenario, "/")
}

// OnSeriesOf reports whether the row belongs to a master config's app
// series: same model prefix, precision, GPU, framework and scenario kind.
func (r BenchRow) OnSeriesOf(c *repo.ConfigEntry) bool {
	if !strings.EqualFold(c.ModelPrefix, r.ModelPrefix) || !strings.EqualFold(c.Precision, r.Precision) {
		return false
	}
	if c.Agentic != r.Agentic {
		return false
	}
	cfgRow := BenchRow{HW: c.SKU, Framework: c.Framework, Agentic: true}
	if cfgRow.HW == "" {
		cfgRow.HW = repo.NormalizeSKU(c.Runner)
	}
	rowKey := r
	rowKey.Agentic, rowKey.Disagg = true, false
	cfgRow.Disagg = false
	return cfgRow.HardwareKey() == rowKey.HardwareKey()
}

// OnSeriesOfAny keeps the rows on the series of one of configs (and rows
// that fit no series, which count as unkeyed later); outside counts the
// others.
func OnSeriesOfAny(configs []*repo.ConfigEntry, rows []BenchRow) (kept []BenchRow, outside int) {
	for _, r := range rows {
		if !r.SeriesComplete() || slices.ContainsFunc(configs, r.OnSeriesOf) {
			kept = append(kept, r)
		} else {
			outside++
		}
	}
	return kept, outside
}

// WithoutPoints lists the configs none of the rows lies on the series of,
// each key once.
func WithoutPoints(configs []*repo.ConfigEntry, rows []BenchRow) []*repo.ConfigEntry {
	var out []*repo.ConfigEntry
	seen := map[string]bool{}
	for _, c := range configs {
		if seen[c.Key] || slices.ContainsFunc(rows, func(r BenchRow) bool { return r.OnSeriesOf(c) }) {
			continue
		}
		seen[c.Key] = true
		out = append(out, c)
	}
	return out
}
