package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// TestBatchIntakeMatchesOneByOne: the batch statements of a group commit
// answer exactly as the one-row statements called in turn, including IDs
// and keys repeated within a batch, ones already stored, and batches larger
// than one statement takes.
func TestBatchIntakeMatchesOneByOne(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		// The one-by-one reference needs no durability.
		batch, single := open(t, url), open(t, storetest.SQLiteURL(t)+"?synchronous=OFF")
		at := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		mk := func(id string) store.Delivery {
			return store.Delivery{ID: id, Event: "issue_comment", Action: "created", Repo: "o/r", PR: 7, Received: at, Outcome: "queued", Jobs: 1}
		}
		cases := [][]string{{"a", "b", "a"}, {"b", "c", "c", "d"}, {}}
		var big []string
		for i := range 1200 {
			big = append(big, fmt.Sprint("big-", i%700))
		}
		cases = append(cases, big)
		for i, ids := range cases {
			ds := make([]store.Delivery, len(ids))
			want := make([]bool, len(ids))
			for j, id := range ids {
				ds[j] = mk(id)
				f, err := store.InsertDelivery(ctx, single.DB(), ds[j])
				if err != nil {
					t.Fatal(err)
				}
				want[j] = f
			}
			var got []bool
			err := batch.InTx(ctx, func(ex store.Execer) error {
				var err error
				got, err = store.InsertDeliveries(ctx, ex, ds)
				return err
			})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("batch %d: fresh %v, %v; want %v", i, got, err, want)
			}
			var gens, wantGens []int64
			for _, k := range ids {
				g, err := store.NextGeneration(ctx, single.DB(), "key-"+k)
				if err != nil {
					t.Fatal(err)
				}
				wantGens = append(wantGens, g)
			}
			keys := make([]string, len(ids))
			for j, id := range ids {
				keys[j] = "key-" + id
			}
			err = batch.InTx(ctx, func(ex store.Execer) error {
				var err error
				gens, err = store.NextGenerations(ctx, ex, keys)
				return err
			})
			if err != nil || len(gens) != len(wantGens) || len(gens) > 0 && !reflect.DeepEqual(gens, wantGens) {
				t.Fatalf("batch %d: generations %v, %v; want %v", i, gens, err, wantGens)
			}
		}
		if n, _ := batch.CountDeliveries(ctx); n != 704 {
			t.Fatalf("%d deliveries stored, want 704", n)
		}
	})
}

// TestBatchPendingMatchesOneByOne: folding into, dropping and recording
// pending jobs a batch at a time leaves the same rows, and reports the same
// folds, as the one-row statements called in turn, across more keys than
// one statement takes.
func TestBatchPendingMatchesOneByOne(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		batch, single := open(t, url), open(t, storetest.SQLiteURL(t)+"?synchronous=OFF")
		key := func(i int) string { return fmt.Sprint("o/r#1:", i) }
		// Keys 0..599 have a pending job; the batch folds into the even keys
		// of 0..1199 (half of them have none), drops every third key of
		// 0..899 and records jobs for the keys 1000..1099 and 0..49.
		var folds, sets []store.Pending
		var drops []string
		for i := range 600 {
			for _, s := range []*store.Store{batch, single} {
				if err := store.SetPendingJob(ctx, s.DB(), key(i), int64(i), []byte(`"old"`)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i := 0; i < 1200; i += 2 {
			folds = append(folds, store.Pending{Key: key(i), Args: fmt.Appendf(nil, `"fold %d"`, i)})
		}
		for i := 0; i < 900; i += 3 {
			drops = append(drops, key(i))
		}
		for i := range 150 {
			k := 1000 + i
			if i >= 100 {
				k = i - 100
			}
			sets = append(sets, store.Pending{Key: key(k), JobID: int64(10000 + k), Args: fmt.Appendf(nil, `"set %d"`, k)})
		}
		want := map[string]bool{}
		err := single.InTx(ctx, func(ex store.Execer) error {
			for _, p := range folds {
				f, err := store.FoldPending(ctx, ex, p.Key, p.Args)
				if err != nil {
					return err
				}
				want[p.Key] = f
			}
			for _, k := range drops {
				if err := store.DropPending(ctx, ex, k); err != nil {
					return err
				}
			}
			for _, p := range sets {
				if err := store.SetPendingJob(ctx, ex, p.Key, p.JobID, p.Args); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]bool
		err = batch.InTx(ctx, func(ex store.Execer) error {
			var err error
			if got, err = store.FoldPendings(ctx, ex, folds); err != nil {
				return err
			}
			if err := store.DropPendings(ctx, ex, drops); err != nil {
				return err
			}
			return store.SetPendingJobs(ctx, ex, sets)
		})
		if err != nil {
			t.Fatal(err)
		}
		for k, f := range want {
			if got[k] != f {
				t.Fatalf("fold into %s: %v, want %v", k, got[k], f)
			}
		}
		if n := len(got); n != 300 {
			t.Fatalf("%d folds reported, want 300 (the even keys below 600)", n)
		}
		rows := func(s *store.Store) map[string]string {
			out := map[string]string{}
			for i := range 1200 {
				id, ok, err := s.PendingJob(ctx, key(i))
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				err = s.InTx(ctx, func(ex store.Execer) error {
					args, _, err := store.ClaimPending(ctx, ex, key(i), id)
					out[key(i)] = fmt.Sprint(id, " ", string(args))
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			return out
		}
		if g, w := rows(batch), rows(single); !reflect.DeepEqual(g, w) {
			t.Fatalf("pending jobs after the batch differ from one by one:\n%v\nwant\n%v", g, w)
		}
	})
}
