package repo

import (
	"strings"
	"testing"
)

// Verifications with equal settings share decoded entries (the PRs of one
// base decode each entry once); other settings classify differently and
// get a cache of their own; past the byte bound the caches start afresh.
func TestSharedChunks(t *testing.T) {
	cs := &chunkCaches{m: map[string]*chunkCache{}}
	a, b := Defaults(), Defaults()
	other := Defaults()
	other.EstablishedSKUs = []string{"h100"}
	const master = "e1:\n  model: m\n  runner: h100\n  framework: vllm\n  precision: fp8\n"
	first := cs.For(&a).file("configs/x-master.yaml", []byte(master))
	second := cs.For(&b).file("configs/x-master.yaml", []byte(master))
	if len(first.es) != 1 || len(second.es) != 1 || first.es[0] != second.es[0] {
		t.Fatalf("equal settings do not share the decoded entry: %v %v", first.es, second.es)
	}
	if cs.For(&other) == cs.For(&a) {
		t.Error("other settings share a cache")
	}
	big := strings.Repeat("#\n", sharedChunkBytes/2+1)
	cs.For(&a).file("configs/big-master.yaml", []byte(big))
	if cs.For(&a).held() != 0 {
		t.Error("the caches were kept past their bound")
	}
}
