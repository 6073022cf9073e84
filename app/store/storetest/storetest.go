// Package storetest gives tests a fresh database on each engine: a SQLite
// file in a temporary directory, and — when VERDICT_TEST_DATABASE_URL names
// a PostgreSQL server — a schema of its own that is dropped afterwards.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the variable naming the PostgreSQL server for tests.
const EnvURL = "VERDICT_TEST_DATABASE_URL"

// SQLiteURL returns the URL of a new SQLite database file.
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return "sqlite://" + filepath.Join(t.TempDir(), "verdict.db")
}

// PostgresURL returns the URL of a fresh, empty schema on the test server
// (search_path points at it), or skips the test when none is configured.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skipf("%s is not set: PostgreSQL test skipped (see CONTRIBUTING.md, PostgreSQL tests)", EnvURL)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	schema := "verdict_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating test schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Logf("dropping test schema %s: %v", schema, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Logf("dropping test schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parsing %s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Engines runs f once per database engine as a subtest.
func Engines(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, SQLiteURL(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, PostgresURL(t)) })
}
