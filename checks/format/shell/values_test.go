package shell

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestWordValues(t *testing.T) {
	src := `TP=8
MODEL=${MODEL:-deepseek}
: "${PORT:=8888}"
X=a
X=b
if [ -n "$Z" ]; then Y=in_then; fi
BASE=/models
FULL="$BASE/$MODEL"
ARGS=(--tp "$TP" --ep 8)
ARGS+=(--dp 2)
declare -A MAP=([k1]=v1 ["k2"]=v2)
PICK="${MAP[$KEY]:-none}"
cmd "$TP" "$MODEL" "$PORT" "$X" "$Y" "$FULL" "${ARGS[@]}" "${ARGS[0]}" "${MAP[k2]}" "$PICK" "$UNSET" "$1" "$(date)"
`
	c := find(t, mustParse(t, src), "cmd")
	tests := []struct {
		values []string
		env    bool
	}{
		{[]string{"8"}, false},
		{[]string{"deepseek"}, true},
		{[]string{"8888"}, true},
		{[]string{"b"}, false},
		{[]string{"in_then"}, true},
		{[]string{"/models/deepseek"}, true},
		{[]string{"--tp 8 --ep 8 --dp 2"}, false},
		{[]string{"--tp"}, false},
		{[]string{"v2"}, false},
		{[]string{"v1", "v2", "none"}, false},
		{nil, true},
		{nil, true},
		{nil, false},
	}
	for i, tt := range tests {
		w := c.Args[i+1]
		if !reflect.DeepEqual(w.Values, tt.values) || w.FromEnv != tt.env {
			t.Errorf("%s: Values %q FromEnv %v, want %q %v", w.Text, w.Values, w.FromEnv, tt.values, tt.env)
		}
	}
}

// The eval-only branch and the throughput path assign the same variable;
// the consumer tells them apart by the conditions of each assignment.
func TestEvalOnlyBranch(t *testing.T) {
	src := `if [[ "${EVAL_ONLY:-false}" == "true" ]]; then
  SPEC_CONFIG='{"method":"mtp"}'
else
  SPEC_CONFIG='{"method":"mtp","rejection_sample_method":"synthetic"}'
  export SGLANG_SIMULATE_ACC_LEN=2.5
fi
vllm serve m --speculative-config "$SPEC_CONFIG"
`
	sc := mustParse(t, src)
	serve := find(t, sc, "vllm serve")
	as, fromEnv := sc.Values("SPEC_CONFIG", &serve.Site)
	if len(as) != 2 || fromEnv {
		t.Fatalf("Values = %d assignments, fromEnv %v; want 2, false (if/else covers every path)", len(as), fromEnv)
	}
	if !as[0].Tests("EVAL_ONLY") || as[0].Conds[0].Branch != "then" || as[1].Conds[0].Branch != "else" {
		t.Errorf("branches: %+v / %+v", as[0].Conds, as[1].Conds)
	}
	if serve.Tests("EVAL_ONLY") {
		t.Error("the serve command itself runs on both paths")
	}
	var flags []string
	for _, s := range serve.Flags() {
		flags = append(flags, s.Name+"="+strings.Join(s.Value.Values, "|"))
	}
	want := []string{`--speculative-config={"method":"mtp"}|{"method":"mtp","rejection_sample_method":"synthetic"}`}
	if !reflect.DeepEqual(flags, want) {
		t.Errorf("Flags = %q, want %q", flags, want)
	}
	acc, _ := sc.Values("SGLANG_SIMULATE_ACC_LEN", &serve.Site)
	if len(acc) != 1 || !acc[0].Exported || acc[0].Conds[0].Branch != "else" || acc[0].Decl != "export" {
		t.Errorf("SGLANG_SIMULATE_ACC_LEN = %+v", acc)
	}
	if !sc.Exported("SGLANG_SIMULATE_ACC_LEN", &serve.Site) {
		t.Error("Exported = false")
	}
}

// An engine directory located through Python, held in a variable, then
// edited: the consumer follows the variable to the command that found it.
func TestEngineLocatedThenEdited(t *testing.T) {
	src := `SGL_DIR=$(python3 -c 'import sglang,os;print(os.path.dirname(sglang.__file__))')
sed -i 's/x/y/' "$SGL_DIR/srt/server.py"
`
	sc := mustParse(t, src)
	sed := find(t, sc, "sed -i")
	target := sed.Args[3]
	if !reflect.DeepEqual(target.Vars, []string{"SGL_DIR"}) {
		t.Fatalf("Vars = %q", target.Vars)
	}
	as, _ := sc.Values("SGL_DIR", &sed.Site)
	if len(as) != 1 || len(as[0].Value.Subst) != 1 {
		t.Fatalf("SGL_DIR assignments = %+v", as)
	}
	py := as[0].Value.Subst[0]
	if prog, args := py.Program(); prog != "python3" || len(args) != 2 || !strings.Contains(args[1].Value, "import sglang,os") {
		t.Errorf("locator = %q %+v", prog, args)
	}
}

func TestAssignments(t *testing.T) {
	src := `export A=1 B
declare -x C=2
readonly D=3
typeset -i E=4
F=5 run_it
G+=tail
H=(x y)
set -a
I=6
set +a
f() {
  local L=1
  declare M=2
  declare -g N=3
  L=4
}
for V in p q; do :; done
mapfile -t LINES < file
export -f f
`
	sc := mustParse(t, src)
	type row struct {
		name     string
		kind     AssignKind
		exported bool
		local    bool
		value    string
	}
	var got []row
	for _, a := range sc.Assigns {
		got = append(got, row{a.Name, a.Kind, a.Exported, a.Local, a.Value.Value})
	}
	want := []row{
		{"A", AssignDecl, true, false, "1"},
		{"B", AssignDecl, true, false, ""},
		{"C", AssignDecl, true, false, "2"},
		{"D", AssignDecl, false, false, "3"},
		{"E", AssignDecl, false, false, "4"},
		{"F", AssignPrefix, true, false, "5"},
		{"G", AssignPlain, false, false, "tail"},
		{"H", AssignPlain, false, false, "(x y)"},
		{"I", AssignPlain, true, false, "6"},
		{"L", AssignDecl, false, true, "1"},
		{"M", AssignDecl, false, true, "2"},
		{"N", AssignDecl, false, false, "3"},
		{"L", AssignPlain, false, true, "4"},
		{"V", AssignFor, false, false, "p"},
		{"V", AssignFor, false, false, "q"},
		{"LINES", AssignRead, false, false, ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assignments:\n got %v\nwant %v", got, want)
	}
	if !sc.Assigns[1].Naked || !sc.Assigns[6].Append || !sc.Assigns[7].IsArray || len(sc.Assigns[7].Elems) != 2 {
		t.Error("Naked / Append / IsArray flags")
	}
	last := sc.Commands[len(sc.Commands)-1]
	if as, _ := sc.Values("L", &last.Site); len(as) != 0 {
		t.Errorf("a local leaks out of its function: %+v", as)
	}
	if as, _ := sc.Values("N", &last.Site); len(as) != 1 {
		t.Errorf("declare -g is global: %+v", as)
	}
	if as, _ := sc.Values("F", &last.Site); len(as) != 0 {
		t.Errorf("a prefix assignment only reaches its command: %+v", as)
	}
}

func TestSettings(t *testing.T) {
	src := `export MODEL=m
ARGS=(--max-model-len 4096)
python3 -m sglang.launch_server --tp 8 --trust-remote-code --port=8000 "${ARGS[@]}" \
  --speculative-num-steps "$STEPS"
`
	var got []string
	for _, s := range mustParse(t, src).Settings() {
		k := "flag"
		if s.Kind == SettingAssign {
			k = "var"
		}
		got = append(got, k+" "+s.Name+"="+s.Value.Text+" @"+strconv.Itoa(s.Line))
	}
	want := []string{
		"var MODEL=m @1",
		"var ARGS=(--max-model-len 4096) @2",
		"flag --max-model-len=4096 @2",
		"flag --tp=8 @3",
		"flag --trust-remote-code= @3",
		"flag --port=8000 @3",
		`flag --speculative-num-steps="$STEPS" @4`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Settings:\n got %q\nwant %q", got, want)
	}
}

// Branches of one if or case exclude each other; a loop may not run.
func TestBranchVisibility(t *testing.T) {
	src := `if [ -n "$A" ]; then
  X=then
  use_then "$X"
elif Y=$(probe); [ -n "$Y" ]; then
  use_elif "$X" "$Y"
else
  use_else "$X"
fi
case "$M" in
  a) Z=a ;&
  b) use_fall "$Z" ;;
esac
for i in 1; do W=loop; done
after "$W"
`
	sc := mustParse(t, src)
	tests := []struct {
		prefix string
		arg    int
		values []string
		env    bool
	}{
		{"use_then", 1, []string{"then"}, false},
		{"use_elif", 1, nil, true},
		// Assigned in the elif condition: in effect in its branch, though
		// not counted as sure (the reading stays conservative).
		{"use_elif", 2, nil, true},
		{"use_else", 1, nil, true},
		{"use_fall", 1, []string{"a"}, true},
		{"after", 1, []string{"loop"}, true},
	}
	for _, tt := range tests {
		w := find(t, sc, tt.prefix).Args[tt.arg]
		if !reflect.DeepEqual(w.Values, tt.values) || w.FromEnv != tt.env {
			t.Errorf("%s %s: Values %q FromEnv %v, want %q %v", tt.prefix, w.Text, w.Values, w.FromEnv, tt.values, tt.env)
		}
	}
	elif := find(t, sc, "use_elif")
	if as, _ := sc.Values("Y", &elif.Site); len(as) != 1 || as[0].Line != 4 {
		t.Errorf("the elif condition's assignment reaches its branch: %+v", as)
	}
}
