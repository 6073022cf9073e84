package shell

import (
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *Script {
	t.Helper()
	sc, err := Parse("t.sh", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return sc
}

// find returns the only command whose text starts with prefix.
func find(t *testing.T, sc *Script, prefix string) *Command {
	t.Helper()
	var out *Command
	for _, c := range sc.Commands {
		if strings.HasPrefix(c.Text, prefix) {
			if out != nil {
				t.Fatalf("two commands start with %q: %q and %q", prefix, out.Text, c.Text)
			}
			out = c
		}
	}
	if out == nil {
		var all []string
		for _, c := range sc.Commands {
			all = append(all, c.Text)
		}
		t.Fatalf("no command starts with %q; have %q", prefix, all)
	}
	return out
}

func condsOf(c *Command) []string {
	var out []string
	for _, x := range c.Conds {
		out = append(out, x.Kind.String()+" "+x.Branch+" "+x.Text)
	}
	return out
}

func nestsOf(c *Command) []NestKind {
	var out []NestKind
	for _, n := range c.Nest {
		out = append(out, n.Kind)
	}
	return out
}

// Every simple command is found wherever it sits, with the conditions and
// nests around it.
func TestCommandsEverywhere(t *testing.T) {
	src := `#!/bin/bash
setup() {
  if [[ "$MODE" == eval ]]; then
    run_eval --x 1
  elif [ -n "$FAST" ]; then
    run_fast
  else
    run_full
  fi
}
case "$ENGINE" in
  vllm|sglang) serve_a ;;
  *) serve_b ;;
esac
for i in 1 2; do loop_body "$i"; done
while read -r line; do while_body; done < <(feeder)
check_a && then_b || else_c
producer2 | consumer2 | consumer3
( in_subshell )
OUT=$(in_subst --q)
background_job &
{ in_block; }
`
	sc := mustParse(t, src)
	tests := []struct {
		prefix string
		fn     string
		conds  []string
		nests  []NestKind
	}{
		{"run_eval", "setup", []string{`if then [[ "$MODE" == eval ]]`}, nil},
		{"run_fast", "setup", []string{`if elif [ -n "$FAST" ]`}, nil},
		{"run_full", "setup", []string{"if else "}, nil},
		{"serve_a", "", []string{`case vllm|sglang "$ENGINE"`}, nil},
		{"serve_b", "", []string{`case * "$ENGINE"`}, nil},
		{"loop_body", "", []string{"for do i in 1 2"}, nil},
		{"while_body", "", []string{"while do read -r line"}, nil},
		{"feeder", "", nil, []NestKind{InProcSubst}},
		{"check_a", "", nil, nil},
		{"then_b", "", []string{"&& && check_a"}, nil},
		{"else_c", "", []string{"|| || check_a && then_b"}, nil},
		{"producer2", "", nil, []NestKind{InPipeline}},
		{"consumer3", "", nil, []NestKind{InPipeline}},
		{"in_subshell", "", nil, []NestKind{InSubshell}},
		{"in_subst", "", nil, []NestKind{InCmdSubst}},
		{"background_job", "", nil, []NestKind{InBackground}},
		{"in_block", "", nil, nil},
	}
	for _, tt := range tests {
		c := find(t, sc, tt.prefix)
		if c.Func != tt.fn {
			t.Errorf("%s: Func = %q, want %q", tt.prefix, c.Func, tt.fn)
		}
		if got := condsOf(c); !reflect.DeepEqual(got, tt.conds) {
			t.Errorf("%s: conds = %q, want %q", tt.prefix, got, tt.conds)
		}
		if got := nestsOf(c); !reflect.DeepEqual(got, tt.nests) {
			t.Errorf("%s: nests = %v, want %v", tt.prefix, got, tt.nests)
		}
	}
	full := find(t, sc, "run_full")
	if got := full.Conds[0].Prior; !reflect.DeepEqual(got, []string{`[[ "$MODE" == eval ]]`, `[ -n "$FAST" ]`}) {
		t.Errorf("else Prior = %q", got)
	}
	if got := full.Conds[0].Vars; !reflect.DeepEqual(got, []string{"FAST", "MODE"}) {
		t.Errorf("else Vars = %q", got)
	}
	if c := find(t, sc, "consumer3"); c.PipeIn == nil || c.PipeIn.Name != "consumer2" {
		t.Errorf("consumer3 PipeIn = %+v", c.PipeIn)
	}
	if c := find(t, sc, "run_eval"); c.Line != 4 || c.Col != 5 {
		t.Errorf("run_eval at %d:%d, want 4:5", c.Line, c.Col)
	}
	if f := sc.Function("setup"); f == nil || f.Line != 2 || f.EndLine != 10 {
		t.Errorf("Function(setup) = %+v", f)
	}
}

func TestWords(t *testing.T) {
	src := `cmd plain 'single q' "double $X" \
  esc\ aped "a\$b" $'tab\there' ~/home "$(date)" "${Y:-dflt}"
`
	c := find(t, mustParse(t, src), "cmd")
	tests := []struct {
		text, value string
		static      bool
		vars        []string
		line        int
	}{
		{"plain", "plain", true, nil, 1},
		{"'single q'", "single q", true, nil, 1},
		{`"double $X"`, `"double $X"`, false, []string{"X"}, 1},
		{`esc\ aped`, "esc aped", true, nil, 2},
		{`"a\$b"`, "a$b", true, nil, 2},
		{`$'tab\there'`, "tab\there", true, nil, 2},
		{"~/home", "~/home", false, nil, 2},
		{`"$(date)"`, `"$(date)"`, false, nil, 2},
		{`"${Y:-dflt}"`, `"${Y:-dflt}"`, false, []string{"Y"}, 2},
	}
	if len(c.Args) != len(tests)+1 {
		t.Fatalf("got %d words, want %d", len(c.Args), len(tests)+1)
	}
	for i, tt := range tests {
		w := c.Args[i+1]
		if w.Text != tt.text || w.Value != tt.value || w.Static != tt.static || !reflect.DeepEqual(w.Vars, tt.vars) || w.Line != tt.line {
			t.Errorf("word %d = %q/%q static=%v vars=%q line %d; want %q/%q %v %q line %d",
				i+1, w.Text, w.Value, w.Static, w.Vars, w.Line, tt.text, tt.value, tt.static, tt.vars, tt.line)
		}
	}
	if s := c.Args[8].Subst; len(s) != 1 || s[0].Name != "date" {
		t.Errorf("Subst of $(date) = %+v", s)
	}
	if c.EndLine != 2 {
		t.Errorf("EndLine = %d", c.EndLine)
	}
}

func TestHeredocsAndHereStrings(t *testing.T) {
	src := "read -r -a xs <<< \"$v\"\n" +
		"write() {\n" +
		"  cat > /tmp/a.yaml <<EOF\n" +
		"key: $VAL\n" +
		"EOF\n" +
		"  cat <<'RAW' | tee /tmp/b\n" +
		"literal $NOT\n" +
		"RAW\n" +
		"\tcat <<-\"TABS\"\n" +
		"\t\tindented\n" +
		"\tTABS\n" +
		"  cat <<EMPTY\n" +
		"EMPTY\n" +
		"}\n" +
		"echo after\n"
	sc := mustParse(t, src)
	rd := find(t, sc, "read")
	if len(rd.Redirs) != 1 || rd.Redirs[0].Op != "<<<" || rd.Redirs[0].Target.Text != `"$v"` {
		t.Fatalf("here-string redirect = %+v", rd.Redirs)
	}
	if len(rd.Assigns) != 1 || rd.Assigns[0].Name != "xs" || rd.Assigns[0].Kind != AssignRead || !rd.Assigns[0].IsArray || rd.Assigns[0].Value.Text != `"$v"` {
		t.Errorf("read target = %+v", rd.Assigns)
	}
	tests := []struct {
		prefix string
		want   Heredoc
	}{
		{"cat > /tmp/a.yaml", Heredoc{Delim: "EOF", Body: "key: $VAL\n", Line: 4, Vars: []string{"VAL"}}},
		{"cat <<'RAW'", Heredoc{Delim: "RAW", Quoted: true, Body: "literal $NOT\n", Line: 7}},
		{"cat <<-", Heredoc{Delim: "TABS", Quoted: true, StripTabs: true, Body: "indented\n", Line: 10}},
		{"cat <<EMPTY", Heredoc{Delim: "EMPTY", Line: 13}},
	}
	for _, tt := range tests {
		c := find(t, sc, tt.prefix)
		hs := c.Heredocs()
		if len(hs) != 1 {
			t.Fatalf("%s: %d heredocs", tt.prefix, len(hs))
		}
		got := *hs[0]
		got.off = 0
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: heredoc = %+v, want %+v", tt.prefix, got, tt.want)
		}
		if c.Func != "write" {
			t.Errorf("%s: Func = %q", tt.prefix, c.Func)
		}
	}
	if c := find(t, sc, "cat > /tmp/a.yaml"); c.Text != "cat > /tmp/a.yaml <<EOF" {
		t.Errorf("Text = %q (heredoc bodies are not part of it)", c.Text)
	}
	if c := find(t, sc, "echo after"); c.Line != 15 {
		t.Errorf("echo after on line %d", c.Line)
	}
}

func TestRedirectOutputs(t *testing.T) {
	sc := mustParse(t, "run > out.log 2>&1 >> app.log &> all.log < in.txt 2>err.txt >&2\n"+
		"{ echo a; inner > own.txt; } > \"$SITE/x.pth\"\n"+
		"while read -r l; do use_line; done < <(feed)\n")
	tests := []struct {
		prefix string
		want   []string
	}{
		{"run", []string{"out.log", "app.log", "all.log", "err.txt"}},
		{"echo a", []string{`"$SITE/x.pth"`}},
		{"inner", []string{"own.txt", `"$SITE/x.pth"`}},
		{"use_line", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range find(t, sc, tt.prefix).Outputs() {
			got = append(got, w.Text)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Outputs = %q, want %q", tt.prefix, got, tt.want)
		}
	}
	if rs := find(t, sc, "use_line").Redirs; len(rs) != 1 || rs[0].Op != "<" || !rs[0].Inherited || rs[0].Target.Text != "<(feed)" {
		t.Errorf("inherited input = %+v", rs)
	}
}

// Literal shell strings are parsed too; they run in a child process.
func TestNestedShellCode(t *testing.T) {
	src := `docker exec -it c bash -c 'cd /sgl-workspace/sglang && git apply /p.diff'
sh -lc "pip install vllm==0.1"
eval 'export INNER=1'
bash -s <<'EOS'
patch -p1 < fix.patch
EOS
cat <<'EOS' | bash
sed -i s/a/b/ x.py
EOS
bash -c "$DYNAMIC"
`
	sc := mustParse(t, src)
	tests := []struct {
		prefix string
		nest   NestKind
		line   int
		dir    string
	}{
		{"git apply /p.diff", InShellString, 1, "/sgl-workspace/sglang"},
		{"pip install vllm==0.1", InShellString, 2, "$START"},
		{"export INNER=1", InEval, 3, "$START"},
		{"patch -p1", InShellHeredoc, 5, "$START"},
		{"sed -i s/a/b/", InShellHeredoc, 8, "$START"},
	}
	for _, tt := range tests {
		c := find(t, sc, tt.prefix)
		if n := c.Nest[len(c.Nest)-1]; n.Kind != tt.nest {
			t.Errorf("%s: nest %v, want %v", tt.prefix, n.Kind, tt.nest)
		}
		if c.Line != tt.line || c.Dir.String() != tt.dir {
			t.Errorf("%s: line %d dir %s, want %d %s", tt.prefix, c.Line, c.Dir, tt.line, tt.dir)
		}
	}
	if as, _ := sc.Values("INNER", &find(t, sc, `bash -c "$DYNAMIC"`).Site); len(as) != 1 {
		t.Errorf("an eval assignment reaches the commands after it: %v", as)
	}
	if len(sc.ByName("git")) != 1 || len(sc.ByName("bash")) != 3 {
		t.Errorf("ByName: git %d, bash %d", len(sc.ByName("git")), len(sc.ByName("bash")))
	}
}

func TestProgramSkipsWrappers(t *testing.T) {
	tests := []struct{ src, prog, first string }{
		{"sudo -u root env A=1 B=2 python3 -m x", "python3", "-m"},
		{"timeout -s KILL 30 nohup bash run.sh", "bash", "run.sh"},
		{"exec numactl --interleave=all vllm serve m", "vllm", "serve"},
		{"A=1 ./run.sh --x", "./run.sh", "--x"},
		{"X=1", "", ""},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.src+"\n").Commands[0]
		prog, args := c.Program()
		first := ""
		if len(args) > 0 {
			first = args[0].Value
		}
		if prog != tt.prog || first != tt.first {
			t.Errorf("%q: Program = %q %q, want %q %q", tt.src, prog, first, tt.prog, tt.first)
		}
	}
}
