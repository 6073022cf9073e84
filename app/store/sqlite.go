package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// checkpointEvery is how often the checkpointer copies the WAL back into
// the database file; restartFrames is how long the WAL may grow (in pages,
// SQLite's own automatic checkpoint threshold) before it is started over.
const (
	checkpointEvery = 200 * time.Millisecond
	restartFrames   = 1000
)

// openSQLite opens a SQLite database on three connections: one that River
// and the store share, one for intake's group commits (they take turns
// through a gate, intake first; see sqlitegate.go) and one that only
// checkpoints the WAL. Writing connections never checkpoint: SQLite's
// automatic checkpoint runs inside the commit that crosses its threshold,
// copying and fsyncing a thousand pages while the writer waits; a PASSIVE
// checkpoint on a connection of its own copies them while writers go on.
// An in-memory database exists only on its one connection, which everyone
// then shares.
func openSQLite(ctx context.Context, rawURL string) (*Store, error) {
	dsn, memory, err := sqliteDSN(rawURL)
	if err != nil {
		return nil, err
	}
	// The registered driver, to open connections through the gate.
	probe, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening SQLite database: %w", err)
	}
	drv := probe.Driver()
	probe.Close()
	g := &gate{}
	open := func(urgent bool) (*sql.DB, error) {
		db := sql.OpenDB(gatedConnector{drv: drv, dsn: dsn, gate: g, urgent: urgent})
		// One connection each: River and the store queue in Go for theirs
		// instead of failing with SQLITE_BUSY. Group commit keeps intake's
		// single connection cheap.
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("opening SQLite database %s: %w", rawURL, err)
		}
		return db, nil
	}
	db, err := open(false)
	if err != nil {
		return nil, err
	}
	s := &Store{dialect: SQLite, sqlDB: db, stmts: newStmtCache(db)}
	s.db = sqlExecer{r: db, cache: s.stmts}
	s.intakeDB, s.intakeStmts = db, s.stmts
	if memory {
		return s, nil
	}
	if s.intakeDB, err = open(true); err != nil {
		s.Close()
		return nil, err
	}
	s.intakeStmts = newStmtCache(s.intakeDB)
	// The checkpointer waits briefly for another process's readers: it
	// holds the gate while it restarts the WAL.
	ckpt, err := sql.Open("sqlite", dsn+"&"+url.Values{"_pragma": {"busy_timeout(50)"}}.Encode())
	if err == nil {
		ckpt.SetMaxOpenConns(1)
		err = ckpt.PingContext(ctx)
	}
	if err != nil {
		if ckpt != nil {
			ckpt.Close()
		}
		s.Close()
		return nil, fmt.Errorf("opening SQLite database %s for checkpoints: %w", rawURL, err)
	}
	s.ckptStop, s.ckptDone = make(chan struct{}), make(chan struct{})
	go checkpoints(ckpt, g, s.ckptStop, s.ckptDone)
	return s, nil
}

// checkpoints copies committed WAL frames into the database file every
// checkpointEvery until stop is closed, then closes db.
//
// A PASSIVE checkpoint takes no lock writers need, so it runs while intake
// commits. But the WAL only starts over from its beginning when a writer
// finds every frame copied, which a checkpoint overlapping a commit never
// achieves: under a steady flood the file would grow without end. So once
// restartFrames frames have piled up, a RESTART checkpoint finishes the
// job under the gate (no connection of this process is in a statement
// then, so none reads the WAL): it copies only what was committed since
// the passive one, and the next writer starts the WAL over. Intake, ahead
// of River at the gate, waits for at most that one short checkpoint.
//
// A failed checkpoint loses nothing: committed transactions are durable in
// the WAL, which grows until the next one succeeds.
func checkpoints(db *sql.DB, g *gate, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer db.Close()
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var busy, frames, copied int
		err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
		if err == nil && frames >= restartFrames && g.lock(ctx, false) == nil {
			db.ExecContext(ctx, "PRAGMA wal_checkpoint(RESTART)")
			g.unlock()
		}
		cancel()
	}
}

// IntakeSQL is the SQLite connection intake commits on; its transactions
// go before River's (see sqlitegate.go). Nil on PostgreSQL.
func (s *Store) IntakeSQL() *sql.DB { return s.intakeDB }

// IntakeSQLTx wraps a transaction begun on IntakeSQL(), reusing the
// store's prepared statements.
func (s *Store) IntakeSQLTx(tx *sql.Tx) Execer { return sqlExecer{r: tx, cache: s.intakeStmts} }

// sqliteDSN turns sqlite://path into a modernc file: DSN with WAL journaling
// and full fsync on commit (a 202 promises the delivery survives a crash).
// The path is a file name taken literally up to the first "?": SQLite reads
// a file: URI, where "#" would end the name and "%" would start an escape,
// so those are escaped rather than left to cut or rename the file.
func sqliteDSN(rawURL string) (dsn string, memory bool, err error) {
	rest := strings.TrimPrefix(rawURL, "sqlite:")
	rest = strings.TrimPrefix(rest, "//")
	path, query, _ := strings.Cut(rest, "?")
	if path == "" {
		return "", false, fmt.Errorf("database URL %q: missing SQLite file name", rawURL)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", false, fmt.Errorf("database URL %q: %w", rawURL, err)
	}
	pragmas := []string{"busy_timeout(10000)", "foreign_keys(1)"}
	memory = path == ":memory:"
	if !memory {
		// Checkpoints run on a connection of their own (openSQLite).
		pragmas = append(pragmas, "journal_mode(WAL)", "wal_autocheckpoint(0)")
	}
	if q.Get("synchronous") == "" {
		pragmas = append(pragmas, "synchronous(FULL)")
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	if s := q.Get("synchronous"); s != "" {
		q.Del("synchronous")
		q.Add("_pragma", "synchronous("+s+")")
	}
	return "file:" + uriPathEscaper.Replace(path) + "?" + q.Encode(), memory, nil
}

// uriPathEscaper escapes what SQLite's URI parser would not read as part
// of a file name.
var uriPathEscaper = strings.NewReplacer("%", "%25", "#", "%23")
