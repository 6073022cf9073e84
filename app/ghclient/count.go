package ghclient

import (
	"context"
	"sync/atomic"
)

// Calls counts the GitHub requests sent on behalf of one piece of work (a
// verification), retries included: the audit trail records what a verdict
// cost, which the process-wide metrics cannot tell apart.
type Calls struct{ n atomic.Int64 }

// Count is the number of requests sent so far.
func (c *Calls) Count() int { return int(c.n.Load()) }

type callsKey struct{}

// CountCalls returns a context under which every request the retrying
// transport sends is counted in the returned Calls.
func CountCalls(ctx context.Context) (context.Context, *Calls) {
	c := &Calls{}
	return context.WithValue(ctx, callsKey{}, c), c
}

func countCall(ctx context.Context) {
	if c, ok := ctx.Value(callsKey{}).(*Calls); ok {
		c.n.Add(1)
	}
}
