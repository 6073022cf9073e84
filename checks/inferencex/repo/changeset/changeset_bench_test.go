package changeset_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// genMaster writes a master config of about size bytes in the shape of the
// real ones: single-node fixed-seq-len and agentic entries with flow-style
// search spaces, comments, and multi-node disagg entries with prefill/decode
// blocks.
func genMaster(size int) string {
	var b strings.Builder
	fws := []string{"sglang", "vllm", "atom", "trt"}
	skus := []string{"mi355x", "mi300x", "b200", "h200", "gb200"}
	for i := 0; b.Len() < size; i++ {
		fw, sku := fws[i%len(fws)], skus[i%len(skus)]
		prefix := fmt.Sprintf("m%d", i/7)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "# %s on %s: fixed sequence length sweep, tuned for throughput.\n", prefix, sku)
			fmt.Fprintf(&b, "%s-fp8-%s-%s-%d:\n  image: lmsysorg/%s:v0.5.%d-rocm700-mi35x\n  model: org/Model-%d-FP8\n  model-prefix: %s\n  runner: %s\n  precision: fp8\n  framework: %s\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 4, conc-start: 4, conc-end: 64 }\n      - { tp: 8, ep: 1, conc-start: 4, conc-end: 256, spec-decoding: mtp }\n\n",
				prefix, sku, fw, i, fw, i%30, i, prefix, sku, fw)
		case 1:
			fmt.Fprintf(&b, "%s-fp4-%s-%s-agentic-mtp-%d:\n  image: vllm/vllm-openai-rocm:nightly-%08x\n  model: org/Model-%d-FP4\n  model-prefix: %s\n  runner: cluster:%s-amds\n  precision: fp4\n  framework: %s\n  multinode: false\n  scenarios:\n    agentic-coding:\n    - dram-utilization: 0.80\n      search-space:\n      - { tp: 2, ep: 2, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8, 12, 16, 20] }\n      - { tp: 4, ep: 1, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8, 12, 16, 20, 24, 28, 32, 40] }\n\n",
				prefix, sku, fw, i, i*2654435761, i, prefix, sku, fw)
		default:
			fmt.Fprintf(&b, "%s-fp8-%s-%s-disagg-%d:\n  image: lmsysorg/sglang:v0.5.16-rocm720-mi35x\n  model: org/Model-%d-FP8\n  model-prefix: %s\n  runner: %s-disagg\n  precision: fp8\n  framework: sglang-disagg\n  router: { name: sglang-router, version: \"0.3.2\" }\n  kv-p2p-transfer: mori\n  multinode: true\n  disagg: true\n  scenarios:\n    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n      # 1P+1D baseline.\n      - spec-decoding: \"none\"\n        conc-list: [ 8, 16, 32, 64, 128 ]\n        prefill:\n          num-worker: 1\n          tp: 4\n          ep: 1\n          dp-attn: false\n          additional-settings:\n          - \"PREFILL_NODES=1\"\n        decode:\n          num-worker: 1\n          tp: 8\n          ep: 1\n          dp-attn: false\n          additional-settings:\n          - \"DECODE_NODES=1\"\n\n",
				prefix, sku, fw, i, i, prefix, sku)
		}
	}
	return b.String()
}

func benchmarkChangeSet(b *testing.B, size int) {
	r := inferencextest.NewRepo(repo.LegacyLayout())
	master := genMaster(size)
	r.Base["configs/amd-master.yaml"] = master
	r.Head["configs/amd-master.yaml"] = strings.Replace(master, "conc-end: 64 }", "conc-end: 128 }", 1)
	r.AppendChangelog("m1-*")
	b.ReportAllocs()
	b.ResetTimer()
	var reads, distinct int
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		pr, src := r.PR(b)
		cnt := &countingSource{Source: src}
		pr.Source = cnt
		runtime.GC()
		c0 := processCPU(b)
		b.StartTimer()
		cs, err := changeset.Fact.Of(context.Background(), pr)
		b.StopTimer()
		cpu += processCPU(b) - c0
		b.StartTimer()
		if err != nil || len(cs.ChangedKeys) != 1 || len(cs.Problems) != 0 {
			b.Fatalf("changed %v problems %v err %v", cs.ChangedKeys, cs.Problems, err)
		}
		reads, distinct = 0, len(cnt.reads)
		for _, n := range cnt.reads {
			reads += n
		}
	}
	b.ReportMetric(float64(len(master))/1024, "KiB-master")
	b.ReportMetric(float64(reads), "reads/op")
	// CPU time (all threads, GC included) says what the build costs when
	// other work shares the machine and wall time says little.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if reads != distinct {
		b.Fatalf("%d reads of %d distinct files", reads, distinct)
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkChangeSet(b *testing.B) {
	b.Run("real-size", func(b *testing.B) { benchmarkChangeSet(b, 53<<10) })
	b.Run("5MB", func(b *testing.B) { benchmarkChangeSet(b, 5<<20) })
}
