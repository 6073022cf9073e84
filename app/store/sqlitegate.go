package store

import (
	"context"
	"slices"
	"sync"
)

// On SQLite, intake commits on a connection of its own instead of queueing
// for the one River's producers, completer and workers share: database/sql
// hands a released connection to a random waiter, so an intake batch could
// wait behind several of River's transactions (its completer's take tens
// of milliseconds), which put hundreds of milliseconds into intake's p99
// at 1,000 deliveries/s. SQLite still takes one writer at a time, and a
// connection finding the database locked sleeps in its busy handler
// (1, 2, 5, 10 … ms) or, in a transaction that read first, fails. So the
// process's writing connections take turns through a gate instead: one
// holds it for each transaction or statement outside one, and intake,
// when it waits, goes next. Intake thus waits for at most the one
// transaction of River's in progress.

// gate is a lock whose urgent waiters go before the others; among equals,
// first come, first served.
type gate struct {
	mu      sync.Mutex
	held    bool
	urgent  []chan struct{}
	waiting []chan struct{}
}

func (g *gate) lock(ctx context.Context, urgent bool) error {
	g.mu.Lock()
	if !g.held {
		g.held = true
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	if urgent {
		g.urgent = append(g.urgent, ch)
	} else {
		g.waiting = append(g.waiting, ch)
	}
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		n := len(g.urgent) + len(g.waiting)
		g.urgent = slices.DeleteFunc(g.urgent, func(c chan struct{}) bool { return c == ch })
		g.waiting = slices.DeleteFunc(g.waiting, func(c chan struct{}) bool { return c == ch })
		removed := len(g.urgent)+len(g.waiting) < n
		g.mu.Unlock()
		if !removed {
			// Handed the gate as ctx ended: pass it on.
			g.unlock()
		}
		return ctx.Err()
	}
}

// unlock hands the gate to the next waiter, urgent ones first.
func (g *gate) unlock() {
	g.mu.Lock()
	defer g.mu.Unlock()
	var next chan struct{}
	switch {
	case len(g.urgent) > 0:
		next, g.urgent = g.urgent[0], g.urgent[1:]
	case len(g.waiting) > 0:
		next, g.waiting = g.waiting[0], g.waiting[1:]
	default:
		g.held = false
		return
	}
	close(next)
}
