package changeset_test

import (
	"context"
	"slices"
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// TestSharedUsersReusesTheChangeSetsFiles: following a changed shared
// helper to every config at H reuses what the change set already parsed.
// The affected config's effective files are the change set's own (the same
// parsed files, not copies read again), and the helper is one parsed file
// for every config that sources it.
func TestSharedUsersReusesTheChangeSetsFiles(t *testing.T) {
	r := inferencextest.NewRepo(inferencextest.Layouts()["legacy"])
	script := "benchmarks/single_node/agentic/exm_fp4_mi355x_mtp.sh"
	lib := "benchmarks/benchmark_lib.sh"
	r.Head[lib] = r.Base[lib] + "shared_knob() { :; }\n"
	r.Head[script] = r.Base[script] + "# touched\n"
	pr, _ := r.PR(t)
	ctx := context.Background()
	cs, err := changeset.Fact.Of(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cs.UnmappedFiles, r.Path(lib)) {
		t.Fatalf("unmapped = %q, want the shared helper", cs.UnmappedFiles)
	}
	users, err := changeset.SharedUsersFact.Of(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	key := "exm-fp4-mi355x-vllm-agentic-mtp"
	if !slices.Contains(users.Users[r.Path(lib)], key) {
		t.Fatalf("users of %s = %q, want %s among them", lib, users.Users[r.Path(lib)], key)
	}
	// The change set adds its dry runs' settings; the files are shared.
	own, shared := slices.DeleteFunc(slices.Clone(cs.Effective[key]), func(f *repo.EffectiveFile) bool { return f.Kind == "trace" }), users.Effective[key]
	if len(own) == 0 || len(own) != len(shared) {
		t.Fatalf("effective files: change set %d, shared users %d", len(own), len(shared))
	}
	for i := range own {
		if own[i] != shared[i] {
			t.Errorf("%s: shared users parsed %s again", key, own[i].Path)
		}
	}
	var libFile any
	for k, files := range users.Effective {
		for _, f := range files {
			if f.Path != r.Path(lib) {
				continue
			}
			if libFile != nil && libFile != any(f) {
				t.Errorf("%s: %s parsed once more", k, lib)
			}
			libFile = f
		}
	}
	if libFile == nil {
		t.Fatalf("no config runs %s", lib)
	}
}
