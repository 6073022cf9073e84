package repo

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

func TestParseScript(t *testing.T) {
	src := `#!/usr/bin/env bash
# comment --hf-overrides x
export A=1 B="two words"
C=3 vllm serve "$MODEL" --tp 8 \
  --max-model-len=8192 --trust-remote-code # trailing --not-a-flag
echo 'single # not comment' && run_benchmark_serving --use-chat-template
cat > /tmp/cfg.yaml <<-EOF
	publish_events_and_metrics: false
	# not: runtime
	EOF
X="$(dirname "$0")/lib.sh"
python3 - <<'PY'
print("hi")
PY
`
	_, cmds, sets, err := readScript("s.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sets {
		got = append(got, s.Kind+":"+s.Name+"="+s.Value+"@"+cfgItoa(s.Line))
	}
	want := []string{
		"env:A=1@3", "env:B=two words@3",
		"env:C=3@4", "flag:--tp=8@4", "flag:--max-model-len=8192@5", "flag:--trust-remote-code=@5",
		"flag:--use-chat-template=@6",
		"heredoc:publish_events_and_metrics=false@8",
		`env:X=$(dirname "$0")/lib.sh@11`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("settings:\n got %q\nwant %q", got, want)
	}
	var lines []int
	var first []string
	for _, c := range cmds {
		lines = append(lines, c.Line)
		first = append(first, c.Words[0])
	}
	// The command substitution's dirname is a command of its own.
	if !reflect.DeepEqual(first, []string{"export", "C=3", "echo", "run_benchmark_serving", "cat", "X=$(dirname \"$0\")/lib.sh", "dirname", "python3"}) ||
		!reflect.DeepEqual(lines, []int{3, 4, 6, 6, 7, 11, 11, 12}) {
		t.Fatalf("commands %q at %v", first, lines)
	}
	if cmds[7].Heredoc != "print(\"hi\")\n" {
		t.Fatalf("heredoc = %q", cmds[7].Heredoc)
	}
	for _, bad := range []string{"echo 'x\n", "cat <<EOF\nbody\n", "echo \"$(foo\n"} {
		if _, _, _, err := readScript("b.sh", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestParseScriptReservedWords: a command after a reserved word on one line
// (then/do/else/!/{) is still a command whose settings are read.
func TestParseScriptReservedWords(t *testing.T) {
	src := "if [[ $P == fp4 ]]; then export A=1; else export A=0; fi\n" +
		"for x in a b; do source ./lib.sh; done\n" +
		"! B=2 run_benchmark_serving --use-chat-template\n" +
		"{ export C=3; }\n"
	_, cmds, sets, err := readScript("s.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sets {
		got = append(got, s.Kind+":"+s.Name+"="+s.Value+"@"+cfgItoa(s.Line))
	}
	want := []string{"env:A=1@1", "env:A=0@1", "flag:--use-chat-template=@3", "env:B=2@3", "env:C=3@4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("settings:\n got %q\nwant %q", got, want)
	}
	var first []string
	for _, c := range cmds {
		first = append(first, c.Words[0])
	}
	// Reserved words and [[ tests are syntax, not commands.
	wantFirst := []string{"export", "export", "source", "B=2", "export"}
	if !reflect.DeepEqual(first, wantFirst) {
		t.Fatalf("command words %q, want %q", first, wantFirst)
	}
}

func cfgItoa(n int) string { return strconv.Itoa(n) }

func TestParseRecipeSample(t *testing.T) {
	// The sample recipe of the real repository (read, not copied).
	data, err := checkstest.ReadSample("benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/agentic/agg-h200-tp8-mtp-kvoffload.yaml")
	if err != nil {
		t.Skip("sample not available")
	}
	sets, err := ParseSrtRecipe("agg.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	find := func(role, kind, name string) Setting {
		for _, s := range sets {
			if s.Role == role && s.Kind == kind && s.Name == name {
				return s
			}
		}
		t.Fatalf("no %s %s %s", role, kind, name)
		return Setting{}
	}
	if s := find("agg", "env", "SGLANG_SIMULATE_ACC_LEN"); s.Value != "2.49" || s.Line == 0 {
		t.Fatalf("%+v", s)
	}
	if s := find("agg", "arg", "speculative-num-steps"); s.Value != "3" {
		t.Fatalf("%+v", s)
	}
	find("benchmark", "env", "TP")
	find("benchmark", "command", "command")
	find("frontend", "arg", "router-mode")
}

func TestParseRecipeRolesAndOverrides(t *testing.T) {
	src := `base:
  name: x
  roles:
    prefill:
      args: { tp: 4, hf-overrides: '{"num_hidden_layers": 2}' }
      env: { A: "1" }
    decode:
      args:
        - "--publish-events-and-metrics false"
  benchmark:
    type: aiperf
    command: "aiperf profile --endpoint-type chat"
override_tp8:
  roles:
    decode:
      args: { tp: 8 }
zip_override_conc:
  - benchmark:
      env: { CONC: "4" }
`
	sets, err := ParseSrtRecipe("r.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sets {
		got = append(got, s.Role+"/"+s.Kind+"/"+s.Name+"="+s.Value+"@"+cfgItoa(s.Line))
	}
	for _, w := range []string{
		`prefill/arg/hf-overrides={"num_hidden_layers": 2}@5`, "prefill/env/A=1@6",
		"decode/flag/--publish-events-and-metrics=false@9", "benchmark/flag/--endpoint-type=chat@12",
		"decode/arg/tp=8@16", "benchmark/env/CONC=4@19",
	} {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("missing %s in %q", w, got)
		}
	}
	if _, err := ParseSrtRecipe("r.yaml", []byte("a: [")); err == nil {
		t.Error("malformed recipe accepted")
	}
}

func TestParseWaiverSample(t *testing.T) {
	data, err := checkstest.ReadSample("docs/waiver/2508.md")
	if err != nil {
		t.Skip("sample not available")
	}
	w := ParseWaiver("docs/waiver/2508.md", string(data))
	if m := w.Missing(); len(m) != 0 {
		t.Fatalf("missing %q", m)
	}
	if !w.Mentions("benchmarks/single_node/agentic/apply_k3_container_patches.sh", "") ||
		!w.Mentions("inferencex-e2e/benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh", "inferencex-e2e/") {
		t.Fatal("mentions")
	}
}

func TestParseMasterConfigSample(t *testing.T) {
	data, err := checkstest.ReadSample("configs/amd-master.yaml")
	if err != nil {
		t.Skip("sample not available")
	}
	es, ps := ParseMasterConfig("configs/amd-master.yaml", data)
	if len(ps) != 0 || len(es) < 20 {
		t.Fatalf("%d entries, problems %+v", len(es), ps)
	}
	for _, e := range es {
		if e.Key == "qwen3.5-fp8-mi355x-sglang-disagg" {
			if !e.MultiNode || !e.Disagg || len(e.Scenarios) != 1 || e.Scenarios[0].ISL != 8192 || len(e.Scenarios[0].Search[0].Conc) != 5 {
				t.Fatalf("%+v", e)
			}
		}
	}
}

func FuzzScriptReader(f *testing.F) {
	for _, s := range []string{
		"export A=1\nvllm serve --tp 8 \\\n --x=y\n",
		"cat <<'EOF' | python3\nimport x\nEOF\n",
		"echo \"$(a \"b\" 'c')\" # c\n",
		"f() { run_benchmark_serving --use-chat-template; }\n",
		"echo ${A:-$(b)} `c` <<<here\n",
		"if [ \"$EVAL_ONLY\" = true ]; then S='{\"n\": 1}'; else S=\"{\\\"n\\\": $N}\"; fi\nvllm serve --speculative-config \"$S\"\n",
		"G=2.5\nDECODE_ENV=\"SGLANG_SIMULATE_ACC_LEN=${G} X=1\"\nDECODE_CMD=\"${DECODE_ENV} python3 -m sglang.launch_server \\\n --tp 4\"\neval \"$DECODE_CMD\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, cmds, sets, _ := readScript("f.sh", data)
		lines := strings.Count(string(data), "\n") + 1
		for _, c := range cmds {
			if c.Line < 1 || c.Line > lines || len(c.Words) == 0 {
				t.Fatalf("bad command %+v (lines %d)", c, lines)
			}
		}
		for _, s := range sets {
			if s.Line < 1 || s.Line > lines+1 {
				t.Fatalf("bad setting line %+v (lines %d)", s, lines)
			}
		}
	})
}

func FuzzRecipeReader(f *testing.F) {
	for _, s := range []string{
		"backend:\n  decode_environment: {A: 1}\n  sglang_config:\n    decode: {tp-size: 8}\n",
		"base:\n  roles:\n    agg:\n      args: [\"--x 1\"]\noverride_a: {benchmark: {env: {B: 2}}}\n",
		"a: &x {b: *x}\n",
		"benchmark:\n  command: |\n    run --a b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sets, err := ParseSrtRecipe("r.yaml", data)
		if err != nil && sets != nil {
			t.Fatal("settings returned with an error")
		}
	})
}
