package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

func open(t *testing.T, url string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestDeliveryDedupe(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		at := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		d := store.Delivery{ID: "d-1", Event: "issue_comment", Action: "created", Repo: "o/r", PR: 7, Received: at, Outcome: "queued", Jobs: 1}
		for i, want := range []bool{true, false, false} {
			fresh, err := store.InsertDelivery(ctx, s.DB(), d)
			if err != nil {
				t.Fatal(err)
			}
			if fresh != want {
				t.Fatalf("insert %d: fresh=%v, want %v", i, fresh, want)
			}
		}
		got, err := s.LookupDelivery(ctx, "d-1")
		if err != nil {
			t.Fatal(err)
		}
		if got != d {
			t.Fatalf("lookup = %+v, want %+v", got, d)
		}
		if n, _ := s.CountDeliveries(ctx); n != 1 {
			t.Fatalf("deliveries = %d, want 1", n)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := s.PruneDeliveries(ctx, at); err != nil || n != 0 {
			t.Fatalf("prune at receipt time removed %d, %v", n, err)
		}
		if n, err := s.PruneDeliveries(ctx, at.Add(time.Millisecond)); err != nil || n != 1 {
			t.Fatalf("prune after receipt removed %d, %v", n, err)
		}
		if fresh, _ := store.InsertDelivery(ctx, s.DB(), d); !fresh {
			t.Fatal("pruned delivery still deduped")
		}
	})
}

func TestGenerations(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		if g, err := s.Generation(ctx, "k"); err != nil || g != 0 {
			t.Fatalf("unknown key: %d, %v", g, err)
		}
		for want := int64(1); want <= 3; want++ {
			g, err := store.NextGeneration(ctx, s.DB(), "k")
			if err != nil || g != want {
				t.Fatalf("NextGeneration = %d, %v; want %d", g, err, want)
			}
		}
		if g, _ := s.Generation(ctx, "k"); g != 3 {
			t.Fatalf("Generation = %d, want 3", g)
		}
		if g, _ := store.NextGeneration(ctx, s.DB(), "other"); g != 1 {
			t.Fatalf("other key generation = %d, want 1", g)
		}
	})
}

func TestRecordVerdict(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		t0 := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		vs := []store.Verdict{
			{Repo: "o/r", PR: 1, SignOffKey: "issuecomment-2", AssessedSHA: "bbb", Verdict: "PASS", CommentURL: "u2", DeliveryID: "d2", PublishedAt: t0.Add(time.Minute)},
			{Repo: "o/r", PR: 1, SignOffKey: "issuecomment-1", AssessedSHA: "aaa", Verdict: "REJECTED", CommentURL: "u1", DeliveryID: "d1", PublishedAt: t0},
			{Repo: "o/r", PR: 2, SignOffKey: "issuecomment-3", AssessedSHA: "ccc", Verdict: "WARN", CommentURL: "u3", DeliveryID: "d3", PublishedAt: t0},
		}
		for _, v := range vs {
			if err := s.AppendVerdict(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Verdicts(ctx, "o/r", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != vs[1] || got[1] != vs[0] {
			t.Fatalf("Verdicts = %+v", got)
		}
	})
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	for _, u := range []string{"mysql://x", "", "sqlite://", "verdict.db"} {
		if _, err := store.Open(context.Background(), u); err == nil {
			t.Errorf("Open(%q) succeeded", u)
		}
	}
}

// TestSQLiteFileNameIsLiteral: "#" and "%" are ordinary characters of a
// file name; SQLite's URI syntax must not cut the name at "#" or decode a
// "%41" in it.
func TestSQLiteFileNameIsLiteral(t *testing.T) {
	for _, name := range []string{"verdict#1.db", "a%41b.db", "x#y%23z.db", "plain.db"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := store.Open(context.Background(), "sqlite://"+filepath.Join(dir, name)+"?synchronous=NORMAL")
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var db []string
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), "-wal") && !strings.HasSuffix(e.Name(), "-shm") {
					db = append(db, e.Name())
				}
			}
			if len(db) != 1 || db[0] != name {
				t.Fatalf("files %v, want exactly %q", db, name)
			}
		})
	}
}

// While Migrating runs f, no other session can take the migration lock;
// afterwards it is free again. On SQLite f simply runs.
func TestMigratingHoldsTheLock(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		other := open(t, url)
		try := func() bool {
			if other.Pgx() == nil {
				return true
			}
			conn, err := other.Pgx().Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			var ok bool
			if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock(7305880417)").Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if ok {
				conn.Exec(ctx, "SELECT pg_advisory_unlock(7305880417)")
			}
			return ok
		}
		ran := false
		err := s.Migrating(ctx, func(context.Context) error {
			ran = true
			if s.Pgx() != nil && try() {
				t.Error("another session took the migration lock while a migration ran")
			}
			return nil
		})
		if err != nil || !ran {
			t.Fatalf("Migrating: ran=%v, %v", ran, err)
		}
		if !try() {
			t.Error("the migration lock is still held after the migration")
		}
	})
}
