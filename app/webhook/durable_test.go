package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
	"github.com/verdict-bot/verdict/app/webhook"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type countVerifier struct{ n atomic.Int64 }

func (c *countVerifier) Verify(context.Context, jobs.VerifyArgs, jobs.Attempt) error {
	c.n.Add(1)
	return nil
}

// durableServer is the real intake path: handler, group-commit queue and
// workers on a database.
func durableServer(tb testing.TB, url string, workers int) (*httptest.Server, *store.Store, *countVerifier) {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	v := &countVerifier{}
	opt := queue.Options{Verifier: v, Logger: quiet, Workers: workers}
	if d, err := time.ParseDuration(os.Getenv("VERDICT_BENCH_LINGER")); err == nil {
		opt.Linger = d
	}
	q, err := queue.New(ctx, st, opt)
	if err != nil {
		tb.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(&webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q, Logger: quiet})
	tb.Cleanup(func() {
		srv.Close()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		q.Stop(sctx)
		st.Close()
	})
	return srv, st, v
}

func signOffBody(commentID int64) []byte {
	return fmt.Appendf(nil, `{"action":"created","repository":{"full_name":"o/r","name":"r","owner":{"login":"o"}},`+
		`"installation":{"id":1},"issue":{"number":%d,"pull_request":{"url":"u"}},`+
		`"comment":{"id":%d,"body":"As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] ok","user":{"login":"bob"},"author_association":"MEMBER"},`+
		`"sender":{"login":"bob","type":"User"}}`, 1+commentID%50, commentID)
}

func deliver(c *http.Client, base, id string, body []byte, secret []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/webhook", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, body))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func TestDurableIntake(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		srv, st, v := durableServer(t, url, 2)
		ctx := context.Background()
		c := srv.Client()
		if code, err := deliver(c, srv.URL, "bad", signOffBody(1), []byte("wrong")); err != nil || code != 401 {
			t.Fatalf("bad signature: %d %v", code, err)
		}
		if n, _ := st.CountDeliveries(ctx); n != 0 {
			t.Fatalf("bad signature stored %d deliveries", n)
		}
		for range 3 {
			if code, err := deliver(c, srv.URL, "again", signOffBody(2), current); err != nil || code != 202 {
				t.Fatalf("delivery: %d %v", code, err)
			}
		}
		deadline := time.Now().Add(20 * time.Second)
		for v.n.Load() < 1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		if got := v.n.Load(); got != 1 {
			t.Fatalf("redelivered delivery verified %d times", got)
		}
		if n, _ := st.CountDeliveries(ctx); n != 1 {
			t.Fatalf("%d deliveries stored", n)
		}
	})
}

// BenchmarkDurableAck measures signed deliveries acknowledged per second on
// SQLite through the real HTTP handler, with group commit and the workers
// draining the same database, and the ack latency percentiles.
//
//	go test -run '^$' -bench BenchmarkDurableAck -benchtime 5000x -cpu 2 ./app/webhook/
//	VERDICT_BENCH_RATE=1000 go test -run '^$' -bench BenchmarkDurableAck -benchtime 10000x -cpu 2 ./app/webhook/
//
// Per-request latency includes the client's HTTP round trip; with N
// closed-loop clients, latency ≈ N / throughput, so p50 tracks the client count.
func BenchmarkDurableAck(b *testing.B) {
	srv, _, v := durableServer(b, storetest.SQLiteURL(b), 8)
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	var (
		seq  atomic.Int64
		mu   sync.Mutex
		lats []time.Duration
	)
	// 16 concurrent senders in all (GitHub's delivery concurrency per App
	// is far lower); VERDICT_BENCH_CLIENTS overrides.
	clients := 16
	if v, err := strconv.Atoi(os.Getenv("VERDICT_BENCH_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	// VERDICT_BENCH_RATE=n offers n deliveries/s (open loop) instead of
	// sending as fast as acks come back; latency then counts from each
	// delivery's scheduled time, so a stall cannot hide queued senders.
	rate, _ := strconv.Atoi(os.Getenv("VERDICT_BENCH_RATE"))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			i := seq.Add(1)
			body := signOffBody(i)
			t0 := time.Now()
			if rate > 0 {
				t0 = start.Add(time.Duration(i) * time.Second / time.Duration(rate))
				time.Sleep(time.Until(t0))
			}
			code, err := deliver(c, srv.URL, fmt.Sprint("bench-", start.UnixNano(), "-", i), body, current)
			if err != nil || code != http.StatusAccepted {
				b.Errorf("delivery %d: %d %v", i, code, err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lats = append(lats, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lats) == 0 {
		return
	}
	slices.Sort(lats)
	pct := func(p float64) float64 {
		return float64(lats[min(len(lats)-1, int(p*float64(len(lats))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(lats))/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(v.n.Load()), "verified")
}
