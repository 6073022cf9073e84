package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	memoryBooked = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "verdict_memory_booked_bytes",
		Help: "Bytes of the process's memory budget that running verifications hold (VERDICT_MEMORY_BUDGET).",
	})
	memoryAdmissions = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "verdict_memory_admission_wait_seconds",
		Help:    "How long a verification waited to book memory for a large read; outcome admitted or deferred (retried later).",
		Buckets: []float64{0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30},
	}, []string{"outcome"})
)

// MemoryBooked adds n (negative: gives back) to the booked bytes.
func MemoryBooked(n int64) { memoryBooked.Add(float64(n)) }

// MemoryAdmission records one booking's wait and outcome.
func MemoryAdmission(outcome string, d time.Duration) {
	memoryAdmissions.WithLabelValues(outcome).Observe(d.Seconds())
}
