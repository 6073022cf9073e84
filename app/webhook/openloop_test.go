package webhook_test

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store/storetest"
)

// BenchmarkIntakeOpenLoop offers signed deliveries at a constant arrival
// rate, each sent at its scheduled time whether or not earlier ones were
// answered (open loop: a slow ack cannot slow the offered load down), to the
// real handler, group-commit queue and store, with 8 workers draining the
// same database. Latency counts from each delivery's scheduled send time to
// its 202, so queueing anywhere (client, server, database) is in it. b.N is
// the number of deliveries; the postgres run needs VERDICT_TEST_DATABASE_URL.
//
//	go test -run '^$' -bench IntakeOpenLoop -benchtime 10000x ./app/webhook/
//	VERDICT_BENCH_RATE=2000 go test -run '^$' -bench IntakeOpenLoop -benchtime 20000x ./app/webhook/
func BenchmarkIntakeOpenLoop(b *testing.B) {
	rate := 1000
	if v, err := strconv.Atoi(os.Getenv("VERDICT_BENCH_RATE")); err == nil && v > 0 {
		rate = v
	}
	b.Run("sqlite", func(b *testing.B) { openLoop(b, storetest.SQLiteURL(b), rate) })
	b.Run("postgres", func(b *testing.B) { openLoop(b, storetest.PostgresURL(b), rate) })
}

func openLoop(b *testing.B, url string, rate int) {
	srv, _, _ := durableServer(b, url, 8)
	// As many connections as requests in flight, kept alive, as GitHub's
	// delivery fleet would open; a warm-up opens a few and fills the caches.
	tr := &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	run := fmt.Sprint(time.Now().UnixNano())
	for i := range 50 {
		if code, err := deliver(c, srv.URL, fmt.Sprint("warm-", run, "-", i), signOffBody(int64(i)), current); err != nil || code != http.StatusAccepted {
			b.Fatalf("warm-up delivery: %d %v", code, err)
		}
	}
	lats := make([]time.Duration, b.N)
	var failed sync.Map
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	b.ResetTimer()
	cpu0 := processCPU(b)
	start := time.Now()
	for i := range b.N {
		at := start.Add(time.Duration(i) * interval)
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := signOffBody(int64(i))
			code, err := deliver(c, srv.URL, fmt.Sprint("ol-", run, "-", i), body, current)
			lats[i] = time.Since(at)
			if err != nil || code != http.StatusAccepted {
				failed.Store(i, fmt.Sprint(code, " ", err))
			}
		}()
	}
	offered := time.Since(start)
	wg.Wait()
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	n := 0
	failed.Range(func(k, v any) bool {
		if n++; n <= 3 {
			b.Errorf("delivery %v: %v", k, v)
		}
		return true
	})
	if n > 0 {
		b.Fatalf("%d of %d deliveries not accepted", n, b.N)
	}
	slices.Sort(lats)
	pct := func(p float64) float64 {
		return float64(lats[min(len(lats)-1, int(p*float64(len(lats))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/offered.Seconds(), "offered/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(0.999), "p99.9-ms")
	b.ReportMetric(float64(lats[len(lats)-1].Microseconds())/1000, "max-ms")
	// CPU per delivery (client, server, database driver and workers of
	// this process; PostgreSQL's own processes excluded) says what intake
	// costs when other work shares the machine and latency says little.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/delivery")
}

// processCPU is the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
