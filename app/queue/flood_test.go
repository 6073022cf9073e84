package queue_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// floodResult is what a flood of deliveries did to the queue.
type floodResult struct {
	sent int64
	// maxWaiting is the most jobs seen waiting at once, maxLive the most
	// seen not finished (waiting or running).
	maxWaiting, maxLive int
}

// flood sends deliveries for PR 7 of one repository, cycling through keys,
// from senders goroutines until n were sent (n > 0) or until is reached,
// sampling the queue every few milliseconds meanwhile.
func flood(ctx context.Context, q *queue.Queue, st *store.Store, keys []string, senders, n int, until time.Time) (floodResult, error) {
	var res floodResult
	var wg sync.WaitGroup
	var seq, sent atomic.Int64
	errs := make(chan error, senders)
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := seq.Add(1)
				if (n > 0 && i > int64(n)) || (n <= 0 && time.Now().After(until)) {
					return
				}
				if _, err := q.Enqueue(ctx, verifyDelivery(fmt.Sprint("flood-", i), 7, keys[int(i)%len(keys)])); err != nil {
					errs <- err
					return
				}
				sent.Add(1)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		w, l, err := depth(ctx, st)
		if err != nil {
			return res, err
		}
		res.maxWaiting, res.maxLive = max(res.maxWaiting, w), max(res.maxLive, l)
		select {
		case <-done:
			res.sent = sent.Load()
			select {
			case err := <-errs:
				return res, err
			default:
				return res, nil
			}
		case <-tick.C:
		}
	}
}

// depth counts the jobs waiting and those not finished.
func depth(ctx context.Context, st *store.Store) (waiting, live int, err error) {
	if waiting, err = st.QueueDepth(ctx); err != nil {
		return 0, 0, err
	}
	var running int
	if err := st.DB().QueryRow(ctx, `SELECT COUNT(*) FROM river_job WHERE state = 'running'`).Scan(&running); err != nil {
		return 0, 0, fmt.Errorf("counting running jobs: %w", err)
	}
	return waiting, waiting + running, nil
}

// TestFloodKeepsQueueShallow: a flood of deliveries for two sign-offs of
// one PR, while verifications are slow, never has more jobs waiting than
// there are sign-offs, never runs two verifications of the PR at once, and
// the newest event of each sign-off is verified in the end.
func TestFloodKeepsQueueShallow(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		rec := &recorder{hold: 30 * time.Millisecond}
		q := startQueue(t, st, rec, queue.Options{Workers: 4})
		keys := []string{"issuecomment-71", "pullrequestreview-72"}
		const n = 400
		res, err := flood(context.Background(), q, st, keys, 8, n, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if res.maxWaiting > len(keys) {
			t.Errorf("up to %d jobs waited at once; want at most %d (one per sign-off)", res.maxWaiting, len(keys))
		}
		rec.mu.Lock()
		perPR := rec.maxPerPR
		rec.mu.Unlock()
		if perPR > 1 {
			t.Errorf("%d verifications of the PR ran at once; want one", perPR)
		}
		// The last verification of each sign-off is of its newest event.
		ctx := context.Background()
		waitFor(t, "the newest event of each sign-off verified", func() bool {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			seen := map[string]int64{}
			for _, v := range rec.verifies {
				seen[v.CoalesceKey()] = v.Generation
			}
			for _, k := range keys {
				key := jobs.VerifyArgs{Repo: repo, PR: 7, SignOff: ref(k)}.CoalesceKey()
				if g, err := st.Generation(ctx, key); err != nil || seen[key] != g {
					return false
				}
			}
			return len(rec.verifies) > 0
		})
		if v, _, _ := rec.calls(); v >= n/4 {
			t.Errorf("%d verifications for %d deliveries; the flood did not coalesce", v, n)
		}
	})
}

// BenchmarkFlood is a sustained flood of deliveries for one PR (16
// senders, each sending as soon as its delivery is stored, cycling through
// VERDICT_BENCH_FLOOD_KEYS sign-offs, default 1) for
// VERDICT_BENCH_FLOOD_SECONDS (default 5) while verifications take 100 ms.
// It reports deliveries stored per second, the most jobs waiting and alive
// at once, and the verifications run.
func BenchmarkFlood(b *testing.B) {
	seconds, keysN := 5, 1
	fmt.Sscan(os.Getenv("VERDICT_BENCH_FLOOD_SECONDS"), &seconds)
	fmt.Sscan(os.Getenv("VERDICT_BENCH_FLOOD_KEYS"), &keysN)
	var keys []string
	for i := range keysN {
		keys = append(keys, fmt.Sprintf("issuecomment-%d", 100+i))
	}
	for _, e := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", storetest.SQLiteURL}, {"postgres", storetest.PostgresURL}} {
		b.Run(e.name, func(b *testing.B) { benchFlood(b, e.url(b), keys, seconds) })
	}
}

func benchFlood(b *testing.B, url string, keys []string, seconds int) {
	{
		for b.Loop() {
			st := openStore(b, url)
			rec := &recorder{hold: 100 * time.Millisecond}
			q := startQueue(b, st, rec, queue.Options{})
			start := time.Now()
			res, err := flood(context.Background(), q, st, keys, 16, 0, start.Add(time.Duration(seconds)*time.Second))
			if err != nil {
				b.Fatal(err)
			}
			el := time.Since(start)
			v, _, _ := rec.calls()
			b.ReportMetric(float64(res.sent)/el.Seconds(), "deliveries/s")
			b.ReportMetric(float64(res.sent), "deliveries")
			b.ReportMetric(float64(res.maxWaiting), "max-waiting")
			b.ReportMetric(float64(res.maxLive), "max-alive")
			b.ReportMetric(float64(v), "verifications")
		}
	}
}
