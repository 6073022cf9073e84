package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	dto "github.com/prometheus/client_model/go"
)

var (
	apiCalls = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_github_api_calls_total",
		Help: "GitHub API requests by method, endpoint template (numbers and names replaced, e.g. /repos/:owner/:repo/pulls/:n) and status (HTTP code or \"error\" for transport failures).",
	}, []string{"method", "endpoint", "status"})

	apiSeconds = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "verdict_github_api_request_seconds",
		Help:    "Duration of one GitHub API attempt by method and endpoint template.",
		Buckets: []float64{.025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"method", "endpoint"})

	apiNotModified = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_github_api_not_modified_total",
		Help: "Conditional GitHub API requests answered 304 Not Modified (not counted against the rate limit; also in verdict_github_api_calls_total with status 304), by method and endpoint template.",
	}, []string{"method", "endpoint"})

	apiRetries = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_github_api_retries_total",
		Help: "GitHub API retries by reason (server_error, network, timeout, rate_limit, secondary_limit).",
	}, []string{"reason"})

	writeWaits = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "verdict_github_write_wait_seconds",
		Help:    "How long a content-creating GitHub request waited for its installation's write budget (only requests that waited).",
		Buckets: []float64{.1, .5, 1, 5, 15, 30, 60, 120, 300},
	})

	rateRemaining = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "verdict_github_rate_limit_remaining",
		Help: "X-RateLimit-Remaining of the latest GitHub response, by rate-limit resource (core, search, ...).",
	}, []string{"resource"})
)

// WriteWait records a content-creating request that waited d for its
// installation's write budget.
func WriteWait(d time.Duration) { writeWaits.Observe(d.Seconds()) }

// APICall records one GitHub API attempt. status is the HTTP status, or 0
// when no response arrived.
func APICall(method, endpoint string, status int, d time.Duration) {
	s := "error"
	if status > 0 {
		s = strconv.Itoa(status)
	}
	apiCalls.WithLabelValues(method, endpoint, s).Inc()
	apiSeconds.WithLabelValues(method, endpoint).Observe(d.Seconds())
}

// NotModified counts one conditional request GitHub answered 304.
func NotModified(method, endpoint string) { apiNotModified.WithLabelValues(method, endpoint).Inc() }

// NotModifiedCount reads the 304 counter (for tests).
func NotModifiedCount(method, endpoint string) float64 {
	return metricValue(apiNotModified.WithLabelValues(method, endpoint))
}

// APIRetry counts one retry of a GitHub API request.
func APIRetry(reason string) { apiRetries.WithLabelValues(reason).Inc() }

// RateLimitRemaining records the remaining GitHub rate-limit budget.
func RateLimitRemaining(resource string, remaining int) {
	if resource == "" {
		resource = "core"
	}
	rateRemaining.WithLabelValues(resource).Set(float64(remaining))
}

// APICallCount reads the call counter (for tests).
func APICallCount(method, endpoint, status string) float64 {
	return metricValue(apiCalls.WithLabelValues(method, endpoint, status))
}

// RateLimitRemainingValue reads the gauge (for tests).
func RateLimitRemainingValue(resource string) float64 {
	return metricValue(rateRemaining.WithLabelValues(resource))
}

func metricValue(m prometheus.Metric) float64 {
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		return 0
	}
	if c := out.GetCounter(); c != nil {
		return c.GetValue()
	}
	return out.GetGauge().GetValue()
}

var rateBudgetDeferred = promauto.NewCounter(prometheus.CounterOpts{
	Name: "verdict_rate_budget_deferred_total",
	Help: "Verifications put off until their installation's rate limit resets, because what was left would not cover one.",
})

// RateBudgetDeferred counts a verification put off for its installation's
// rate limit.
func RateBudgetDeferred() { rateBudgetDeferred.Inc() }
