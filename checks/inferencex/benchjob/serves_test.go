package benchjob

import (
	"strings"
	"testing"
)

// Each engine's server is recognised however it is started; clients,
// installs and other Python modules are not servers.
func TestServerLaunches(t *testing.T) {
	for _, tc := range []struct {
		argv   string
		server bool
	}{
		{"vllm serve /models/m --port 8000", true},
		{"sglang serve --model-path m --tp 8", true},
		{"python3 -m sglang.launch_server --model-path m", true},
		{"python -m vllm.entrypoints.openai.api_server --model m", true},
		{"python3 -m atom.entrypoints.openai_server --model m", true},
		{"/usr/local/bin/trtllm-serve m", true},
		{"python3 -m sglang.bench_serving --max-concurrency 4", false},
		{"vllm bench serve --model m", false},
		{"pip install sglang", false},
		{"sglang version", false},
	} {
		if got := Serves(strings.Fields(tc.argv)); got != tc.server {
			t.Errorf("%q: server = %v, want %v", tc.argv, got, tc.server)
		}
	}
}

// Servers, routers and store masters last until they are stopped;
// barriers, polls and installs end.
func TestLasting(t *testing.T) {
	for _, tc := range []struct {
		argv    string
		lasting bool
	}{
		{"python3 -m sglang.launch_server --model-path m", true},
		{"python3 -m sglang_router.launch_router --pd-disaggregation", true},
		{"mooncake_master --rpc_port=50051", true},
		{"python3 -m dynamo.frontend --http-port 8000", true},
		{"/opt/bin/proxy-server --port 30000", true},
		{"lmcache server --host 127.0.0.1 --port 5555", true},
		{"python3 /ws/sync.py barrier --node-ips a,b", false},
		{"lmcache status --port 5555", false},
		{"tail -f -n +1 /logs/server.log", true},
		{"tail -n 20 /logs/server.log", false},
		{"sleep infinity", true},
		{"sleep 5", false},
		{"bash server.sh", false},
		{"bash -c python3 sync.py", false},
		{"curl -s http://0.0.0.0:8000/health", false},
		{"pip install sglang-router", false},
		{"python3 -m sglang.bench_serving --max-concurrency 4", false},
	} {
		if got := Lasting(strings.Fields(tc.argv)); got != tc.lasting {
			t.Errorf("%q: lasting = %v, want %v", tc.argv, got, tc.lasting)
		}
	}
}
