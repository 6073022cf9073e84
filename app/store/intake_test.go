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
