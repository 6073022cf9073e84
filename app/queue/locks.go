package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A per-PR lock must end with its holder, however it ends. SQLite serves
// one process, so an in-memory lock does it. On PostgreSQL a lock is a
// lease: a row naming its holder and an expiry (the server's clock) that the
// holder renews. A holder whose process died (its process lock is free, see
// liveness) loses the lease at once; one whose host died or whose network
// was cut without a FIN loses it when it expires, although PostgreSQL may
// keep that host's sessions (and their advisory locks) for hours. The holder
// stops its job before the lease can expire unrenewed, so two processes
// never work one PR at once.

// prLock is a held per-PR lock. lost is closed if the lock may have gone
// (it could not be renewed in time) while the job still runs.
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

// serverMillis is the database server's clock in Unix milliseconds: every
// lease and heartbeat is stamped and compared by it.
const serverMillis = `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)`

// pgLocks takes leases in verdict_lease.
type pgLocks struct {
	pool   *pgxpool.Pool
	client string        // this process's River client ID
	ttl    time.Duration // how long a lease lasts unrenewed
	// state tells whether another process still runs (see liveness).
	state func(ctx context.Context, client string) (processState, error)

	mu   sync.Mutex
	held map[*pgLock]struct{}
}

type pgLock struct {
	l        *pgLocks
	name     string
	holder   string
	lostc    chan struct{}
	lose     sync.Once
	stop     chan struct{}
	watching sync.WaitGroup
}

// loseAll gives up every lease this process holds: its process lock broke,
// so other processes may take it for gone and its PRs with it.
func (l *pgLocks) loseAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for p := range l.held {
		p.markLost()
	}
}

func (p *pgLock) markLost() { p.lose.Do(func() { close(p.lostc) }) }

func (l *pgLocks) tryLock(ctx context.Context, name string) (prLock, bool, error) {
	// The table is the schema's own: deployments sharing a database in
	// different schemas never meet.
	holder := l.client + "/" + token()
	sent := time.Now()
	var got string
	err := l.pool.QueryRow(ctx, `INSERT INTO verdict_lease (name, holder, expires_at)
		VALUES ($1, $2, `+serverMillis+` + $3)
		ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
		WHERE verdict_lease.expires_at < `+serverMillis+`
		RETURNING holder`, name, holder, l.ttl.Milliseconds()).Scan(&got)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// Held and not expired: taken over only from a process that died.
		if got, err = l.takeFromDead(ctx, name, holder); err != nil || got == "" {
			return nil, false, err
		}
	case err != nil:
		return nil, false, fmt.Errorf("taking the lock on %s: %w", name, err)
	}
	pl := &pgLock{l: l, name: name, holder: holder, lostc: make(chan struct{}), stop: make(chan struct{})}
	l.mu.Lock()
	if l.held == nil {
		l.held = map[*pgLock]struct{}{}
	}
	l.held[pl] = struct{}{}
	l.mu.Unlock()
	pl.watching.Add(1)
	go pl.renew(sent)
	return pl, true, nil
}

// takeFromDead takes the lease name when its holder's process is gone
// (its process lock is free: its connections closed), and reports the new
// holder ("" when the lease stays where it is). A holder that merely looks
// stale keeps the lease until it expires, since it stops its job only then.
func (l *pgLocks) takeFromDead(ctx context.Context, name, holder string) (string, error) {
	var old string
	err := l.pool.QueryRow(ctx, `SELECT holder FROM verdict_lease WHERE name = $1`, name).Scan(&old)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil // released meanwhile: the next try takes it
	}
	if err != nil {
		return "", fmt.Errorf("reading the holder of %s: %w", name, err)
	}
	client, _, _ := strings.Cut(old, "/")
	if client == l.client {
		return "", nil
	}
	st, err := l.state(ctx, client)
	if err != nil || st != processGone {
		return "", err
	}
	tag, err := l.pool.Exec(ctx, `UPDATE verdict_lease SET holder = $3, expires_at = `+serverMillis+` + $4
		WHERE name = $1 AND holder = $2`, name, old, holder, l.ttl.Milliseconds())
	if err != nil {
		return "", fmt.Errorf("taking %s over from %s, whose process is gone: %w", name, client, err)
	}
	if tag.RowsAffected() == 0 {
		return "", nil
	}
	return holder, nil
}

// renew extends the lease a third of its life before it would end. A
// renewal that finds the lease gone, or none that succeeds before the
// lease would expire (counted from when the last successful one was sent,
// which is no later than the server stamped it), loses the lock.
func (p *pgLock) renew(sent time.Time) {
	defer p.watching.Done()
	ttl := p.l.ttl
	deadline := sent.Add(ttl - ttl/10)
	wait := ttl / 3
	for {
		next := time.NewTimer(wait)
		select {
		case <-p.stop:
			next.Stop()
			return
		case <-next.C:
		}
		if !time.Now().Before(deadline) {
			p.markLost()
			return
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		at := time.Now()
		tag, err := p.l.pool.Exec(ctx, `UPDATE verdict_lease SET expires_at = `+serverMillis+` + $3
			WHERE name = $1 AND holder = $2`, p.name, p.holder, ttl.Milliseconds())
		cancel()
		switch {
		case err == nil && tag.RowsAffected() == 1:
			deadline, wait = at.Add(ttl-ttl/10), ttl/3
		case err == nil:
			p.markLost() // taken over: this process was taken for dead
			return
		default:
			wait = max(min(ttl/10, time.Until(deadline)), 0)
		}
	}
}

func (p *pgLock) lost() <-chan struct{} { return p.lostc }

func (p *pgLock) release() {
	close(p.stop)
	p.watching.Wait()
	p.l.mu.Lock()
	delete(p.l.held, p)
	p.l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A lease not deleted (the database unreachable) expires on its own.
	p.l.pool.Exec(ctx, `DELETE FROM verdict_lease WHERE name = $1 AND holder = $2`, p.name, p.holder)
}

// token tells apart the leases one process holds at once.
func token() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// discard closes a pooled connection instead of returning it, so a session
// in an unknown state (perhaps still holding a lock) is never reused.
func discard(c *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Conn().Close(ctx)
	c.Release()
}

// liveness tells other processes that this one still runs, two ways: it
// holds an advisory lock named after its River client ID (which PostgreSQL
// frees the moment the process dies and its connections close) and it
// stamps a heartbeat in verdict_process every check. A process is dead when
// its lock is free or its heartbeat is older than stale: the second is what
// shows a host that died or was cut off without closing its sessions.
type liveness struct {
	pool   *pgxpool.Pool
	schema string
	client string
	check  time.Duration
	stale  time.Duration
	// broke is called when the process lock's connection broke.
	broke  func()
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
	if err := l.beat(ctx); err != nil {
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
	if _, err := c.Exec(ctx, "SELECT pg_advisory_lock($1)", advisoryID(l.schema, "client", l.client)); err != nil {
		discard(c)
		return fmt.Errorf("taking the process lock: %w", err)
	}
	l.mu.Lock()
	l.holder = c
	l.mu.Unlock()
	return nil
}

// beat stamps this process's heartbeat.
func (l *liveness) beat(ctx context.Context) error {
	_, err := l.pool.Exec(ctx, `INSERT INTO verdict_process (client_id, seen_at) VALUES ($1, `+serverMillis+`)
		ON CONFLICT (client_id) DO UPDATE SET seen_at = EXCLUDED.seen_at`, l.client)
	if err != nil {
		return fmt.Errorf("stamping the process heartbeat: %w", err)
	}
	return nil
}

// keep stamps the heartbeat and re-takes the lock when its connection
// breaks. In between, other processes may rescue this one's running jobs;
// their per-PR leases could not be renewed over the same network, so those
// jobs stop on their own (see pgLock.renew).
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
		ctx, cancel := context.WithTimeout(context.Background(), l.check)
		if err := l.beat(ctx); err != nil {
			l.log.Warn("the process heartbeat is late; other processes may rescue this one's jobs", "err", err)
		}
		l.mu.Lock()
		c := l.holder
		l.mu.Unlock()
		err := errors.New("no connection")
		if c != nil {
			err = c.Ping(ctx)
		}
		if err != nil {
			if c != nil {
				discard(c)
				if l.broke != nil {
					l.broke()
				}
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.pool.Exec(ctx, `DELETE FROM verdict_process WHERE client_id = $1`, l.client)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holder != nil {
		discard(l.holder)
		l.holder = nil
	}
}

// processState is what other processes can tell of one.
type processState int

const (
	processRunning processState = iota
	// processStale: its lock is held but its heartbeat is late (its host
	// died, or its network to the database is cut).
	processStale
	// processGone: its lock is free; its sessions closed with it.
	processGone
)

// state tells whether the process with River client ID client still runs:
// its lock is held and its heartbeat (if it keeps one: a process of an
// older Verdict does not) is fresh. The lock is checked on a connection of
// its own (a session re-takes its own advisory locks), which is closed,
// not returned, if the check fails.
func (l *liveness) state(ctx context.Context, client string) (processState, error) {
	c, err := l.pool.Acquire(ctx)
	if err != nil {
		return processRunning, err
	}
	id := advisoryID(l.schema, "client", client)
	var free bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", id).Scan(&free); err != nil {
		discard(c)
		return processRunning, err
	}
	if free {
		var ok bool
		if err := c.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", id).Scan(&ok); err != nil || !ok {
			discard(c)
		} else {
			c.Release()
		}
		return processGone, nil
	}
	c.Release()
	var stale bool
	err = l.pool.QueryRow(ctx, `SELECT seen_at < `+serverMillis+` - $2 FROM verdict_process WHERE client_id = $1`,
		client, l.stale.Milliseconds()).Scan(&stale)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return processRunning, nil
	case err != nil:
		return processRunning, fmt.Errorf("reading the heartbeat of %s: %w", client, err)
	case stale:
		return processStale, nil
	}
	return processRunning, nil
}
