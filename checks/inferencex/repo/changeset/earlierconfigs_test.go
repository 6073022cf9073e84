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

// moveConfigs moves every file under configs/ of files to .github/configs/,
// where the legacy layout kept its master configs until July 2026.
func moveConfigs(files map[string]string) {
	for p, c := range files {
		if rest, ok := strings.CutPrefix(p, "configs/"); ok {
			delete(files, p)
			files[".github/configs/"+rest] = c
		}
	}
}

// TestEarlierConfigsDir: a legacy commit from before the master configs
// moved is read where they were, a changed master config there is compared
// as a parsed document, and the move itself changes no entry.
func TestEarlierConfigsDir(t *testing.T) {
	t.Run("before the move", func(t *testing.T) {
		r := inferencextest.NewRepo(repo.LegacyLayout())
		r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
			"lmsysorg/sglang:v0.5.12-cu130", "lmsysorg/sglang:v0.5.13-cu130", 1)
		moveConfigs(r.Base)
		moveConfigs(r.Head)
		pr, _ := r.PR(t)
		cs, err := changeset.Fact.Of(context.Background(), pr)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs.Problems) != 0 {
			t.Fatalf("problems: %+v", cs.Problems)
		}
		if !reflect.DeepEqual(cs.ChangedKeys, []string{"dsr1-fp4-b200-sglang-mtp"}) || len(cs.AddedKeys)+len(cs.RemovedKeys) != 0 {
			t.Fatalf("added %q changed %q removed %q; want only dsr1-fp4-b200-sglang-mtp changed", cs.AddedKeys, cs.ChangedKeys, cs.RemovedKeys)
		}
		if _, ok := cs.MasterHead["oldm-fp8-mi300x-vllm"]; ok {
			t.Fatal("deprecated/ configs must be excluded there too")
		}
	})
	t.Run("the move", func(t *testing.T) {
		r := inferencextest.NewRepo(repo.LegacyLayout())
		moveConfigs(r.Base)
		pr, _ := r.PR(t)
		cs, err := changeset.Fact.Of(context.Background(), pr)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs.Problems) != 0 || len(cs.AddedKeys)+len(cs.ChangedKeys)+len(cs.RemovedKeys) != 0 || len(cs.MasterHead) == 0 {
			t.Fatalf("moving the configs: problems %+v, added %q changed %q removed %q (%d entries at H)",
				cs.Problems, cs.AddedKeys, cs.ChangedKeys, cs.RemovedKeys, len(cs.MasterHead))
		}
	})
}
