package changeset_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// TestChangeSetShellHelpers: the effective files of a config are the files
// its script sources or runs, as the parser reads their paths. A shared
// helper with a here-string is read; a script of a project the script
// cloned (cd Mooncake && bash dependencies.sh) is not a repository file and
// is neither a helper nor a problem; a helper that is really missing is one.
func TestChangeSetShellHelpers(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			script := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
			r.Head["benchmarks/benchmark_lib.sh"] = r.Base["benchmarks/benchmark_lib.sh"] +
				"pick_concs() {\n  local -a xs\n  read -r -a xs <<< \"$1\"\n  echo \"${xs[0]}\"\n}\n"
			r.Head[script] = `#!/usr/bin/env bash
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$SCRIPT_DIR/../../benchmark_lib.sh"
install_kv_store() {
  git clone --depth 1 https://github.com/kvcache-ai/Mooncake.git
  cd Mooncake && bash dependencies.sh -y
}
install_kv_store
bash "$SCRIPT_DIR/gone_helper.sh"
vllm serve "$MODEL" --tensor-parallel-size 8 &
`
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			var eff []string
			for _, f := range cs.Effective["exm-fp4-mi355x-vllm-agentic-mtp"] {
				eff = append(eff, f.Kind+":"+f.Path)
				if f.Path == r.Path("benchmarks/benchmark_lib.sh") && (f.Err != "" || f.Script == nil || f.Script.Function("pick_concs") == nil) {
					t.Errorf("helper with a here-string not read: %+v", f)
				}
			}
			want := []string{
				"script:" + r.Path(script),
				"helper:" + r.Path("benchmarks/benchmark_lib.sh"),
				"helper:" + r.Path("benchmarks/single_node/agentic/gone_helper.sh"),
				"trace:(dry run of exm-fp4-mi355x-vllm-agentic-mtp)",
			}
			if !reflect.DeepEqual(eff, want) {
				t.Fatalf("effective = %q, want %q", eff, want)
			}
			if len(cs.Problems) != 1 || cs.Problems[0].Path != r.Path("benchmarks/single_node/agentic/gone_helper.sh") ||
				!strings.Contains(cs.Problems[0].Err, "not in the repository") {
				t.Fatalf("problems = %+v, want only the missing helper", cs.Problems)
			}
		})
	}
}

// TestChangeSetRecipeSelector: a CONFIG_FILE ending in a selector names the
// recipe file; the selector is kept for the bands (RecipeRefs), never read
// as part of the path.
func TestChangeSetRecipeSelector(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			r.Head["configs/nvidia-master.yaml"] = strings.ReplaceAll(r.Base["configs/nvidia-master.yaml"],
				`"CONFIG_FILE=recipes/sglang/dsv4/disagg.yaml"`, `"CONFIG_FILE=recipes/sglang/dsv4/disagg.yaml:zip_override_mtp[1]"`)
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil || len(cs.Problems) != 0 {
				t.Fatalf("%v %+v", err, cs.Problems)
			}
			eff := cs.Effective["dsv4-fp4-gb200-dynamo-sglang-disagg"]
			rp := r.Path("benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg.yaml")
			if len(eff) == 0 || eff[0].Path != rp || eff[0].Err != "" || len(eff[0].Settings) == 0 {
				t.Fatalf("effective %+v", eff)
			}
			var sels []string
			for _, sc := range cs.Affected[0].Scenarios {
				for _, ss := range sc.Search {
					for _, ref := range repo.RecipeRefs(cs.Layout, ss) {
						sels = append(sels, ref.Path+" "+ref.Selector)
					}
				}
			}
			if want := []string{rp + " zip_override_mtp[1]", rp + " zip_override_mtp[1]"}; !reflect.DeepEqual(sels, want) {
				t.Fatalf("refs %q, want %q", sels, want)
			}
		})
	}
}

// The dry run of a config's job resolves what the static reading cannot:
// a draft length given by a default expansion reaches the server flag.
func TestChangeSetDryRunResolvesServerFlags(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			script := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
			r.Head[script] = `#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
SPEC_NUM_TOKENS="${SPEC_NUM_TOKENS:-2}"
SPEC_ARGS=(--speculative-config "{\"method\":\"mtp\",\"num_speculative_tokens\":$SPEC_NUM_TOKENS}")
vllm serve "$MODEL" --tensor-parallel-size "$TP" "${SPEC_ARGS[@]}" &
`
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			files := cs.Effective["exm-fp4-mi355x-vllm-agentic-mtp"]
			last := files[len(files)-1]
			if last.Kind != "trace" {
				t.Fatalf("no dry run among %d effective files", len(files))
			}
			got := map[string]string{}
			for _, s := range last.Settings {
				got[s.Name] = s.Value
			}
			if got["--speculative-config"] != `{"method":"mtp","num_speculative_tokens":2}` || got["--tensor-parallel-size"] == "" {
				t.Errorf("dry-run settings %v", got)
			}
		})
	}
}

// A dry run that stops at one of its bounds is named, so a row never
// presents what the static reading alone decided as the job's behaviour.
func TestChangeSetNamesDryRunsStoppedAtABound(t *testing.T) {
	for name, layout := range inferencextest.Layouts() {
		t.Run(name, func(t *testing.T) {
			r := inferencextest.NewRepo(layout)
			script := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
			r.Head[script] = `#!/usr/bin/env bash
while true; do sleep 1; done
vllm serve "$MODEL" --tensor-parallel-size "$TP" &
`
			pr, _ := r.PR(t)
			cs, err := changeset.Fact.Of(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			var got []changeset.DryRunGap
			for _, g := range cs.DryRunGaps {
				if g.Config == "exm-fp4-mi355x-vllm-agentic-mtp" {
					got = append(got, g)
				}
			}
			if len(got) == 0 || got[0].Point == "" || !strings.Contains(got[0].Why, "stopped") {
				t.Fatalf("gaps %+v", cs.DryRunGaps)
			}
			text, ev, ok := cs.DryRunsIncomplete()
			if !ok || !strings.Contains(text.EN, "exm-fp4-mi355x-vllm-agentic-mtp") || len(ev) != len(cs.DryRunGaps) {
				t.Errorf("DryRunsIncomplete = %q, %d evidence, %v", text.EN, len(ev), ok)
			}
		})
	}
}

// A dry run that ends (the script's own exit included) is no gap.
func TestChangeSetCompleteDryRunsHaveNoGaps(t *testing.T) {
	r := inferencextest.NewRepo(inferencextest.Layouts()["legacy"])
	r.Head["benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"] = "#!/usr/bin/env bash\nvllm serve \"$MODEL\" &\nexit 3\n"
	pr, _ := r.PR(t)
	cs, err := changeset.Fact.Of(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, gap := cs.DryRunsIncomplete(); gap {
		t.Errorf("gaps %+v", cs.DryRunGaps)
	}
}
