package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
)

// verdict trace dry-runs one job of a config from a local clone: the
// launcher, the benchmark script it starts and the server line, with the
// master config's values resolved.
func TestTraceCommand(t *testing.T) {
	r := gitsourcetest.New(t)
	r.Write(map[string]string{
		"configs/runners.yaml": "labels:\n  h200:\n    - h200-cw_00\n",
		"configs/nvidia-master.yaml": "dsr1-fp8-h200-sglang:\n  image: lmsysorg/sglang:v0.5.9\n  model: deepseek-ai/DeepSeek-R1\n" +
			"  model-prefix: dsr1\n  runner: h200\n  precision: fp8\n  framework: sglang\n  multinode: false\n  scenarios:\n" +
			"    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-list: [16, 32] }\n",
		"runners/launch_h200-cw.sh":               "bash \"benchmarks/single_node/${EXP_NAME%%_*}_${PRECISION}_h200.sh\"\n",
		"benchmarks/single_node/dsr1_fp8_h200.sh": "python3 -m sglang.launch_server --tp \"$TP\" --max-running-requests \"$CONC\"\n",
	})
	r.Commit("config")
	var out, errb bytes.Buffer
	env := Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errb}
	if code := run(context.Background(), []string{"trace", "--repo-dir", r.Dir, "--config", "dsr1-fp8-h200-sglang", "--list"}, env); code != 0 {
		t.Fatalf("--list: exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 2 || !strings.Contains(out.String(), "runners/launch_h200-cw.sh") {
		t.Fatalf("jobs:\n%s", out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"trace", "--repo-dir", r.Dir, "--config", "dsr1-fp8-h200-sglang", "--point", "1", "--format", "json"}, env); code != 0 {
		t.Fatalf("trace: exit %d: %s", code, errb.String())
	}
	var got struct {
		Rev   string
		Trace struct {
			Steps []struct {
				Kind string
				Argv []string
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range got.Trace.Steps {
		if strings.Join(s.Argv, " ") == "python3 -m sglang.launch_server --tp 8 --max-running-requests 32" {
			found = true
		}
	}
	if !found || len(got.Rev) < 40 {
		t.Errorf("trace of point 1:\n%s", out.String())
	}
	for _, args := range [][]string{
		{"trace", "--repo-dir", r.Dir, "--config", "nope"},
		{"trace", "--repo-dir", r.Dir, "--config", "dsr1-fp8-h200-sglang", "--point", "9"},
		{"trace", "--config", "x"},
	} {
		if code := run(context.Background(), args, Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: io.Discard}); code != exitError {
			t.Errorf("%v: exit %d, want %d", args, code, exitError)
		}
	}
}
