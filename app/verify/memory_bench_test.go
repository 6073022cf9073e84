package verify_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// BenchmarkVerifyWorstInputs measures the peak heap of one verification of
// the sample PR made as large as the documented limits let a PR make it:
//
//   - config: the head's master config grown to just under max_file_bytes
//     (8 MiB) with new entries, every one an affected config;
//   - artifacts: every benchmark artifact of the sweep carrying a 60 MiB
//     wanted JSON entry (each under the per-entry and per-archive limits);
//   - both at once.
//
// The target is 256 MiB. Heap in use (the fake GitHub's included) is
// sampled every 2 ms, with a soft memory limit of 256 MiB as verdict serve
// sets one from its container's: without it the heap grows to twice what
// is live before the runtime collects.
//
//	go test -run '^$' -bench VerifyWorstInputs -benchtime 1x ./app/verify/
func BenchmarkVerifyWorstInputs(b *testing.B) {
	for _, tc := range []struct {
		name              string
		config, artifacts bool
	}{{"config", true, false}, {"artifacts", false, true}, {"both", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := copyFixture(b, filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic"))
			if tc.config {
				growMasterConfig(b, dir, 8<<20-64<<10)
			}
			fx, err := fixture.Load(dir)
			if err != nil {
				b.Fatal(err)
			}
			if tc.artifacts {
				bloatArtifacts(b, fx, 60<<20)
			}
			srv := githubtest.New(b, fx)
			v := newTestVerifier()
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
			var peak uint64
			for b.Loop() {
				gh := clientWith(b, srv, ghsource.Options{Cache: ghsource.NewCache(64 << 20), TempDir: b.TempDir()})
				p, err := peakHeap(func() error {
					_, err := v.Verify(context.Background(), gh, sampleRequest())
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// peakHeap runs f and returns the most heap in use above what was in use
// before it began.
func peakHeap(f func() error) (uint64, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
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
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := f()
	close(stop)
	wg.Wait()
	return peak.Load(), err
}

// copyFixture copies a fixture directory, so a benchmark can change its
// files (files on disk win over ones set in code).
func copyFixture(b testing.TB, src string) string {
	dst := b.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
	return dst
}

// growMasterConfig appends copies of the head master config's agentic
// entry, under new keys, until the file is about size bytes, and names
// them all in the PR's changelog entry, so every one is an affected config.
func growMasterConfig(b testing.TB, dir string, size int) {
	head := filepath.Join(dir, "trees", "head", "inferencex-e2e")
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(head, name))
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(head, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	orig := read("configs/amd-master.yaml")
	i := strings.Index(orig, "qwen3.5-fp8-mi355x-sglang-agentic-mtp:")
	if i < 0 {
		b.Fatal("the sample's agentic entry moved")
	}
	entry := orig[i:]
	var sb, keys strings.Builder
	sb.WriteString(orig)
	for n := 0; sb.Len() < size; n++ {
		key := fmt.Sprintf("qwen3.5-fp8-mi355x-sglang-agentic-mtp-copy%d", n)
		sb.WriteString("\n" + strings.Replace(entry, "qwen3.5-fp8-mi355x-sglang-agentic-mtp:", key+":", 1))
		keys.WriteString("    - " + key + "\n")
	}
	write("configs/amd-master.yaml", sb.String())
	cl := read("perf-changelog.yaml")
	last := strings.LastIndex(cl, "- config-keys:\n")
	if last < 0 {
		b.Fatal("the sample's changelog moved")
	}
	cl = cl[:last] + "- config-keys:\n" + keys.String() + strings.TrimPrefix(cl[last:], "- config-keys:\n")
	write("perf-changelog.yaml", cl)
}

// bloatArtifacts gives every benchmark artifact a wanted entry of about
// size bytes: a valid result JSON padded with a long field.
func bloatArtifacts(b *testing.B, fx *fixture.Fixture, size int) {
	dir := b.TempDir()
	for _, r := range fx.Repos {
		for _, run := range r.WorkflowRuns {
			for _, a := range run.Artifacts {
				if !strings.HasPrefix(a.Name, "bmk_") {
					continue
				}
				files := artifactEntries(b, fx, a)
				zpath := filepath.Join(dir, fmt.Sprintf("%d.zip", a.ID))
				writeBloatedZip(b, zpath, files, size)
				a.Dir, a.Files, a.Zip, a.RawZip = "", nil, zpath, nil
			}
		}
	}
}

// artifactEntries are the files of a's archive as the fixture builds it.
func artifactEntries(b *testing.B, fx *fixture.Fixture, a *fixture.Artifact) map[string][]byte {
	raw, err := fx.BuildZip(a)
	if err != nil {
		b.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		b.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			b.Fatal(err)
		}
		out[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func writeBloatedZip(b *testing.B, path string, files map[string][]byte, size int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(bw)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		s := strings.TrimSpace(string(data))
		if strings.HasSuffix(name, ".json") && strings.HasSuffix(s, "}") {
			// The padding goes inside the document, so it is one JSON
			// value of about size bytes.
			w.Write([]byte(s[:len(s)-1] + `, "padding": [`))
			chunk := []byte(strings.Repeat("1.25, ", 1<<14))
			for n := 0; n < size; n += len(chunk) {
				w.Write(chunk)
			}
			w.Write([]byte("0]}"))
		} else {
			w.Write(data)
		}
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkConcurrentUnderBudget runs 8 verifications at once of the sample
// with a 5 MiB master config, as 8 workers would, with and without a
// process memory budget (ghsource.Memory, VERDICT_MEMORY_BUDGET); a
// verification deferred for room is retried after 50 ms, as the queue
// would, under the soft memory limit serve sets in the shipped 768 MiB
// container. It reports the peak heap and how many attempts were deferred.
//
//	go test -run '^$' -bench ConcurrentUnderBudget -benchtime 1x ./app/verify/
func BenchmarkConcurrentUnderBudget(b *testing.B) {
	dir := copyFixture(b, filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic"))
	growMasterConfig(b, dir, 5<<20)
	fx, err := fixture.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	srv := githubtest.New(b, fx)
	for _, budget := range []int64{0, 384 << 20} {
		b.Run(fmt.Sprintf("budget=%dMiB", budget>>20), func(b *testing.B) {
			var mem *ghsource.Memory
			if budget > 0 {
				mem = ghsource.NewMemory(budget, 2*time.Second)
			}
			// serve's soft limit in the shipped 768 MiB container (85 %).
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(768 << 20 / 100 * 85))
			var peak uint64
			var deferred atomic.Int64
			for b.Loop() {
				p, err := peakHeap(func() error {
					var wg sync.WaitGroup
					errs := make([]error, 8)
					for i := range errs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for {
								gh := clientWith(b, srv, ghsource.Options{TempDir: b.TempDir(), Memory: mem})
								out, err := newTestVerifier().Verify(context.Background(), gh, sampleRequest())
								if err != nil && strings.Contains(err.Error(), "memory budget") {
									deferred.Add(1)
									time.Sleep(50 * time.Millisecond)
									continue
								}
								if err == nil && out.Verdict.Overall == "" {
									err = fmt.Errorf("no verdict")
								}
								errs[i] = err
								return
							}
						}()
					}
					wg.Wait()
					return errors.Join(errs...)
				})
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(deferred.Load()), "deferred")
		})
	}
}
