package serving

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// scriptPatching reads script as the change-set model does and returns the
// first indicator FindPatching reports, "" for none.
func scriptPatching(t *testing.T, script string) string {
	t.Helper()
	ef := &repo.EffectiveFile{Path: "benchmarks/x.sh", Kind: "script"}
	ef.Read([]byte(script))
	if ef.Err != "" {
		t.Fatalf("fixture script does not parse: %s", ef.Err)
	}
	hits, _ := FindPatching(&changeset.Model{Extra: []*repo.EffectiveFile{ef}}, nil)
	if len(hits) == 0 {
		return ""
	}
	return hits[0].At() + " " + hits[0].What
}

func TestEngineInstallPaths(t *testing.T) {
	tests := []struct {
		name, script string
		want         string // "|"-separated substrings of the first indicator; "" for none
	}{
		{"recipes copied into the harness checkout", `SRT_REPO_DIR="srt-slurm"
git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
cd "$SRT_REPO_DIR" || exit 1
mkdir -p recipes/sglang/dsr1/b200-fp4
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/b200-fp4" recipes/sglang/dsr1/b200-fp4
cp -r "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/" recipes/vllm/
`, ""},
		{"results into a result directory", `cp /tmp/out.json "$RESULT_DIR/sglang/"
tee /workspace/results/vllm/log.txt < out
echo done > results/sglang/done.txt
`, ""},
		{"copy into the engine checkout", "cp fix.py /sgl-workspace/sglang/python/sglang/srt/layers/fix.py\n",
			"x.sh:1 copies files into /sgl-workspace/sglang"},
		{"sed on site-packages", "sed -i 's/a/b/' /usr/local/lib/python3.12/dist-packages/vllm/config.py\n",
			"x.sh:1 rewrites dist-packages/vllm"},
		{"sed script names an engine path, the file is the harness's", `sed -i 's#/sgl-workspace/sglang#/opt/x#' recipes/sglang/agg.yaml` + "\n", ""},
		{"find_spec-located root then sed", `ROOT="$(python -c 'import importlib.util as u, os; print(os.path.dirname(u.find_spec("vllm").origin))')"
echo "root is $ROOT"
sed -i 's/max_num_seqs = 256/max_num_seqs = 512/' "$ROOT/config/scheduler.py"
`, `x.sh:3 rewrites $ROOT/config/scheduler.py, the vllm install located with importlib.util.find_spec at line 1`},
		{"__file__-located directory then cp", `SGL_DIR=$(python3 -c "import sglang, os; print(os.path.dirname(sglang.__file__))")
cp ./fixed_scheduler.py "$SGL_DIR/srt/managers/scheduler.py"
`, "x.sh:2 copies files into $SGL_DIR/srt/managers/scheduler.py, the sglang install located with sglang.__file__"},
		{"pip show location then a heredoc into it", `LOC=$(pip show vllm | grep Location | cut -d' ' -f2)
cat > "$LOC/vllm/patched.py" <<'PY'
print("x")
PY
`, "x.sh:2 overwrites $LOC/vllm/patched.py, the vllm install located with pip show"},
		{"derived variable then tee", `ROOT=$(python3 -c 'import importlib.util; print(importlib.util.find_spec("sglang").submodule_search_locations[0])')
TARGET="$ROOT/srt/server_args.py"
echo "patch" | tee -a "$TARGET"
`, "x.sh:3 overwrites $TARGET"},
		{"cd into the located root, relative sed", `export ROOT=$(python -c 'import importlib.util as u; print(u.find_spec("vllm").origin)')
cd "$ROOT"
sed -i 's/a/b/' model_executor/models/deepseek.py
cd /workspace
sed -i 's/a/b/' benchmarks/local.yaml
`, "x.sh:3 rewrites model_executor/models/deepseek.py, the vllm install"},
		{"python writing into a located install", `python3 - <<'PY'
import importlib.util, pathlib
p = pathlib.Path(importlib.util.find_spec("sglang").origin).parent / "srt/utils.py"
p.write_text(p.read_text().replace("a", "b"))
PY
`, "x.sh:1 rewrites the sglang install located with importlib.util.find_spec from a Python heredoc"},
		{"a variable set to a literal engine path, then sed -i", `SGLANG_MULTI_TOKENIZER=/sgl-workspace/sglang/python/sglang/srt/managers/multi_tokenizer_mixin.py
if ! grep -q cached_tokens_details "$SGLANG_MULTI_TOKENIZER"; then
    sed -i '/cached_tokens=/a\    cached_tokens_details=None,' "$SGLANG_MULTI_TOKENIZER"
fi
`, "x.sh:3 rewrites |/sgl-workspace/sglang"},
		{"a harness library located, then its config copied", `CFG=$(python3 -c 'import minisweagent, os; print(os.path.dirname(minisweagent.__file__))')
cp "$CFG/config/swebench.yaml" /tmp/swebench.yaml
sed -i 's/a/b/' /tmp/swebench.yaml
`, ""},
		{"a reassigned variable no longer points at the engine", `ROOT=$(python -c 'import importlib.util as u; print(u.find_spec("vllm").origin)')
ROOT=/tmp/scratch
cp a.py "$ROOT/a.py"
`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scriptPatching(t, tt.script)
			if tt.want == "" && got != "" {
				t.Fatalf("indicator %q, want none", got)
			}
			for _, w := range strings.Split(tt.want, "|") {
				if !strings.Contains(got, w) || tt.want != "" && got == "" {
					t.Fatalf("indicator %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestWritesOverStrings(t *testing.T) {
	tests := []struct {
		argv []string
		raw  string
		want []string
	}{
		{[]string{"cp", "-rT", "a", "b/c"}, "cp -rT a b/c", []string{"b/c"}},
		{[]string{"install", "-m", "644", "-t", "/opt/x", "f"}, "install -m 644 -t /opt/x f", []string{"f", "/opt/x"}},
		{[]string{"docker", "cp", "f", "ctr:/sgl-workspace/x"}, "docker cp f ctr:/sgl-workspace/x", []string{"/sgl-workspace/x"}},
		{[]string{"sed", "-i", "s/a/b/", "f1", "f2"}, "", []string{"f1", "f2"}},
		{[]string{"sed", "-i", "-e", "s/a/b/", "f1"}, "", []string{"f1"}},
		{[]string{"sed", "s/a/b/", "f1"}, "", nil},
		{[]string{"tee", "-a", "log"}, "", []string{"log"}},
		{[]string{"echo"}, `echo x >> "/opt/y" 2>/dev/null`, []string{"/opt/y"}},
		{[]string{"patch", "-p1", "-d", "/sgl-workspace/sglang"}, "", []string{"/sgl-workspace/sglang"}},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range Writes(tt.argv, tt.raw) {
			got = append(got, w.Path)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Writes(%q, %q) = %q, want %q", tt.argv, tt.raw, got, tt.want)
		}
	}
}

// FuzzEnginePaths feeds arbitrary lines and scripts through the line
// reader, the write finder and the location tracker: they must not panic,
// and a line never yields an indicator without naming what it does.
func FuzzEnginePaths(f *testing.F) {
	for _, s := range []string{
		`cp -rT "$GITHUB_WORKSPACE/x" recipes/sglang/y`,
		`ROOT="$(python -c 'import importlib.util as u; print(u.find_spec("vllm").origin)')"`,
		`sed -i -e s/a/b/ -- "$ROOT/x.py" > /dev/null 2>&1`,
		`patch -p1 -d "$ROOT" --fuzz=3 < x.diff`,
		`docker cp f c:/sgl-workspace/sglang/x; tee -a /usr/lib/python3/dist-packages/vllm/x`,
		`- "cd /sgl-workspace/sglang && git apply /tmp/x.patch"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if w, z := PatchingInLine(s); (w == "") != (z == "") {
			t.Fatalf("half a reason for %q: %q / %q", s, w, z)
		}
		_ = Writes(LineWords(s), s)
		loc := NewLocations()
		for i, line := range strings.Split(s, "\n") {
			words := LineWords(line)
			loc.follow(words, i+1)
			for _, w := range Writes(words, line) {
				loc.EnginePath(w.Path)
			}
		}
	})
}

// The Chinese reasons of located installs leave no English prose behind.
func TestLocatedInstallReasonsAreTranslated(t *testing.T) {
	for _, value := range []string{
		`$(python3 -c 'import importlib.util; print(importlib.util.find_spec("vllm").origin)')`,
		`$(python3 -c "import sglang, os; print(os.path.dirname(sglang.__file__))")`,
		`$(pip show vllm | grep Location)`,
		`$(python3 -c 'import site; print(site.getsitepackages()[0])')`,
	} {
		loc := NewLocations()
		loc.Assign("ROOT", value, 1)
		_, zh := Stack(nil).patchingIn([]string{"cp", "a.py", "$ROOT/a.py"}, `cp a.py "$ROOT/a.py"`, loc)
		if zh == "" {
			t.Fatalf("%s: no indicator", value)
		}
		if words := checkstest.EnglishInChinese(zh); len(words) > 0 {
			t.Errorf("%q leaves %q untranslated", zh, words)
		}
	}
}
