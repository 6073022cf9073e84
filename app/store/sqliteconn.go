package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
)

// gatedConnector opens SQLite connections that hold the gate for every
// transaction, and for every statement run outside one until its rows are
// closed.
type gatedConnector struct {
	drv    driver.Driver
	dsn    string
	gate   *gate
	urgent bool
}

func (c gatedConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	if _, ok := conn.(sqliteConn); !ok {
		conn.Close()
		return nil, fmt.Errorf("SQLite driver connection %T lacks methods the gate forwards", conn)
	}
	return &gatedConn{Conn: conn, gate: c.gate, urgent: c.urgent}, nil
}

func (c gatedConnector) Driver() driver.Driver { return c.drv }

// sqliteConn is what the modernc driver's connection implements.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.SessionResetter
	driver.Validator
	driver.Pinger
}

// gatedConn is used by one goroutine at a time (database/sql's contract),
// so inTx needs no lock.
type gatedConn struct {
	driver.Conn
	gate    *gate
	urgent  bool
	inTx    bool
	holding bool // the gate, for a transaction or a statement's rows
	// stmts keeps the statements run by text (River's, mostly) prepared:
	// neither database/sql nor the driver does, and parsing River's
	// multi-row insert cost more than running it.
	stmts map[string]*cachedStmt
}

// maxCachedStmts bounds a connection's statement cache; River's queries
// are a fixed set, but a caller building query text from data must not
// grow it without end.
const maxCachedStmts = 256

type cachedStmt struct {
	st   sqliteStmt
	busy bool // its rows are open: a second use would rebind them
}

// cached returns q prepared and marks it busy, or nil when q should run
// unprepared (it is busy, the cache is full, or it does not prepare: the
// driver then reports why).
func (c *gatedConn) cached(ctx context.Context, q string) *cachedStmt {
	cs, ok := c.stmts[q]
	if !ok {
		if len(c.stmts) >= maxCachedStmts {
			return nil
		}
		st, err := c.inner().PrepareContext(ctx, q)
		if err != nil {
			return nil
		}
		sst, ok := st.(sqliteStmt)
		if !ok {
			st.Close()
			return nil
		}
		if c.stmts == nil {
			c.stmts = map[string]*cachedStmt{}
		}
		cs = &cachedStmt{st: sst}
		c.stmts[q] = cs
	}
	if cs.busy {
		return nil
	}
	cs.busy = true
	return cs
}

func (c *gatedConn) Close() error {
	for _, cs := range c.stmts {
		cs.st.Close()
	}
	c.stmts = nil
	err := c.Conn.Close()
	// Closing ends whatever transaction or statement held the gate.
	c.inTx = false
	c.release()
	return err
}

func (c *gatedConn) inner() sqliteConn { return c.Conn.(sqliteConn) }

func (c *gatedConn) acquire(ctx context.Context) error {
	if err := c.gate.lock(ctx, c.urgent); err != nil {
		return err
	}
	c.holding = true
	return nil
}

// release gives the gate back if the connection holds it; a second call
// (rows closed after their connection) does nothing.
func (c *gatedConn) release() {
	if c.holding {
		c.holding = false
		c.gate.unlock()
	}
}

// enter takes the gate for a statement unless the connection's transaction
// holds it; the returned func gives it back.
func (c *gatedConn) enter(ctx context.Context) (func(), error) {
	if c.inTx {
		return func() {}, nil
	}
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	return c.release, nil
}

func (c *gatedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *gatedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	tx, err := c.inner().BeginTx(ctx, opts)
	if err != nil {
		c.release()
		return nil, err
	}
	c.inTx = true
	return &gatedTx{tx: tx, c: c}, nil
}

func (c *gatedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *gatedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.inner().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if _, ok := st.(sqliteStmt); !ok {
		st.Close()
		return nil, fmt.Errorf("SQLite driver statement %T lacks methods the gate forwards", st)
	}
	return &gatedStmt{Stmt: st, c: c}, nil
}

func (c *gatedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	leave, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	if cs := c.cached(ctx, query); cs != nil {
		defer func() { cs.busy = false }()
		return cs.st.ExecContext(ctx, args)
	}
	return c.inner().ExecContext(ctx, query, args)
}

func (c *gatedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	leave, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	if cs := c.cached(ctx, query); cs != nil {
		rows, err := cs.st.QueryContext(ctx, args)
		return gatedRows(rows, err, func() {
			cs.busy = false
			leave()
		})
	}
	rows, err := c.inner().QueryContext(ctx, query, args)
	return gatedRows(rows, err, leave)
}

func (c *gatedConn) ResetSession(ctx context.Context) error { return c.inner().ResetSession(ctx) }
func (c *gatedConn) IsValid() bool                          { return c.inner().IsValid() }
func (c *gatedConn) Ping(ctx context.Context) error         { return c.inner().Ping(ctx) }

type gatedTx struct {
	tx driver.Tx
	c  *gatedConn
}

func (t *gatedTx) Commit() error   { return t.end(t.tx.Commit) }
func (t *gatedTx) Rollback() error { return t.end(t.tx.Rollback) }

func (t *gatedTx) end(f func() error) error {
	err := f()
	t.c.inTx = false
	t.c.release()
	return err
}

// sqliteStmt is what the modernc driver's statement implements.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type gatedStmt struct {
	driver.Stmt
	c *gatedConn
}

func (s *gatedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	leave, err := s.c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	return s.Stmt.(sqliteStmt).ExecContext(ctx, args)
}

func (s *gatedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	leave, err := s.c.enter(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Stmt.(sqliteStmt).QueryContext(ctx, args)
	return gatedRows(rows, err, leave)
}

// gatedRows keeps the gate until rows are closed: SQLite executes a
// statement (a write with RETURNING too) as its rows are read.
func gatedRows(rows driver.Rows, err error, leave func()) (driver.Rows, error) {
	if err != nil {
		leave()
		return nil, err
	}
	r, ok := rows.(sqliteRows)
	if !ok {
		rows.Close()
		leave()
		return nil, fmt.Errorf("SQLite driver rows %T lack methods the gate forwards", rows)
	}
	return &rowsLeaving{sqliteRows: r, leave: leave}, nil
}

// sqliteRows is what the modernc driver's rows implement; keeping the
// column type methods keeps database/sql's ColumnTypes working.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

type rowsLeaving struct {
	sqliteRows
	once  sync.Once
	leave func()
}

func (r *rowsLeaving) Close() error {
	err := r.sqliteRows.Close()
	r.once.Do(r.leave)
	return err
}

var (
	_ driver.Connector = gatedConnector{}
	_ sqliteConn       = (*gatedConn)(nil)
	_ sqliteStmt       = (*gatedStmt)(nil)
	_ sqliteRows       = (*rowsLeaving)(nil)
)
