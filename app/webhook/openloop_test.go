package webhook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
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
// The client runs in a process of its own (this test binary, re-executed):
// in the server's process its goroutines, HTTP client and GC would take
// the server's CPU and pause it with their own work, distorting the very
// tail being measured. VERDICT_BENCH_CLIENT=inprocess runs it in the
// server's process instead, as earlier measurements did.
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

// openLoopClientEnv, when set in a re-executed test binary, makes it the
// open-loop client (see TestMain) with the JSON openLoopPlan it holds.
const openLoopClientEnv = "VERDICT_OPENLOOP_CLIENT"

// openLoopPlan is what the client sends: n deliveries at rate per second.
type openLoopPlan struct {
	URL  string
	Run  string // unique per run, for delivery IDs
	N    int
	Rate int
}

// openLoopResult is what the client reports.
type openLoopResult struct {
	Latencies []time.Duration // per delivery, from its scheduled time
	Failed    []string        // the first few failures
	Failures  int
	Offered   time.Duration // from the first scheduled send to the last send
}

func openLoop(b *testing.B, url string, rate int) {
	srv, _, _ := durableServer(b, url, 8)
	plan := openLoopPlan{URL: srv.URL, Run: fmt.Sprint(time.Now().UnixNano()), N: b.N, Rate: rate}
	// A warm-up opens a few connections and fills the caches.
	c := &http.Client{Timeout: 30 * time.Second}
	for i := range 50 {
		if code, err := deliver(c, srv.URL, fmt.Sprint("warm-", plan.Run, "-", i), signOffBody(int64(i)), current); err != nil || code != http.StatusAccepted {
			b.Fatalf("warm-up delivery: %d %v", code, err)
		}
	}
	c.CloseIdleConnections()
	var res openLoopResult
	var clientCPU time.Duration
	b.ResetTimer()
	cpu0 := processCPU(b)
	if os.Getenv("VERDICT_BENCH_CLIENT") == "inprocess" {
		res = sendOpenLoop(plan)
	} else {
		res, clientCPU = openLoopProcess(b, plan)
	}
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	for _, f := range res.Failed {
		b.Error(f)
	}
	if res.Failures > 0 {
		b.Fatalf("%d of %d deliveries not accepted", res.Failures, b.N)
	}
	lats := res.Latencies
	slices.Sort(lats)
	pct := func(p float64) float64 {
		return float64(lats[min(len(lats)-1, int(p*float64(len(lats))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/res.Offered.Seconds(), "offered/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(0.999), "p99.9-ms")
	b.ReportMetric(float64(lats[len(lats)-1].Microseconds())/1000, "max-ms")
	// CPU per delivery of the server's process (handler, store, database
	// driver and workers; the client too when in process; PostgreSQL's own
	// processes excluded) says what intake costs when other work shares the
	// machine and latency says little.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/delivery")
	if clientCPU > 0 {
		b.ReportMetric(float64(clientCPU.Microseconds())/float64(b.N), "client-cpu-µs/delivery")
	}
}

// openLoopProcess runs the client in a re-executed test binary and returns
// its result and CPU time.
func openLoopProcess(b *testing.B, plan openLoopPlan) (openLoopResult, time.Duration) {
	spec, err := json.Marshal(plan)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), openLoopClientEnv+"="+string(spec))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.Fatalf("open-loop client: %v\n%s", err, errOut.Bytes())
	}
	var res openLoopResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Latencies) != plan.N {
		b.Fatalf("open-loop client answered %d latencies for %d deliveries (%v)\n%s", len(res.Latencies), plan.N, err, errOut.Bytes())
	}
	return res, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// runOpenLoopClient is the client process: it sends the plan in spec and
// writes its result as JSON to stdout.
func runOpenLoopClient(spec string) int {
	var plan openLoopPlan
	if err := json.Unmarshal([]byte(spec), &plan); err != nil {
		fmt.Fprintln(os.Stderr, "open-loop client plan:", err)
		return 2
	}
	if err := json.NewEncoder(os.Stdout).Encode(sendOpenLoop(plan)); err != nil {
		fmt.Fprintln(os.Stderr, "open-loop client result:", err)
		return 2
	}
	return 0
}

// sendOpenLoop sends plan.N deliveries, the i-th at start + i/plan.Rate
// from a goroutine of its own.
func sendOpenLoop(plan openLoopPlan) openLoopResult {
	// As many connections as requests in flight, kept alive, as GitHub's
	// delivery fleet would open.
	tr := &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	// The bodies are built ahead, so that sends keep to their schedule.
	bodies := make([][]byte, plan.N)
	for i := range bodies {
		bodies[i] = signOffBody(int64(i))
	}
	res := openLoopResult{Latencies: make([]time.Duration, plan.N)}
	var mu sync.Mutex
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(plan.Rate)
	start := time.Now()
	for i := range plan.N {
		at := start.Add(time.Duration(i) * interval)
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		wg.Go(func() {
			code, err := deliver(c, plan.URL, fmt.Sprint("ol-", plan.Run, "-", i), bodies[i], current)
			res.Latencies[i] = time.Since(at)
			if err != nil || code != http.StatusAccepted {
				mu.Lock()
				if res.Failures++; len(res.Failed) < 3 {
					res.Failed = append(res.Failed, fmt.Sprintf("delivery %d: %d %v", i, code, err))
				}
				mu.Unlock()
			}
		})
	}
	res.Offered = time.Since(start)
	wg.Wait()
	return res
}

// processCPU is the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
