package queue_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// TestFrozenDatabaseTrial freezes the PostgreSQL server of this machine
// (SIGSTOP to every postgres process) for VERDICT_FREEZE_SECONDS (default
// 25) while a burst of verifications runs, thaws it, and reports how long
// after the thaw every verification had run. It needs root and stalls
// every other user of that server, so it runs only when
// VERDICT_FREEZE_TRIAL=1; BENCHMARKS.md ("Reliability, round two") has the
// command and the figures.
func TestFrozenDatabaseTrial(t *testing.T) {
	if os.Getenv("VERDICT_FREEZE_TRIAL") != "1" {
		t.Skip("VERDICT_FREEZE_TRIAL is not 1: the trial freezes the whole PostgreSQL server")
	}
	url := storetest.PostgresURL(t)
	freeze := 25 * time.Second
	if s := os.Getenv("VERDICT_FREEZE_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		freeze = time.Duration(n) * time.Second
	}
	var pids []int
	signal := func(sig syscall.Signal) {
		if sig == syscall.SIGSTOP {
			// The server and every backend it has forked by now.
			out, err := exec.Command("pgrep", "-x", "postgres").Output()
			if err != nil {
				t.Fatalf("finding the postgres processes: %v", err)
			}
			pids = pids[:0]
			for _, f := range strings.Fields(string(out)) {
				pid, _ := strconv.Atoi(f)
				pids = append(pids, pid)
			}
		}
		for _, pid := range pids {
			syscall.Kill(pid, sig)
		}
	}
	defer signal(syscall.SIGCONT)

	const n = 200
	rec := &recorder{hold: 300 * time.Millisecond}
	st := openStore(t, url)
	q := startQueue(t, st, rec, queue.Options{Workers: 8, FetchPollInterval: 200 * time.Millisecond})
	for i := range n {
		if _, err := q.Enqueue(context.Background(), verifyDelivery(fmt.Sprint("freeze-", i), 100+i, fmt.Sprint("issuecomment-", 900+i))); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	signal(syscall.SIGSTOP)
	time.Sleep(freeze)
	signal(syscall.SIGCONT)
	thaw := time.Now()
	deadline := thaw.Add(10 * time.Minute)
	check := openStore(t, url)
	for {
		var completed int
		if err := check.DB().QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&completed); err != nil {
			t.Fatal(err)
		}
		if completed == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs completed 10 minutes after the thaw", completed, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	v, _, _ := rec.calls()
	var requeued int
	if err := check.DB().QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE errors::text LIKE '%requeued by%'`).Scan(&requeued); err != nil {
		t.Fatal(err)
	}
	t.Logf("frozen %v: all %d verified %v after the thaw (%d runs, %d jobs requeued as stranded)",
		freeze, n, time.Since(thaw).Round(100*time.Millisecond), v, requeued)
}
