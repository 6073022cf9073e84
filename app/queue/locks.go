package queue

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A per-PR lock must die with its holder: a job of a killed process is
// resumed within seconds (see rescue.go) and must not then wait for a lease
// to expire. SQLite serves one process, so an in-memory lock does it. On
// PostgreSQL the lock is a session-level advisory lock on a connection held
// for the job: when the process dies, its connections close and PostgreSQL
// releases the lock at once.

// prLock is a held per-PR lock. lost is closed if the lock may have gone
// (its connection broke) while the job still runs.
type prLock interface {
	lost() <-chan struct{}
	release()
}

// locker takes per-PR locks without waiting.
type locker interface {
	tryLock(ctx context.Context, key string) (prLock, bool, error)
}

// memLocks is a set of held keys (SQLite: one process).
type memLocks struct {
	mu   sync.Mutex
	held map[string]bool
}

type memLock struct {
	l   *memLocks
	key string
}

func (l *memLocks) tryLock(_ context.Context, key string) (prLock, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[key] {
		return nil, false, nil
	}
	if l.held == nil {
		l.held = map[string]bool{}
	}
	l.held[key] = true
	return memLock{l, key}, true, nil
}

func (m memLock) lost() <-chan struct{} { return nil }

func (m memLock) release() {
	m.l.mu.Lock()
	delete(m.l.held, m.key)
	m.l.mu.Unlock()
}

// advisoryID maps a name to a PostgreSQL advisory lock key. The schema is
// part of it, so deployments (and tests) sharing a database in different
// schemas never block each other.
func advisoryID(schema, kind, name string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "verdict\x00%s\x00%s\x00%s", schema, kind, name)
	return int64(h.Sum64())
}

// pgLocks takes advisory locks on pooled connections.
type pgLocks struct {
	pool   *pgxpool.Pool
	schema string
	check  time.Duration // how often a held lock's connection is checked
}

type pgLock struct {
	conn     *pgxpool.Conn
	id       int64
	lostc    chan struct{}
	stop     chan struct{}
	watching sync.WaitGroup
}

func (l *pgLocks) tryLock(ctx context.Context, key string) (prLock, bool, error) {
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("taking a connection for the lock on %s: %w", key, err)
	}
	id := advisoryID(l.schema, "pr", key)
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", id).Scan(&ok); err != nil {
		discard(conn)
		return nil, false, fmt.Errorf("taking the lock on %s: %w", key, err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	pl := &pgLock{conn: conn, id: id, lostc: make(chan struct{}), stop: make(chan struct{})}
	pl.watching.Add(1)
	go pl.watch(l.check)
	return pl, true, nil
}

// watch pings the lock's connection: if it broke, PostgreSQL has dropped
// the lock and another process may take the PR, so the job must stop.
func (p *pgLock) watch(every time.Duration) {
	defer p.watching.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), every)
			err := p.conn.Ping(ctx)
			cancel()
			if err != nil {
				close(p.lostc)
				return
			}
		}
	}
}

func (p *pgLock) lost() <-chan struct{} { return p.lostc }

func (p *pgLock) release() {
	close(p.stop)
	p.watching.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var ok bool
	if err := p.conn.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", p.id).Scan(&ok); err != nil || !ok {
		// Closing the session is the other way to drop the lock.
		discard(p.conn)
		return
	}
	p.conn.Release()
}

// discard closes a pooled connection instead of returning it, so a session
// in an unknown state (perhaps still holding a lock) is never reused.
func discard(c *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Conn().Close(ctx)
	c.Release()
}

// liveness holds this process's advisory lock for as long as it runs, so
// other processes can tell its jobs from those of a process that died.
type liveness struct {
	pool   *pgxpool.Pool
	id     int64
	check  time.Duration
	log    *slog.Logger
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	holder *pgxpool.Conn
}

func (l *liveness) start(ctx context.Context) error {
	if err := l.hold(ctx); err != nil {
		return err
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go l.keep()
	return nil
}

func (l *liveness) hold(ctx context.Context) error {
	c, err := l.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("taking a connection for the process lock: %w", err)
	}
	if _, err := c.Exec(ctx, "SELECT pg_advisory_lock($1)", l.id); err != nil {
		discard(c)
		return fmt.Errorf("taking the process lock: %w", err)
	}
	l.mu.Lock()
	l.holder = c
	l.mu.Unlock()
	return nil
}

// keep re-takes the lock when its connection breaks. In between, other
// processes may rescue this one's running jobs; their per-PR locks broke
// with the same network, so those jobs stop on their own (see pgLock.watch).
func (l *liveness) keep() {
	defer close(l.done)
	t := time.NewTicker(l.check)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		c := l.holder
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), l.check)
		err := errors.New("no connection")
		if c != nil {
			err = c.Ping(ctx)
		}
		if err != nil {
			if c != nil {
				discard(c)
			}
			l.mu.Lock()
			l.holder = nil
			l.mu.Unlock()
			if herr := l.hold(ctx); herr != nil {
				l.log.Warn("the process lock is lost; other processes may rescue this one's jobs", "err", herr)
			}
		}
		cancel()
	}
}

func (l *liveness) release() {
	if l.stop == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holder != nil {
		discard(l.holder)
		l.holder = nil
	}
}

// alive reports whether the process whose lock is id still runs: its lock
// is held. Checked on a connection of its own (a session re-takes its own
// advisory locks), which is closed, not returned, if the check fails.
func alive(ctx context.Context, pool *pgxpool.Pool, id int64) (bool, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	var free bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", id).Scan(&free); err != nil {
		discard(c)
		return false, err
	}
	if free {
		var ok bool
		if err := c.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", id).Scan(&ok); err != nil || !ok {
			discard(c)
			return false, nil
		}
	}
	c.Release()
	return !free, nil
}
