package serving

import (
	"strings"
	"testing"
)

// The benchmark clients a dry run starts, and whether each asks for the
// chat template.
func TestBenchmarkClientAndChatTemplate(t *testing.T) {
	for _, tc := range []struct {
		argv         string
		client, chat bool
	}{
		{"python3 /ws/utils/bench_serving/benchmark_serving.py --backend openai --use-chat-template", true, true},
		{"python3 /ws/utils/bench_serving/benchmark_serving.py --backend openai --dsv4", true, true},
		{"python3 benchmark_serving.py --use-chat-template=false", true, false},
		{"python3 -m sglang.bench_serving --max-concurrency 8", true, false},
		{"vllm bench serve --model m --use-chat-template", true, true},
		{"vllm serve /models/m --chat-template t.jinja", false, false},
		{"python3 -m sglang.launch_server --model-path m", false, false},
		{"cat benchmark_serving.py", false, false},
	} {
		w := strings.Fields(tc.argv)
		if got := BenchmarkClient(w); got != tc.client {
			t.Errorf("%q: client = %v, want %v", tc.argv, got, tc.client)
		}
		if got := ChatTemplated(w); got != tc.chat {
			t.Errorf("%q: chat template = %v, want %v", tc.argv, got, tc.chat)
		}
	}
}
