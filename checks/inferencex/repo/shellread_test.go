package repo

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/format/shell"
)

func settingRows(sets []Setting) []string {
	var out []string
	for _, s := range sets {
		r := s.Kind + ":" + s.Name + "=" + s.Value + "@" + cfgItoa(s.Line)
		if s.Role != "" {
			r += " role=" + s.Role
		}
		if s.Run != "" {
			r += " run=" + s.Run
		}
		out = append(out, r)
	}
	return out
}

// pick keeps the settings whose name is one of names.
func pick(sets []Setting, names ...string) []Setting {
	var out []Setting
	for _, s := range sets {
		for _, n := range names {
			if s.Name == n {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestReadScriptSettings(t *testing.T) {
	tests := []struct {
		name, src string
		names     []string
		want      []string
	}{
		{
			name: "flag through a variable assigned in the eval-only branch and the throughput path",
			src: `N=3
if [ "${EVAL_ONLY:-false}" = "true" ]; then
    SPEC_CONFIG="{\"method\": \"mtp\", \"num_speculative_tokens\": $N}"
else
    SPEC_CONFIG="{\"method\": \"mtp\", \"num_speculative_tokens\": $N, \"synthetic_acceptance_length\": 2.49}"
fi
vllm serve m --speculative-config "$SPEC_CONFIG"
`,
			names: []string{"--speculative-config"},
			want: []string{
				`flag:--speculative-config={"method": "mtp", "num_speculative_tokens": 3}@3 run=eval-only`,
				`flag:--speculative-config={"method": "mtp", "num_speculative_tokens": 3, "synthetic_acceptance_length": 2.49}@5 run=throughput`,
			},
		},
		{
			name: "negated test and && list",
			src: `if [[ "$EVAL_ONLY" != "true" ]]; then export SGLANG_SIMULATE_ACC_LEN=2.5; fi
[ "$EVAL_ONLY" == true ] && export EVAL_KNOB=1
`,
			names: []string{"SGLANG_SIMULATE_ACC_LEN", "EVAL_KNOB"},
			want:  []string{"env:SGLANG_SIMULATE_ACC_LEN=2.5@1 run=throughput", "env:EVAL_KNOB=1@2 run=eval-only"},
		},
		{
			name: "case on the switch",
			src: `case "$EVAL_ONLY" in
  true) MODE=eval ;;
  *) MODE=bench ;;
esac
`,
			names: []string{"MODE"},
			want:  []string{"env:MODE=eval@2 run=eval-only", "env:MODE=bench@3 run=throughput"},
		},
		{
			name: "decode command line held in a variable, its value read where it is assigned",
			src: `GOLDEN=2.27
DECODE_SIM_ENV="SGLANG_SIMULATE_ACC_LEN=${GOLDEN} SGLANG_SIMULATE_ACC_METHOD=match-expected"
DECODE_CMD="${DECODE_SIM_ENV} python3 -m sglang.launch_server \\
  --speculative-num-steps 2"
PREFILL_CMD="python3 -m sglang.launch_server --chunked-prefill-size 16384"
eval "$DECODE_CMD"
`,
			names: []string{"SGLANG_SIMULATE_ACC_LEN", "--speculative-num-steps", "--chunked-prefill-size"},
			want: []string{
				"env:SGLANG_SIMULATE_ACC_LEN=2.27@2 role=decode",
				"flag:--speculative-num-steps=2@4 role=decode",
				"flag:--chunked-prefill-size=16384@5 role=prefill",
			},
		},
		{
			name: "JSON built with printf in both branches",
			src: `N=3
AL=2.49
if [ "${EVAL_ONLY:-}" = "true" ]; then
    SPEC_CONFIG=$(printf '{"method":"eagle3","model":"%s","num_speculative_tokens":%d}' "$DRAFT" "$N")
else
    SPEC_CONFIG=$(printf \
        '{"method":"eagle3","model":"%s","num_speculative_tokens":%d,"synthetic_acceptance_length":%.2f}' \
        "$DRAFT" "$N" "$AL")
fi
vllm serve m --speculative-config "$SPEC_CONFIG"
`,
			names: []string{"--speculative-config"},
			want: []string{
				`flag:--speculative-config={"method":"eagle3","model":"$DRAFT","num_speculative_tokens":3}@4 run=eval-only`,
				`flag:--speculative-config={"method":"eagle3","model":"$DRAFT","num_speculative_tokens":3,"synthetic_acceptance_length":2.49}@6 run=throughput`,
			},
		},
		{
			name: "a value the environment may replace stays as written",
			src: `ACC=${ACC:-2.5}
export SGLANG_SIMULATE_ACC_LEN="$ACC"
`,
			names: []string{"SGLANG_SIMULATE_ACC_LEN"},
			want:  []string{"env:SGLANG_SIMULATE_ACC_LEN=$ACC@2"},
		},
		{
			name: "here-string in a helper is not a heredoc",
			src: `pick_concs() {
  local -a xs
  read -r -a xs <<< "$requested_concs"
  echo "${xs[@]}"
}
run_benchmark_serving --use-chat-template
`,
			names: []string{"--use-chat-template"},
			want:  []string{"flag:--use-chat-template=@6"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, sets, err := readScript("s.sh", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := settingRows(pick(sets, tt.names...)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("settings:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A script that does not parse is one error with file:line, and nothing
// half read.
func TestReadScriptError(t *testing.T) {
	sc, cmds, sets, err := readScript("benchmarks/x.sh", []byte("echo ok\nif true; then\n  vllm serve --tp 8\n"))
	var e *shell.Error
	if !errors.As(err, &e) || e.Line != 2 || !strings.HasPrefix(err.Error(), "benchmarks/x.sh:2:") {
		t.Fatalf("error = %v", err)
	}
	if sc != nil || cmds != nil || sets != nil {
		t.Fatal("partial result returned with the error")
	}
	ef := &EffectiveFile{Path: "benchmarks/x.sh", Kind: "script"}
	ef.Read([]byte("cat <<EOF\nunterminated\n"))
	if !strings.HasPrefix(ef.Err, "benchmarks/x.sh:1:") || ef.Settings != nil || ef.Commands != nil {
		t.Fatalf("EffectiveFile = %+v", ef)
	}
}

func TestFormatPrintf(t *testing.T) {
	tests := []struct {
		format string
		args   []string
		want   string
		ok     bool
	}{
		{`{"n":%d,"al":%.2f,"m":"%s"}`, []string{"3", "2.5", "x"}, `{"n":3,"al":2.50,"m":"x"}`, true},
		{`100%% %s\n`, []string{"done"}, "100% done\n", true},
		{`%d`, []string{"$N"}, "", false},     // a number the script does not decide
		{`%s %s`, []string{"a"}, "", false},   // too few arguments
		{`%s`, []string{"a", "b"}, "", false}, // bash would repeat the format
		{`%5s`, []string{"a"}, "", false},     // widths are not read
		{`%x`, []string{"10"}, "", false},     // unknown conversion
	}
	for _, tt := range tests {
		got, ok := formatPrintf(tt.format, tt.args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("formatPrintf(%q, %q) = %q, %v; want %q, %v", tt.format, tt.args, got, ok, tt.want, tt.ok)
		}
	}
}
