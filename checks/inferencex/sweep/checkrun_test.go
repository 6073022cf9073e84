package sweep_test

import (
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/sweep"
)

func TestClassifyJob(t *testing.T) {
	s := repo.Defaults()
	tests := map[string]sweep.JobKind{
		"single-node 8k1k / p1 | qwen3.5 fp8 b200 sgl TP8 mtp c64": sweep.JobBenchmark,
		"multi-node 1k1k / p1 | dsr1 fp4 gb200 dyn c64":            sweep.JobBenchmark,
		"agentic / p1 | qwen3.5 fp8 mi355x sgl TP4 c8":             sweep.JobBenchmark,
		"multi-node agentic / p1 | dsv4 fp4 gb300 dyn c8":          sweep.JobBenchmark,
		"canary / p1 | x": sweep.JobBenchmark,
		"eval / p1 | qwen3.5 fp8 b200 sgl TP8 c64 | eval-only": sweep.JobEval,
		"agentic eval / p1 | x":                                sweep.JobEval,
		"multi-node eval / p1 | x":                             sweep.JobEval,
		"multi-node agentic eval / p1 | x":                     sweep.JobEval,
		"collect-evals":                                        sweep.JobAggregator,
		"collect-results":                                      sweep.JobAggregator,
		"setup":                                                sweep.JobAggregator,
		"reuse-sweep-gate":                                     sweep.JobAggregator,
		"lint":                                                 sweep.JobOther,
		"evaluate-something":                                   sweep.JobOther,
	}
	for name, want := range tests {
		if got := sweep.ClassifyJob(&s, name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

func TestRunIDFromURL(t *testing.T) {
	for u, want := range map[string]int64{
		"https://github.com/o/r/actions/runs/30123456789/job/1": 30123456789,
		"https://github.com/o/r/actions/runs/42":                42,
		"https://github.com/o/r/actions/runs/42x/job/1":         0,
		"https://ci.example.com/build/7":                        0,
		"":                                                      0,
	} {
		if got := sweep.RunIDFromURL(u); got != want {
			t.Errorf("%q: %d, want %d", u, got, want)
		}
	}
}
