package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	recoveryListed = promauto.NewCounter(prometheus.CounterOpts{
		Name: "verdict_webhook_recovery_listed_total",
		Help: "The App's webhook deliveries read by missed-webhook recovery (GET /app/hook/deliveries).",
	})
	recoveryRedelivered = promauto.NewCounter(prometheus.CounterOpts{
		Name: "verdict_webhook_recovery_redelivered_total",
		Help: "Failed deliveries Verdict had not stored that recovery asked GitHub to redeliver.",
	})
	recoveryErrors = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_webhook_recovery_errors_total",
		Help: "Failures of missed-webhook recovery by step (list, lookup, redeliver).",
	}, []string{"step"})
)

// RecoveryListed counts deliveries recovery read.
func RecoveryListed(n int) { recoveryListed.Add(float64(n)) }

// RecoveryRedelivered counts one redelivery asked for.
func RecoveryRedelivered() { recoveryRedelivered.Inc() }

// RecoveryError counts one failed recovery step.
func RecoveryError(step string) { recoveryErrors.WithLabelValues(step).Inc() }
