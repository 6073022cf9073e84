package webhook_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/webhook"
)

// BenchmarkUnsignedBodies sends 8 unsigned 24 MiB deliveries at once over
// HTTP, as an attacker without the secret can, and reports what the
// process holds once they have all been answered: resident memory
// (rss-MB, Linux only) and heap in use (heap-MB).
func BenchmarkUnsignedBodies(b *testing.B) {
	srv := httptest.NewServer(&webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: &memQueue{}, Logger: quiet})
	defer srv.Close()
	body := bytes.Repeat([]byte{'x'}, 24<<20)
	codes := map[int]int{}
	var mu sync.Mutex
	for b.Loop() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
				req.Header.Set("X-GitHub-Event", "issue_comment")
				req.Header.Set("X-GitHub-Delivery", "d")
				req.Header.Set("X-Hub-Signature-256", "sha256=00")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	if rss := residentMB(); rss > 0 {
		b.ReportMetric(rss, "rss-MB")
	}
	b.Logf("answers: %v", codes)
}

// residentMB is VmRSS from /proc/self/status, 0 where there is none.
func residentMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}
