package queue

import (
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// Backoff is River's retry schedule in units of Unit: the n-th retry waits
// n⁴ units plus up to 10% jitter (with a 1s unit: 1s, 16s, 81s, …, about
// three hours over ten attempts, enough to outlast most GitHub incidents).
type Backoff struct {
	Unit time.Duration
}

// NextRetry implements river.ClientRetryPolicy.
func (b Backoff) NextRetry(job *rivertype.JobRow) time.Time {
	n := time.Duration(max(job.Attempt, 1))
	d := n * n * n * n * b.Unit
	return time.Now().Add(d + rand.N(d/10+1))
}
