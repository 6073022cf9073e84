package yamlx

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

// fastAgrees fails when fastDecode answers differently from yaml.v3.
func fastAgrees(t *testing.T, text string) bool {
	t.Helper()
	got, ok := fastDecode(text)
	if !ok {
		return false
	}
	var want map[string]any
	if err := yaml.Unmarshal([]byte(text), &want); err != nil {
		t.Fatalf("fast decoder accepted what yaml.v3 rejects (%v):\n%s", err, text)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fast decoder disagrees with yaml.v3:\n%s\nfast: %#v\nv3:   %#v", text, got, want)
	}
	return true
}

func TestFastDecodeAgreesWithYAMLv3(t *testing.T) {
	accepted := 0
	var chunks []string
	if data, err := checkstest.ReadSample("configs/amd-master.yaml"); err == nil {
		cs, err := SplitTopLevel(string(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			chunks = append(chunks, string(c.Text))
		}
	}
	chunks = append(chunks,
		"a:\n  b: 1\n  c: [1, 2.5, x, \"y\", 'z''s']\n  d: { e: true, f: ~, g: [] , h: {} }\n",
		"a:\n  list:\n  - isl: 8192\n    osl: 1024\n    search-space:\n    - { tp: 8 }\n  - 3\n",
		"a:\n  s: \"tab\\tq\\\"\"\n  n: -12\n  f: +0.5\n  k: v # comment\n",
	)
	for _, c := range chunks {
		if fastAgrees(t, c) {
			accepted++
		}
	}
	if accepted < len(chunks)*9/10 {
		t.Fatalf("fast path accepted only %d of %d chunks", accepted, len(chunks))
	}
	for _, bad := range []string{"a: &x 1\n", "a: |\n  x\n", "a:\n  b: 1\n  b: 2\n", "a: 0x10\n", "a: 2026-01-01\n", "a: yes\n", "a: [1,\n  2]\n"} {
		if _, ok := fastDecode(bad); ok {
			t.Errorf("fast path accepted %q", bad)
		}
	}
}

func FuzzFastYAML(f *testing.F) {
	f.Add("a:\n  b: [1, 2]\n  c: { d: x, e: 'y' }\n  f:\n  - g: 1\n    h: 2\n")
	f.Add("k:\n  image: lmsysorg/sglang:v0.5\n  conc-list: [ 8, 16 ]\n  x: \"q\"\n")
	f.Add("a:\n- 1\n- - 2\n")
	// Seeds at and just past the parser's own depth bound.
	f.Add("a: " + strings.Repeat("[", MaxFastDepth) + strings.Repeat("]", MaxFastDepth) + "\n")
	f.Add("a: " + strings.Repeat("[", MaxFastDepth+1) + strings.Repeat("]", MaxFastDepth+1) + "\n")
	f.Fuzz(func(t *testing.T, text string) {
		fastAgrees(t, text)
	})
}

// BenchmarkParseEntry reads every entry of the sample master config through
// the fast parser, as the change-set model reads each distinct entry once.
func BenchmarkParseEntry(b *testing.B) {
	data, err := checkstest.ReadSample("configs/amd-master.yaml")
	if err != nil {
		b.Skip(err)
	}
	cs, err := SplitTopLevel(string(data))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ps Parser
	for b.Loop() {
		for _, c := range cs {
			if _, ok := ps.Entry(c.Text); !ok {
				b.Fatalf("entry %s is outside the subset", c.Key)
			}
		}
	}
}

// deepInputs are documents nested far past every bound, in each way YAML
// can nest: flow sequences, flow mappings, block mappings and compact
// sequences. A million levels once overflowed the fast parser's stack, a
// fatal error that took the whole server down.
func deepInputs() map[string]string {
	const n = 1_000_000
	block := new(strings.Builder)
	for i := range 3000 { // indentation grows quadratically; 3,000 levels is 4.5 MB
		block.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	block.WriteString(strings.Repeat(" ", 3000) + "k: 1\n")
	return map[string]string{
		"flow sequence": "a: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n",
		"flow mapping":  "a: " + strings.Repeat("{b: ", n) + "1" + strings.Repeat("}", n) + "\n",
		"open flow":     "a:\n  b: " + strings.Repeat("[", n) + "\n",
		"block mapping": block.String(),
		"compact seq":   "a:\n" + strings.Repeat("- ", n) + "x\n",
	}
}

func TestDeepNestingIsRefusedNotFollowed(t *testing.T) {
	for name, text := range deepInputs() {
		t.Run(name, func(t *testing.T) {
			var ps Parser
			if _, ok := ps.Parse(text); ok {
				t.Fatal("fast parser accepted a document nested past MaxFastDepth")
			}
			_, err := DecodeEntry(text)
			if err == nil {
				t.Fatal("decoded a document nested a million deep")
			}
			if _, err := DecodeNode([]byte(text)); err == nil {
				t.Fatal("DecodeNode decoded a document nested a million deep")
			}
		})
	}
}

func TestCheckDepthAcceptsRealDocuments(t *testing.T) {
	ok := []string{
		"a:\n  b: [1, [2, [3]]]\n  c: { d: 'x[y', e: \"]]]]\" }\n  f:\n  - g: 1\n    h:\n    - - 2\n",
		"a: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "\n",
		"a: it's [fine\nb: 'x' # [[[[\n",
	}
	for _, text := range ok {
		if err := CheckDepth(text); err != nil {
			t.Errorf("CheckDepth(%.40q) = %v", text, err)
		}
	}
	if err := CheckDepth("a: " + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + "\n"); err == nil {
		t.Error("CheckDepth accepted a document one level past MaxDepth")
	}
}

// FuzzCheckDepth checks that CheckDepth never lets through a document that
// yaml.v3 reads as nesting deeper than MaxDepth.
func FuzzCheckDepth(f *testing.F) {
	f.Add("a: " + strings.Repeat("[", MaxDepth+1) + "\n")
	f.Add("a:\n" + strings.Repeat("- ", MaxDepth+1) + "x\n")
	f.Add("a: " + strings.Repeat("{b: ", MaxDepth) + "1" + strings.Repeat("}", MaxDepth) + "\n")
	f.Add("a: '[' \n")
	f.Fuzz(func(t *testing.T, text string) {
		if CheckDepth(text) != nil {
			return
		}
		var doc yaml.Node
		if yaml.Unmarshal([]byte(text), &doc) != nil {
			return
		}
		if d := nodeDepth(&doc, 0); d > MaxDepth+1 { // +1: the document node
			t.Fatalf("CheckDepth passed a document %d deep", d)
		}
	})
}

func nodeDepth(n *yaml.Node, d int) int {
	best := d
	for _, c := range n.Content {
		best = max(best, nodeDepth(c, d+1))
	}
	return best
}
