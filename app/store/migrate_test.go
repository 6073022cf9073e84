package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// execScript runs a SQL file's statements on the database at url without
// going through store.Open, as an older Verdict would have.
func execScript(t *testing.T, url, script string) {
	t.Helper()
	ctx := context.Background()
	var stmts []string
	for _, s := range strings.Split(script, ";\n") {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				keep = append(keep, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(keep, "\n")); s != "" {
			stmts = append(stmts, s)
		}
	}
	if file, ok := strings.CutPrefix(url, "sqlite://"); ok {
		db, err := sql.Open("sqlite", file)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		return
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// A database an earlier Verdict created (its tables, no version table)
// upgrades in place: what it holds is kept, the new columns take their
// defaults, and the version recorded is the binary's.
func TestUpgradeFromUnversionedSchema(t *testing.T) {
	old, err := os.ReadFile("testdata/unversioned.sql")
	if err != nil {
		t.Fatal(err)
	}
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		execScript(t, url, string(old)+`;
			INSERT INTO verdict_signoff (repo, signoff_key, pr_number, author, body_sha256, signed_at, state, editor,
				state_at, assessed_sha, verdict, comment_url)
			VALUES ('acme/widgets', 'issuecomment-7', 3, 'owner-a', 'abc', 1700000000000, 'authentic', '',
				1700000000000, 'f00d', 'PASS', 'https://github.com/acme/widgets/pull/3#issuecomment-9');
			INSERT INTO verdict_delivery (delivery_id, event, action, repo, pr_number, received_at, outcome, jobs)
			VALUES ('d-1', 'issue_comment', 'created', 'acme/widgets', 3, 1700000000000, 'queued', 1)`)

		s := open(t, url)
		so, ok, err := s.LookupSignOff(ctx, "acme/widgets", "issuecomment-7")
		if err != nil || !ok {
			t.Fatalf("the sign-off kept before the upgrade: ok=%v, %v", ok, err)
		}
		if so.Verdict != "PASS" || so.AssessedSHA != "f00d" || so.CommentNodeID != "" || !so.MinimizedAt.IsZero() {
			t.Errorf("after the upgrade: %+v", so)
		}
		if known, err := s.KnownDelivery(ctx, "d-1"); err != nil || !known {
			t.Errorf("the delivery logged before the upgrade: known=%v, %v", known, err)
		}
		if v := version(t, s); v != store.SchemaVersion() {
			t.Errorf("schema version %d after the upgrade, want %d", v, store.SchemaVersion())
		}
		s.Close()
		// A second start has nothing to apply.
		again := open(t, url)
		if v := version(t, again); v != store.SchemaVersion() {
			t.Errorf("schema version %d after a second start, want %d", v, store.SchemaVersion())
		}
	})
}

func version(t *testing.T, s *store.Store) int64 {
	t.Helper()
	var v int64
	q := "SELECT MAX(version_id) FROM verdict_schema_version WHERE is_applied"
	if err := s.DB().QueryRow(context.Background(), q).Scan(&v); err != nil {
		t.Fatalf("reading the schema version: %v", err)
	}
	return v
}

// A database a newer Verdict migrated is refused, not misread.
func TestOpenRefusesNewerSchema(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		s := open(t, url)
		_, err := s.DB().Exec(context.Background(),
			"INSERT INTO verdict_schema_version (version_id, is_applied) VALUES ($1, TRUE)", store.SchemaVersion()+1)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = store.Open(context.Background(), url)
		var newer *store.NewerSchemaError
		if !errors.As(err, &newer) || newer.Database != store.SchemaVersion()+1 {
			t.Fatalf("opening a newer schema: %v", err)
		}
	})
}

// Replicas starting together on one PostgreSQL database apply each
// migration once (goose would fail on a duplicate version otherwise).
func TestConcurrentStartsMigrateOnce(t *testing.T) {
	url := storetest.PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := store.Open(ctx, url)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, url)
	var n int
	if err := s.DB().QueryRow(ctx, "SELECT COUNT(*) FROM verdict_schema_version WHERE version_id > 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if int64(n) != store.SchemaVersion() {
		t.Errorf("%d migrations recorded, want %d", n, store.SchemaVersion())
	}
}
