// Package metrics holds Verdict's Prometheus metrics. Everything registers
// with the default registry, which GET /metrics serves.
package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	deliveries = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_webhook_deliveries_total",
		Help: "Webhook deliveries by event (one Verdict handles, ping, or other) and outcome (queued, ignored, duplicate, bot, unhandled, bad_signature, too_large, busy, malformed, error).",
	}, []string{"event", "outcome"})

	ackSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "verdict_webhook_ack_seconds",
		Help:    "Time from receiving a webhook to answering it, storage included.",
		Buckets: []float64{.001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	})

	batchSize = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "verdict_queue_commit_batch_size",
		Help:    "Deliveries stored per group-commit transaction.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
	})

	coalesced = promauto.NewCounter(prometheus.CounterOpts{
		Name: "verdict_queue_coalesced_total",
		Help: "Verification requests folded at enqueue into a job of the same sign-off that had not started yet.",
	})

	verifySeconds = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "verdict_verification_duration_seconds",
		Help:    "Duration of one verification (the Verifier call) by outcome (ok, retry, failed).",
		Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300},
	}, []string{"outcome"})

	jobsDone = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_jobs_total",
		Help: "Jobs run by kind and outcome (ok, retry, failed, superseded, busy).",
	}, []string{"kind", "outcome"})

	depthMu sync.Mutex
	depthFn func(context.Context) (int, error)

	_ = promauto.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "verdict_queue_depth",
		Help: "Jobs waiting to run (available, scheduled, retryable).",
	}, queueDepth)
)

// Delivery counts one webhook delivery. event must come from a fixed set
// (the webhook package maps the header onto one): every distinct value is a
// series kept for the life of the process.
func Delivery(event, outcome string) { deliveries.WithLabelValues(event, outcome).Inc() }

// Ack records how long answering a webhook took.
func Ack(d time.Duration) { ackSeconds.Observe(d.Seconds()) }

// CommitBatch records how many deliveries one transaction stored.
func CommitBatch(n int) { batchSize.Observe(float64(n)) }

// Coalesced counts one verification request folded into a pending job.
func Coalesced() { coalesced.Inc() }

// CoalescedCount reads the counter (for tests).
func CoalescedCount() float64 { return metricValue(coalesced) }

// Verification records one verification's duration and outcome.
func Verification(d time.Duration, outcome string) {
	verifySeconds.WithLabelValues(outcome).Observe(d.Seconds())
}

// Job counts one job run.
func Job(kind, outcome string) { jobsDone.WithLabelValues(kind, outcome).Inc() }

// SetQueueDepth installs the function the queue-depth gauge reads on scrape.
func SetQueueDepth(f func(context.Context) (int, error)) {
	depthMu.Lock()
	depthFn = f
	depthMu.Unlock()
}

func queueDepth() float64 {
	depthMu.Lock()
	f := depthFn
	depthMu.Unlock()
	if f == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := f(ctx)
	if err != nil {
		return -1 // a scrape must not fail; -1 says "unknown"
	}
	return float64(n)
}
