package repo

import (
	"reflect"
	"testing"

	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// resolved replaces every lazy Fields of an entry by the map it decodes to,
// so two entries compare with reflect.DeepEqual.
func resolved(e *ConfigEntry) *ConfigEntry {
	c := *e
	c.Raw = FieldsOf(e.Raw.Map())
	c.Scenarios = nil
	for _, s := range e.Scenarios {
		s.Fields = FieldsOf(s.Fields.Map())
		search := s.Search
		s.Search = nil
		for _, ss := range search {
			ss.Fields = FieldsOf(ss.Fields.Map())
			s.Search = append(s.Search, ss)
		}
		c.Scenarios = append(c.Scenarios, s)
	}
	return &c
}

// nodeAgrees fails when the typed reading of a chunk from the fast parser's
// tree differs from the reading of its generic decoding; it reports whether
// the chunk was in the fast parser's subset.
func nodeAgrees(t *testing.T, text string) bool {
	t.Helper()
	var ps yamlx.Parser
	v, ok := ps.Entry(text)
	if !ok {
		return false
	}
	got, gotErr := entryFromNode("k", v, &entryText{text: text})
	raw, err := yamlx.DecodeEntrySlow(text)
	if err != nil {
		t.Fatalf("fast parser accepted what yaml.v3 rejects (%v):\n%s", err, text)
	}
	want, wantErr := entryFromRaw("k", raw)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("errors differ: tree %v, generic %v\n%s", gotErr, wantErr, text)
	}
	if gotErr != nil {
		return true
	}
	if g, w := resolved(got), resolved(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("typed readings differ for\n%s\ntree:    %+v\ngeneric: %+v", text, g, w)
	}
	return true
}

func TestEntryFromNodeAgrees(t *testing.T) {
	chunks := []string{
		"k:\n  image: lmsysorg/sglang:v0.5\n  model-prefix: m\n  runner: cluster:mi355x-amds\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 4, conc-start: 4, conc-end: 64 }\n      - { tp: 8, ep: 1, conc-list: [1, 2, 4], spec-decoding: mtp }\n",
		// Scalars of other types where strings, booleans and integers are expected.
		"k:\n  image: 12\n  model: 0.5\n  precision: true\n  framework: ~\n  multinode: \"yes\"\n  disagg: 1\n  scenarios:\n    a:\n    - isl: \"8192\"\n      osl: 1.5\n      search-space:\n      - tp: 8abc\n        conc-list: x\n        conc-start: 3\n        conc-end: 100\n      - 7\n    - 3\n    b: x\n",
		// Collections where scalars are expected, empty lists, nulls.
		"k:\n  image: [a, b]\n  runner: { x: 1 }\n  scenarios:\n    b:\n    - search-space: []\n    a:\n    - search-space:\n      - conc-list: []\n        prefill: { additional-settings: [\"CONFIG_FILE=recipes/x.yaml\", 5] }\n        decode:\n          additional-settings:\n          - ' CONFIG_FILE=\"/abs.yaml\"'\n          - OTHER=1\n      -\n",
		// An aggregated multi-node element's worker block.
		"k:\n  multinode: true\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - num-nodes: 1\n        conc-list: [1]\n        worker:\n          tp: 4\n          additional-settings:\n          - \"CONFIG_FILE=recipes/agg/w.yaml\"\n",
		"k: 5\n",
		"k:\n",
		"k:\n  scenarios: []\n",
	}
	if data, err := checkstest.ReadSample("configs/amd-master.yaml"); err == nil {
		cs, err := yamlx.SplitTopLevel(string(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			chunks = append(chunks, c.Text)
		}
	}
	accepted := 0
	for _, c := range chunks {
		if nodeAgrees(t, c) {
			accepted++
		}
	}
	if accepted < len(chunks)*9/10 {
		t.Fatalf("fast path read only %d of %d chunks", accepted, len(chunks))
	}
}

func FuzzEntryFromNode(f *testing.F) {
	f.Add("k:\n  image: x\n  scenarios:\n    a:\n    - isl: 1\n      search-space:\n      - { tp: 2, conc-list: [1, 2] }\n")
	f.Add("k:\n  multinode: yes\n  scenarios:\n    a:\n    - search-space:\n      - prefill:\n          additional-settings: [CONFIG_FILE=a]\n")
	f.Add("k:\n  scenarios:\n    a:\n    - search-space:\n      - conc-start: 1\n        conc-end: 1000000\n")
	f.Fuzz(func(t *testing.T, text string) {
		nodeAgrees(t, text)
	})
}

// TestLazyFieldsShareOneDecode: the base and head readings of an unchanged
// entry share its text, so comparing them decodes nothing, and a changed
// entry's fields decode to what yaml.v3 reads.
func TestLazyFieldsShareOneDecode(t *testing.T) {
	base := "a:\n  image: x\n  scenarios:\n    s:\n    - isl: 1\n      search-space:\n      - { tp: 2, dp-attn: true }\n"
	head := base + "b:\n  image: y\n"
	cache := newChunkCache(nil)
	pb, ph := cache.file("m-master.yaml", []byte(base)), cache.file("m-master.yaml", []byte(head))
	if len(pb.es) != 1 || len(ph.es) != 2 || pb.es[0] != ph.es[0] {
		t.Fatalf("base %+v head %+v: the unchanged entry is not shared", pb.es, ph.es)
	}
	if !sameValue(pb.es[0], ph.es[0]) || pb.es[0].Raw.src.raw != nil {
		t.Fatal("comparing an unchanged entry decoded it")
	}
	if v, _ := ph.es[0].Scenarios[0].Search[0].Fields.Get("dp-attn"); v != true {
		t.Fatalf("dp-attn = %v", v)
	}
	moved := cache.file("m-master.yaml", []byte("b:\n  image: y\n"+base))
	if moved.es[1] == pb.es[0] || moved.es[1].Line != 3 || !sameValue(moved.es[1], pb.es[0]) {
		t.Fatalf("a moved entry: %+v", moved.es[1])
	}
}

// An aggregated multi-node element names its recipe in its worker block.
func TestWorkerBlockRecipes(t *testing.T) {
	es, ps := ParseMasterConfig("configs/nvidia-master.yaml", []byte("k:\n  multinode: true\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - conc-list: [1]\n        worker:\n          tp: 4\n          additional-settings:\n          - \"CONFIG_FILE=recipes/agg/w.yaml\"\n"))
	if len(ps) > 0 || len(es) != 1 {
		t.Fatalf("%v %v", es, ps)
	}
	ss := es[0].Scenarios[0].Search[0]
	if len(ss.ConfigFiles) != 1 || ss.ConfigFiles[0] != "recipes/agg/w.yaml" {
		t.Errorf("config files %q", ss.ConfigFiles)
	}
	if tps := ss.TPs(); len(tps) != 1 || tps[0] != 4 {
		t.Errorf("tps %v", tps)
	}
}
