package changeset_test

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// countingSource counts ReadFile calls per ref and path.
type countingSource struct {
	*checkstest.Source
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingSource) ReadFile(ctx context.Context, ref, p string) ([]byte, error) {
	c.mu.Lock()
	if c.reads == nil {
		c.reads = map[string]int{}
	}
	c.reads[ref+":"+p]++
	c.mu.Unlock()
	return c.Source.ReadFile(ctx, ref, p)
}

func TestChangeSetBuild(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			// Change one entry's image, add one entry, select two keys by glob,
			// edit a recipe (maps to the disagg entry) and a helper (unmapped).
			r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
				"lmsysorg/sglang:v0.5.12-cu130", "lmsysorg/sglang:v0.5.13-cu130", 1)
			r.AppendEntry("configs/amd-master.yaml", `dsr1-fp8-mi355x-sglang:
  image: lmsysorg/sglang:v0.5.12-rocm700-mi35x
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: mi355x
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - { isl: 8192, osl: 1024, search-space: [ { tp: 8, conc-start: 4, conc-end: 64 } ] }
`)
			r.AppendChangelog("dsr1-fp4-*", "qwen3.5-fp8-b2*0-sglang")
			r.Head["benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml"] += "  # tuned\n"
			r.Head["benchmarks/benchmark_lib.sh"] += "# helper tweak\n"
			pr, src := r.PR(t)
			cnt := &countingSource{Source: src}
			pr.Source = cnt
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs.Problems) != 0 {
				t.Fatalf("problems: %+v", cs.Problems)
			}
			eq := func(what string, got, want []string) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s = %q, want %q", what, got, want)
				}
			}
			eq("added", cs.AddedKeys, []string{"dsr1-fp8-mi355x-sglang"})
			eq("changed", cs.ChangedKeys, []string{"dsr1-fp4-b200-sglang-mtp"})
			eq("removed", cs.RemovedKeys, nil)
			eq("selected", cs.Selected, []string{"dsr1-fp4-b200-sglang-mtp", "dsr1-fp4-mi355x-sglang", "qwen3.5-fp8-b200-sglang"})
			if _, ok := cs.MasterHead["oldm-fp8-mi300x-vllm"]; ok {
				t.Fatal("deprecated/ configs must be excluded")
			}
			var aff []string
			for _, e := range cs.Affected {
				aff = append(aff, e.Key)
			}
			eq("affected", aff, []string{"dsr1-fp4-b200-sglang-mtp", "dsr1-fp4-mi355x-sglang", "dsr1-fp8-mi355x-sglang", "dsv4-fp4-gb200-dynamo-sglang-disagg", "qwen3.5-fp8-b200-sglang"})
			eq("unmapped", cs.UnmappedFiles, []string{r.Path("benchmarks/benchmark_lib.sh")})
			if len(cs.ChangelogAdded) != 1 || len(cs.ChangelogAdded[0].Matched) != 3 {
				t.Fatalf("changelog added = %+v", cs.ChangelogAdded)
			}
			var eff []string
			for _, f := range cs.Effective["dsr1-fp4-b200-sglang-mtp"] {
				eff = append(eff, f.Kind+":"+f.Path)
			}
			eq("effective", eff, []string{
				"script:" + r.Path("benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"),
				"launcher:" + r.Path("runners/launch_b200-dgxc.sh"),
				"helper:" + r.Path("benchmarks/benchmark_lib.sh"),
				// The server flags of the job's dry run come last.
				"trace:(dry run of dsr1-fp4-b200-sglang-mtp)",
			})
			d := cs.Effective["dsv4-fp4-gb200-dynamo-sglang-disagg"]
			if len(d) != 1 || d[0].Kind != "recipe" || !d[0].Changed || d[0].Path != r.Path("benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml") {
				t.Fatalf("disagg effective = %+v", d)
			}
			e := cs.MasterHead["exm-fp4-mi355x-vllm-agentic-mtp"]
			if !e.Agentic || !e.SpecDecode || e.SKU != "mi355x" || !e.OpenSource || e.MultiNode {
				t.Fatalf("classification = %+v", e)
			}
			g := cs.MasterHead["dsv4-fp4-gb200-dynamo-sglang-disagg"]
			if !g.MultiNode || !g.Disagg || g.SpecDecode || g.Line == 0 {
				t.Fatalf("classification = %+v", g)
			}
			for k, n := range cnt.reads {
				if n != 1 {
					t.Errorf("%s read %d times", k, n)
				}
			}
			// A second consumer gets the same model without new reads.
			before := len(cnt.reads)
			cs2, _ := changeset.Fact.Of(context.Background(), pr)
			ms, _ := repo.MastersFact.Of(context.Background(), pr)
			m, _, _ := ms.At(context.Background(), inferencextest.HeadSHA)
			if cs2 != cs || len(m) != len(cs.MasterHead) || len(cnt.reads) != before {
				t.Fatal("change set or master configs rebuilt")
			}
		})
	}
}

func TestChangeSetBadInput(t *testing.T) {
	r := inferencextest.NewRepo(repo.LegacyLayout())
	r.Head["configs/amd-master.yaml"] += "\ndsr1-fp4-mi355x-sglang:\n  image: x\n"
	r.Head["configs/nvidia-master.yaml"] += "\nbroken-entry:\n  image: [unclosed\n"
	r.Head["perf-changelog.yaml"] = "- config-keys: [a\n"
	r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
		"CONFIG_FILE=recipes/sglang/dsv4/disagg.yaml", "CONFIG_FILE=recipes/sglang/dsv4/missing.yaml", 1)
	pr, _ := r.PR(t)
	cs, err := changeset.Fact.Of(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, p := range cs.Problems {
		all = append(all, p.Path+": "+p.Err)
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{`duplicate key "dsr1-fp4-mi355x-sglang"`, "broken-entry", "perf-changelog.yaml: changelog at head000 does not parse"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	// The other entries are still there.
	if cs.MasterHead["dsr1-fp4-b200-sglang-mtp"] == nil {
		t.Fatal("good entries were lost")
	}
	// Checks needing the master configs say what could not be read.
	res := checkstest.RunOne(t, pr, inferencex.UpstreamImages)
	if res.Status != checks.Fail || !strings.Contains(res.Reason.EN, "could not be verified") {
		t.Fatalf("check 6 = %+v", res)
	}
}

func TestChangeSetAliasBomb(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		n := string(rune('b' + i))
		bomb += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	es, ps := repo.ParseMasterConfig("configs/bomb-master.yaml", []byte(bomb))
	if len(ps) == 0 || len(es) != 0 {
		t.Fatalf("alias bomb accepted: %d entries, problems %v", len(es), ps)
	}
}

func TestChangeSetSrtRecipeMapping(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			rp := "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/mi355x-fp8-mtp/agentic.yaml"
			r.Base["configs/amd-master.yaml"] += `
qwen3.5-fp8-mi355x-sglang-agentic-eg:
  image: lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x
  model-prefix: qwen3.5
  runner: cluster:mi355x-amds
  precision: fp8
  framework: sglang
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - { tp: 4, ep: 1, kv-offloading: none, conc-list: [1, 4, 8, 12],
          srt-recipe: ` + rp + ` }
`
			r.Base[rp] = "backend:\n  sglang_config:\n    aggregated:\n      tp-size: 4\n"
			for p, c := range r.Base {
				r.Head[p] = c
			}
			// Only the recipe changes: it maps back to its config, whose
			// spec-decode classification comes from the recipe.
			r.Head[rp] = "backend:\n  sglang_config:\n    aggregated:\n      tp-size: 4\n      speculative-algorithm: EAGLE\n"
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil || len(cs.Problems) != 0 {
				t.Fatalf("%v %+v", err, cs.Problems)
			}
			if len(cs.Affected) != 1 || cs.Affected[0].Key != "qwen3.5-fp8-mi355x-sglang-agentic-eg" || !cs.Affected[0].SpecDecode {
				t.Fatalf("affected %+v", cs.Affected)
			}
			if cs.MasterHead["qwen3.5-fp8-mi355x-sglang-agentic-eg"].SpecDecode {
				t.Fatal("shared MasterHead entry was mutated")
			}
			eff := cs.Effective["qwen3.5-fp8-mi355x-sglang-agentic-eg"]
			if len(eff) == 0 || eff[0].Path != r.Path(rp) || eff[0].Kind != "recipe" || !eff[0].Changed {
				t.Fatalf("effective %+v", eff)
			}
		})
	}
}

// TestChangeSetRecipeBenchmarkHelper: a multi-node recipe's benchmark.command
// runs a script through the container workspace mount (/infmax-workspace is
// the project root); that script and what it sources are effective helpers.
// A workspace path that is not in the repository is not claimed (no problem).
func TestChangeSetRecipeBenchmarkHelper(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			rp := "benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml"
			r.Base["benchmarks/multi_node/agentic_srt.sh"] = "source \"${INFMAX_CONTAINER_WORKSPACE}/benchmarks/multi_node/agentic_env.sh\"\npython3 -m infx.agentic.replay\n"
			r.Base["benchmarks/multi_node/agentic_env.sh"] = "export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n"
			for p, c := range r.Base {
				r.Head[p] = c
			}
			r.Head[rp] += "benchmark:\n  type: custom\n  command: bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh && bash /infmax-workspace/not/in/repo.sh\n"
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil || len(cs.Problems) != 0 {
				t.Fatalf("%v %+v", err, cs.Problems)
			}
			var eff []string
			for _, f := range cs.Effective["dsv4-fp4-gb200-dynamo-sglang-disagg"] {
				eff = append(eff, f.Kind+":"+f.Path)
			}
			want := []string{
				"recipe:" + r.Path(rp),
				"helper:" + r.Path("benchmarks/multi_node/agentic_srt.sh"),
				"helper:" + r.Path("benchmarks/multi_node/agentic_env.sh"),
			}
			if !reflect.DeepEqual(eff, want) {
				t.Fatalf("effective = %q, want %q", eff, want)
			}
		})
	}
}

// TestChangeSetChangelogSelection: the entries a PR adds are found by
// comparing parsed entries, wherever they land in the file.
func TestChangeSetChangelogSelection(t *testing.T) {
	const (
		first = "- config-keys:\n    - dsr1-fp4-mi355x-sglang\n  description:\n    - \"Bump image\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2001\n"
		other = "- config-keys:\n    - dsv4*\n  description:\n    - \"Add DeepSeek-V4 disagg\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2002\n"
		mine  = "- config-keys:\n    - qwen3.5-fp8-b200-sglang\n  description:\n    - \"Tune Qwen3.5\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2611\n"
	)
	for _, tc := range []struct {
		name       string
		base, head string
		selected   []string
		addedLine  int
		problem    string
	}{
		// Another PR's entry was merged last after this PR's branch point.
		{name: "mid-file entry", base: first + "\n" + other, head: first + "\n" + mine + "\n" + other,
			selected: []string{"qwen3.5-fp8-b200-sglang"}, addedLine: 7},
		{name: "moved and reformatted entries add nothing", base: first + "\n" + other,
			head: other + "\n- {pr-link: 'https://github.com/SemiAnalysisAI/InferenceX/pull/2001', config-keys: [dsr1-fp4-mi355x-sglang], description: [Bump image]}\n"},
		{name: "edited entry", base: first + "\n" + other, head: first + "\n" + strings.Replace(other, "dsv4*", "dsr1*", 1),
			selected: []string{"dsr1-fp4-b200-sglang-mtp", "dsr1-fp4-mi355x-sglang"}, addedLine: 7,
			problem: "no longer holds 1 entry of the base unchanged (base line 7): entries were removed or edited"},
		{name: "unknown key", base: first, head: first + strings.Replace(mine, "qwen3.5-fp8-b200-sglang", "qwen3.5-fp8-b200-sglang-typo", 1),
			addedLine: 6, problem: "line 6: config-keys qwen3.5-fp8-b200-sglang-typo select no master config"},
		{name: "old entries are not checked against the schema", base: first + "  legacy-field: 1\n", head: first + "  legacy-field: 1\n" + mine,
			selected: []string{"qwen3.5-fp8-b200-sglang"}, addedLine: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := inferencextest.NewRepo(repo.LegacyLayout())
			r.Base["perf-changelog.yaml"], r.Head["perf-changelog.yaml"] = tc.base, tc.head
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(cs.Selected, ",") != strings.Join(tc.selected, ",") {
				t.Errorf("selected = %q, want %q", cs.Selected, tc.selected)
			}
			if tc.addedLine != 0 && (len(cs.ChangelogAdded) != 1 || cs.ChangelogAdded[0].Line != tc.addedLine) {
				t.Errorf("added = %+v, want one entry at line %d", cs.ChangelogAdded, tc.addedLine)
			}
			if tc.addedLine == 0 && len(cs.ChangelogAdded) != 0 {
				t.Errorf("added = %+v, want none", cs.ChangelogAdded)
			}
			ps := cs.ProblemsFor("perf-changelog.yaml")
			switch {
			case tc.problem == "" && len(ps) != 0:
				t.Errorf("problems %+v", ps)
			case tc.problem != "" && (len(ps) != 1 || !strings.Contains(ps[0].Err, tc.problem)):
				t.Errorf("problems %+v, want %q", ps, tc.problem)
			}
		})
	}
}

// TestChangeSetProblemsOrder: helpers are found by walking the affected
// configs concurrently, yet the problems come out the same every time: in
// path order, each path's problems in the order they were found.
func TestChangeSetProblemsOrder(t *testing.T) {
	r := inferencextest.NewRepo(repo.LegacyLayout())
	for i, s := range []string{"dsr1_fp4_b200_mtp.sh", "dsr1_fp4_mi355x.sh", "qwen3.5_fp8_b200.sh"} {
		p := "benchmarks/single_node/fixed_seq_len/" + s
		r.Head[p] += "source \"$(dirname \"$0\")/missing_" + string(rune('c'-i)) + ".sh\"\n"
	}
	r.Head["perf-changelog.yaml"] = "- config-keys: [a\n"
	r.Head["configs/nvidia-master.yaml"] += "\nbroken-entry:\n  image: [unclosed\n"
	var first []repo.InputProblem
	for run := 0; run < 20; run++ {
		pr, _ := r.PR(t)
		cs, err := changeset.Fact.Of(context.Background(), pr)
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = cs.Problems
			var paths []string
			for _, p := range first {
				paths = append(paths, p.Path)
			}
			if len(paths) < 4 || !sort.StringsAreSorted(paths) {
				t.Fatalf("problem paths %q: want at least the three helpers and the master config, sorted", paths)
			}
			continue
		}
		if !reflect.DeepEqual(cs.Problems, first) {
			t.Fatalf("run %d: problems\n%+v\nwant\n%+v", run, cs.Problems, first)
		}
	}
}
