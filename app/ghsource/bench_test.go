package ghsource

import (
	"archive/zip"
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/checks"
)

// writeBigZip streams an archive of about size bytes to path: one stored
// entry of pseudo-random (incompressible) bytes plus a small wanted JSON.
func writeBigZip(tb testing.TB, path string, size int64) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(bw)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "raw/agentic_trace.bin", Method: zip.Store})
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.NewChaCha8([32]byte{1})
	buf := make([]byte, 1<<20)
	for written := int64(0); written < size; written += int64(len(buf)) {
		rng.Read(buf)
		if _, err := w.Write(buf); err != nil {
			tb.Fatal(err)
		}
	}
	j, _ := zw.Create("result.json")
	j.Write([]byte(`{"hw":"mi355x-amds","conc":8}`))
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkArtifactPeakHeap measures the heap growth while a large artifact
// is downloaded and its small wanted entry extracted. The archive size is
// 500 MiB unless VERDICT_BENCH_ARTIFACT_MB says otherwise.
//
//	go test -run=^$ -bench=ArtifactPeakHeap -benchtime=3x ./app/ghsource/
func BenchmarkArtifactPeakHeap(b *testing.B) {
	mb := int64(500)
	if v, err := strconv.ParseInt(os.Getenv("VERDICT_BENCH_ARTIFACT_MB"), 10, 64); err == nil && v > 0 {
		mb = v
	}
	dir := b.TempDir()
	zpath := filepath.Join(dir, "big.zip")
	writeBigZip(b, zpath, mb<<20)
	st, _ := os.Stat(zpath)

	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	r.Commit("c", "")
	r.Branch("main", "c")
	r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c"}, Files: []*fixture.File{{Filename: "x"}}})
	r.Run(&fixture.WorkflowRun{ID: 1, HeadCommit: "c", Artifacts: []*fixture.Artifact{{ID: 10, Name: "bmk_agentic_big", Zip: zpath}}})
	s := githubtest.New(b, fx)
	a := checks.Artifact{ID: 10, Name: "bmk_agentic_big", SizeBytes: st.Size()}
	ctx := context.Background()

	var peak atomic.Uint64
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(2 * time.Millisecond)
			defer t.Stop()
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > base {
					if d := m.HeapInuse - base; d > peak.Load() {
						peak.Store(d)
					}
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		src := newSource(b, s, Options{TempDir: dir})
		b.StartTimer()
		files, err := src.ArtifactFiles(ctx, a, func(n string) bool { return n == "result.json" })
		b.StopTimer()
		close(stop)
		wg.Wait()
		if err != nil || len(files) != 1 {
			b.Fatalf("artifact: %v %v", files, err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(st.Size())/(1<<20), "archive-MiB")
}

// BenchmarkFilesOfLargePR lists the changed files of a 2,000-file PR (20
// pages) against the fake GitHub with 30 ms per call: the first page says
// how many there are, and the other 19 are read together.
func BenchmarkFilesOfLargePR(b *testing.B) {
	fx := fixture.New("verdict")
	fx.Tree("t").Put("README.md", "r\n")
	r := fx.Repo(ixFull)
	r.Commit("c", "t")
	r.Branch("main", "c")
	r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c"}, Files: manyFiles(2000)})
	s := githubtest.New(b, fx)
	s.SetLatency(30 * time.Millisecond)
	for b.Loop() {
		src := newSource(b, s, Options{})
		files, err := src.Files(context.Background())
		if err != nil || len(files) != 2000 {
			b.Fatalf("%d files, %v", len(files), err)
		}
	}
	b.ReportMetric(float64(s.Calls("GET /repos/{owner}/{repo}/pulls/{number}/files"))/float64(b.N), "api-calls/op")
}
