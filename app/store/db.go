// Package store keeps Verdict's own state next to the job queue: the
// delivery log (dedupe by X-GitHub-Delivery), the audit trail of published
// verdicts, sign-off generations (coalescing) and, per sign-off, its last
// authentic version and integrity state. It runs on
// SQLite (one process) or PostgreSQL (many processes) with the same SQL:
// placeholders are $N (SQLite accepts them) and times are Unix milliseconds.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Dialect names the database engine behind a Store.
type Dialect string

// Supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// ErrNoRows is returned by Row.Scan when a query matched nothing.
var ErrNoRows = errors.New("no rows")

// Row is a single-row query result.
type Row interface {
	Scan(dest ...any) error
}

// Execer runs statements on a connection pool or inside a transaction. It is
// the common ground of database/sql and pgx, so every query is written once.
type Execer interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Query runs a multi-row query and calls f for each row.
	Query(ctx context.Context, query string, args []any, f func(Row) error) error
}

// sqlRunner is what *sql.DB and *sql.Tx have in common.
type sqlRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SQLExecer adapts a *sql.DB or *sql.Tx.
func SQLExecer(r sqlRunner) Execer { return sqlExecer{r: r} }

type sqlExecer struct {
	r     sqlRunner
	cache *stmtCache // nil: statements are prepared on every call
}

func (e sqlExecer) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st := e.cache.get(ctx, e.r, q); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = e.r.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e sqlExecer) QueryRow(ctx context.Context, q string, args ...any) Row {
	if st := e.cache.get(ctx, e.r, q); st != nil {
		return sqlRow{st.QueryRowContext(ctx, args...)}
	}
	return sqlRow{e.r.QueryRowContext(ctx, q, args...)}
}

// stmtCache keeps the store's statements prepared: modernc SQLite does not
// cache them, and re-parsing SQL was a fifth of the intake path's CPU.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db, m: map[string]*sql.Stmt{}} }

func (c *stmtCache) get(ctx context.Context, r sqlRunner, q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	st, ok := c.m[q]
	c.mu.Unlock()
	if !ok {
		var err error
		// Prepared on the pool: with one connection this cannot run
		// while a transaction holds it, so prepare before use in tx.
		if _, inTx := r.(*sql.Tx); inTx {
			return nil
		}
		if st, err = c.db.PrepareContext(ctx, q); err != nil {
			return nil
		}
		c.mu.Lock()
		if old, raced := c.m[q]; raced {
			st.Close()
			st = old
		} else {
			c.m[q] = st
		}
		c.mu.Unlock()
	}
	if tx, ok := r.(*sql.Tx); ok {
		return tx.StmtContext(ctx, st)
	}
	return st
}

func (c *stmtCache) prepare(ctx context.Context, queries ...string) error {
	for _, q := range queries {
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("preparing statement: %w", err)
		}
		c.mu.Lock()
		c.m[q] = st
		c.mu.Unlock()
	}
	return nil
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = map[string]*sql.Stmt{}
}

func (e sqlExecer) Query(ctx context.Context, q string, args []any, f func(Row) error) error {
	rows, err := e.r.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

type sqlRow struct{ r *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	if err := r.r.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoRows
		}
		return err
	}
	return nil
}

// pgxRunner is what *pgxpool.Pool and pgx.Tx have in common.
type pgxRunner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// PgxExecer adapts a *pgxpool.Pool or pgx.Tx.
func PgxExecer(r pgxRunner) Execer { return pgxExecer{r} }

type pgxExecer struct{ r pgxRunner }

func (e pgxExecer) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := e.r.Exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (e pgxExecer) QueryRow(ctx context.Context, q string, args ...any) Row {
	return pgxRow{e.r.QueryRow(ctx, q, args...)}
}

func (e pgxExecer) Query(ctx context.Context, q string, args []any, f func(Row) error) error {
	rows, err := e.r.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

type pgxRow struct{ r pgx.Row }

func (r pgxRow) Scan(dest ...any) error {
	if err := r.r.Scan(dest...); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoRows
		}
		return err
	}
	return nil
}

// Store is Verdict's database. Exactly one of SQL and Pgx is non-nil.
type Store struct {
	dialect Dialect
	sqlDB   *sql.DB
	stmts   *stmtCache
	pool    *pgxpool.Pool
	db      Execer
	// PostgreSQL only: intake's own connections (pgintake.go).
	intakePool *pgxpool.Pool
	// SQLite only: intake's own connection and statements (see
	// sqlitegate.go), and the checkpointer's stop and done signals.
	intakeDB    *sql.DB
	intakeStmts *stmtCache
	ckptStop    chan struct{}
	ckptDone    chan struct{}
}

// Open connects to url and creates Verdict's tables if needed.
//
//	sqlite://verdict.db, sqlite:///abs/path.db, sqlite::memory:  SQLite file
//	postgres://user@host/db?sslmode=disable (or postgresql://)  PostgreSQL
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s, err := connect(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.prepareHot(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func connect(ctx context.Context, rawURL string) (*Store, error) {
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		cfg, err := pgxpool.ParseConfig(rawURL)
		if err != nil {
			return nil, fmt.Errorf("database URL %s: %w", redact(rawURL), err)
		}
		if !strings.Contains(rawURL, "pool_max_conns") {
			// pgx's default (max(4, CPUs)) starves River: its listener,
			// producers and completer each want a connection besides
			// intake and the per-PR locks of running jobs.
			cfg.MaxConns = 20
		}
		// A session whose client died with its machine (no FIN) must not
		// live for the server's default two hours of TCP silence: the
		// server probes an idle one after 15 s and drops it after three
		// unanswered probes 5 s apart, drops one whose sent data stays
		// unacknowledged for 30 s, and ends a transaction left idle for a
		// minute (nothing of Verdict's idles inside one). Through a proxy
		// that keeps its end open these do not help; the leases and
		// heartbeats in app/queue do.
		for k, v := range map[string]string{"tcp_keepalives_idle": "15", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "3",
			"tcp_user_timeout": "30000", "idle_in_transaction_session_timeout": "60000"} {
			if _, set := cfg.ConnConfig.RuntimeParams[k]; !set {
				cfg.ConnConfig.RuntimeParams[k] = v
			}
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("opening PostgreSQL database: %w", err)
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("connecting to PostgreSQL database %s: %w", redact(rawURL), err)
		}
		intake, err := openIntakePool(ctx, cfg)
		if err != nil {
			pool.Close()
			return nil, err
		}
		return &Store{dialect: Postgres, pool: pool, db: PgxExecer(pool), intakePool: intake}, nil
	case strings.HasPrefix(rawURL, "sqlite:"):
		return openSQLite(ctx, rawURL)
	default:
		return nil, fmt.Errorf("database URL %q: want sqlite://<file> or postgres://...", redact(rawURL))
	}
}

func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Dialect reports the database engine.
func (s *Store) Dialect() Dialect { return s.dialect }

// SQL is the SQLite pool (nil on PostgreSQL).
func (s *Store) SQL() *sql.DB { return s.sqlDB }

// Pgx is the PostgreSQL pool (nil on SQLite).
func (s *Store) Pgx() *pgxpool.Pool { return s.pool }

// SQLTx wraps a transaction begun on SQL(), reusing the store's prepared
// statements.
func (s *Store) SQLTx(tx *sql.Tx) Execer { return sqlExecer{r: tx, cache: s.stmts} }

// DB runs statements outside any transaction.
func (s *Store) DB() Execer { return s.db }

// Ping reports whether the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.db.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("pinging %s database: %w", s.dialect, err)
	}
	return nil
}

// Close releases the connections.
func (s *Store) Close() {
	if s.ckptStop != nil {
		close(s.ckptStop)
		<-s.ckptDone
		s.ckptStop = nil
	}
	if s.intakeDB != nil && s.intakeDB != s.sqlDB {
		s.intakeStmts.close()
		s.intakeDB.Close()
	}
	if s.sqlDB != nil {
		s.stmts.close()
		s.sqlDB.Close()
	}
	if s.intakePool != nil {
		s.intakePool.Close()
	}
	if s.pool != nil {
		s.pool.Close()
	}
}

// InTx runs f in one transaction and commits if f returns nil.
func (s *Store) InTx(ctx context.Context, f func(Execer) error) error {
	if s.sqlDB != nil {
		tx, err := s.sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("beginning transaction: %w", err)
		}
		if err := f(s.SQLTx(tx)); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	if err := f(PgxExecer(tx)); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

// each runs a multi-row query and calls f for every row.
func (s *Store) each(ctx context.Context, q string, args []any, f func(Row) error) error {
	return s.db.Query(ctx, q, args, f)
}
