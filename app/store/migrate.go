package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// migrations are Verdict's schema, one numbered file per change
// (NNNNN_what.sql, goose's format). They are forward only: a file, once
// released, is never edited, and a change is a new file. Every statement is
// valid on SQLite and PostgreSQL.
//
//go:embed migrations/*.sql
var migrations embed.FS

// versionTable is where goose records the migrations applied.
const versionTable = "verdict_schema_version"

// SchemaVersion is the newest migration this binary knows.
func SchemaVersion() int64 {
	names, err := fs.Glob(migrationFS(), "*.sql")
	if err != nil {
		panic(err)
	}
	var newest int64
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		if err != nil {
			panic(fmt.Sprintf("store: embedded migration %s: %v", n, err))
		}
		newest = max(newest, v)
	}
	return newest
}

func migrationFS() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err)
	}
	return sub
}

// NewerSchemaError says the database was migrated by a newer Verdict than
// this binary: its tables may hold what this one would misread.
type NewerSchemaError struct{ Database, Binary int64 }

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("the database's schema is version %d, newer than this Verdict's %d: run the newer Verdict (or restore a backup taken before it upgraded)", e.Database, e.Binary)
}

// migrate brings Verdict's tables to SchemaVersion under the migration
// lock, so replicas starting together apply each migration once. A
// database created before the tables were versioned holds version 1's
// tables already; its first migration adopts them.
func (s *Store) migrate(ctx context.Context) error {
	return s.Migrating(ctx, func(ctx context.Context) error {
		db, dialect := s.sqlDB, goose.DialectSQLite3
		if s.pool != nil {
			// Closing this handle leaves the pool open.
			db, dialect = stdlib.OpenDBFromPool(s.pool), goose.DialectPostgres
			defer db.Close()
		}
		return upgrade(ctx, db, dialect)
	})
}

func upgrade(ctx context.Context, db *sql.DB, dialect goose.Dialect) error {
	gs, err := database.NewStore(dialect, versionTable)
	if err != nil {
		return fmt.Errorf("preparing schema migrations: %w", err)
	}
	p, err := goose.NewProvider("", db, migrationFS(), goose.WithStore(gs), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("preparing schema migrations: %w", err)
	}
	current, target, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("reading the database's schema version: %w", err)
	}
	if current > target {
		return &NewerSchemaError{Database: current, Binary: target}
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrating Verdict's tables from version %d to %d: %w", current, target, err)
	}
	return nil
}
